"""schema.graphql is generated from the code and committed; it must not drift."""

from pathlib import Path

from schema.schema import schema

ROOT = Path(__file__).resolve().parents[2]


def test_schema_file_matches_the_code():
    committed = (ROOT / "schema.graphql").read_text()
    assert committed == schema.as_str() + "\n", "schema.graphql is stale: run `make schema`"


def test_no_record_mutations_in_the_api():
    mutation = schema.get_type_by_name("Mutation")
    names = {f.name for f in mutation.fields}  # type: ignore[union-attr]
    verbs = ("create", "update", "delete", "upsert", "put", "set")
    assert not [n for n in names if n.lower().startswith(verbs) and "record" in n.lower()]
