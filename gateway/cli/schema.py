"""`skillmem schema`: the GraphQL schema as SDL, or a check that schema.graphql is current;
`skillmem schema inspect skill|memory`, the seed's look at a native object: the caller's rights
on it (from the server) and the fields its records carry (from this version's schema); and
`skillmem schema manifest`, the trusted documents' manifest of GraphQL files."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from gateway.cli.client import Client
from gateway.cli.common import REFUSED, Failure, TokenOption, UrlOption
from gateway.cli.tables import print_table

group = typer.Typer(help="The GraphQL schema, and the native objects' fields.")

OBJECTS = """
query Objects {
  objects { slug singular plural kind permissions { read create update delete } }
}
"""

# The GraphQL type a native object's records are read as.
NATIVE_TYPES = {"skill": "Skill", "memory": "MemoryPage"}

# What the records API allows on each native object beyond the caller's rights (the seed).
NATIVE_NOTES = {
    "skill": "A skill is written as SKILL.md and its files (createSkill, skills push); its name "
    "is at most 64 characters, its description at most 1,024.",
    "memory": "Memory records are pages: never created or deleted through the records API "
    "(SCHEMA_SYSTEM_ENTITY_IMMUTABLE); only a page's content is edited, by the person's own "
    "session (editMemoryPage). Agents propose with proposeMemory.",
}


class Native(StrEnum):
    skill = "skill"
    memory = "memory"


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="schema")


@group.callback(invoke_without_command=True)
def schema_sdl(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check", help="Fail when ./schema.graphql differs from the code's.")
    ] = False,
) -> None:
    """Print the GraphQL schema (SDL), or check ./schema.graphql against it."""
    if ctx.invoked_subcommand is not None:
        return
    from schema.schema import schema

    sdl = schema.as_str() + "\n"
    if check:
        current = Path("schema.graphql")
        if not current.exists() or current.read_text() != sdl:
            raise Failure("schema.graphql is out of date: run `make schema`", REFUSED)
        return
    sys.stdout.write(sdl)


@group.command("inspect")
def inspect(
    object_: Annotated[Native, typer.Argument(metavar="OBJECT", help="skill or memory.")],
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """The token's rights on a native object (skill or memory) and the fields of its records."""
    client = Client(url, token)
    objects = client.graphql(OBJECTS)["objects"]
    found = [o for o in objects if o["slug"] == object_.value]
    if not found:
        raise Failure(f"the token may not read {object_.value} records", REFUSED)
    described = found[0]
    rights = described["permissions"]
    print(
        f"object {described['slug']} ({described['singular']} / {described['plural']}, "
        f"kind {described['kind']})"
    )
    print("your rights: " + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in rights.items()))
    print(NATIVE_NOTES[object_.value])
    print_table(("field", "type", "description"), fields(NATIVE_TYPES[object_.value]))


@group.command("manifest")
def manifest(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="GraphQL files (each one document), or Markdown files (each graphql block).",
            exists=True,
            dir_okay=False,
        ),
    ],
) -> None:
    """Print the persisted-query manifest of these documents (for SKILLMEM_TRUSTED_DOCUMENTS):
    each document listed exactly as written, without its surrounding blank space."""
    from graphql import GraphQLError, parse

    from gateway.http.manifest import documents_of, manifest_of

    documents = []
    for path in files:
        for document in documents_of(path.name, path.read_text()):
            try:
                parse(document)
            except GraphQLError as error:
                raise Failure(f"{path}: a document does not parse: {error.message}") from None
            documents.append(document)
    sys.stdout.write(json.dumps(manifest_of(documents), indent=2) + "\n")


def fields(type_name: str) -> list[tuple[str, str, str]]:
    """Each field of a GraphQL object type: its name, type and description."""
    from schema.schema import schema

    graphql_type: Any = schema._schema.get_type(type_name)
    return [
        (name, str(field.type), (field.description or "").replace("\n", " "))
        for name, field in graphql_type.fields.items()
    ]
