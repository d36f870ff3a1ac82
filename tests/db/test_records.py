"""A page's related records (db/records.py's RelatedRow): the id read from the JSON's text."""

from __future__ import annotations

from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from db.records import RelatedRow


def related(text: object) -> RelatedRow:
    return RelatedRow({"id": text})


@given(st.uuids())
def test_the_hex_of_a_canonical_id_is_its_uuids(value: UUID):
    assert related(str(value)).id_hex == value.hex == related(str(value)).id.hex


SPELLINGS = [
    str.upper,
    lambda t: "{" + t + "}",
    lambda t: f"urn:uuid:{t}",
    lambda t: t.replace("-", ""),
    # Uppercase in one group only: each group is checked.
    *(
        (lambda t, start=start, end=end: t[:start] + t[start:end].upper() + t[end:])
        for start, end in ((0, 8), (9, 13), (14, 18), (19, 23), (24, 36))
    ),
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_another_spelling_of_an_id_is_parsed_to_the_same_hex(spelling):
    value = UUID("ab7c6f0e-5a3d-4c1e-9f2a-8d6e4b3c2a1f")
    assert related(spelling(str(value))).id_hex == value.hex


@pytest.mark.parametrize(
    "malformed",
    [
        "",
        "0b7c6f0e-5a3d-4c1e-9f2a-8d6e4b3c2a1",  # a digit short
        "0b7c6f0e-5a3d-4c1e-9f2a-8d6e4b3c2a10a",  # one too many
        "0b7c6f0e-5a3d-4c1e-9f2a-8d6e4b3c2a1g",  # not hex
        "0b7c6f0e-5a3d-4c1e-9f2a-8d6e4b3c2a1-",
        "0b7c6f0e-5a3d-4c1e-9f2a-8d6e4b3c2a10\n",
        "0b7c6f0e 5a3d 4c1e 9f2a 8d6e4b3c2a10",
    ],
)
def test_a_malformed_id_is_refused_never_read_as_another(malformed: str):
    with pytest.raises(ValueError):
        related(malformed).id_hex  # noqa: B018 - the property raises
    with pytest.raises(ValueError):
        related(malformed).id  # noqa: B018


def _parsed(text: str) -> str | type[Exception]:
    try:
        return UUID(text).hex
    except ValueError:
        return ValueError


def _read(text: str) -> str | type[Exception]:
    try:
        return related(text).id_hex
    except ValueError:
        return ValueError


@given(
    st.one_of(
        st.uuids().map(str),
        st.text(alphabet="0123456789abcdefABCDEF-{}:nru \n", min_size=30, max_size=46),
        st.uuids()
        .map(str)
        .flatmap(
            lambda t: st.tuples(st.integers(0, 35), st.sampled_from("-gA0 ")).map(
                lambda change: t[: change[0]] + change[1] + t[change[0] + 1 :]
            )
        ),
    )
)
def test_the_hex_is_always_what_parsing_the_text_gives(text: str):
    """Read without parsing or not, the answer is UUID(text)'s, or its refusal."""
    assert _read(text) == _parsed(text)


def test_an_id_that_is_not_text_is_refused():
    with pytest.raises((TypeError, AttributeError)):
        related(12).id_hex  # noqa: B018


@pytest.mark.parametrize(
    "query",
    [
        # The relations column's forms: jsonb of an object, json_agg of a row.
        "SELECT jsonb_build_array(jsonb_build_object('id', $1::uuid))",
        "SELECT json_agg(r) FROM (SELECT $1::uuid AS id) r",
    ],
)
async def test_an_id_as_postgresql_writes_it_in_json_is_read_without_parsing(
    pool, query, monkeypatch
):
    value = UUID("a1b2c3d4-e5f6-4789-8abc-def012345678")
    async with pool.acquire() as conn:
        items = await conn.fetchval(query, value)
    row = related(items[0]["id"])

    def parsed(*_args: object) -> None:
        raise AssertionError("a canonical id was parsed")

    monkeypatch.setattr("db.uuids.UUID", parsed)
    assert row.id_hex == value.hex
