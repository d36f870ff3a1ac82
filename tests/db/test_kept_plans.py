"""The statements planned once per session (issue 17, item 1; migration 0035): a turn's read and
an unfiltered records page run inside functions that keep a generic plan, and the unfiltered
page answers exactly what the filtered statement answers with no filter."""

from __future__ import annotations

import pytest

from db import records
from resolvers.common.principals import principal_for_token
from tests.factories import load_records

KEPT = ("turn_read", "records_page_plain")


async def test_the_hot_statements_keep_a_generic_plan(pool):
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT proname, proconfig FROM pg_proc WHERE proname = ANY ($1::text[])", list(KEPT)
        )
    assert {row["proname"]: row["proconfig"] for row in rows} == {
        name: ["plan_cache_mode=force_generic_plan"] for name in KEPT
    }


@pytest.mark.parametrize("role", ["member", "viewer", "admin"])
async def test_an_unfiltered_page_is_the_filtered_statement_without_filters(pool, ws, role):
    lines = [{"object": "companies", "external_id": f"co{i}", "label": f"Co {i}"} for i in range(4)]
    lines += [
        {
            "object": "contacts",
            "external_id": f"p{i}",
            "label": f"Person {i}",
            "relations": {"company": {"external_id": f"co{i % 4}"}},
            **({"visibility": "private"} if i % 3 == 0 else {}),
        }
        for i in range(12)
    ]
    await load_records(pool, ws.tokens["member"], lines)
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens[role])
        assert principal is not None
        readable, person = principal.readable_objects, principal.person_id
        seen: list[str] = []
        cursor = None
        for _ in range(2):
            plain = await records.records_page(
                conn, "contacts", readable, person, after=cursor, limit=5
            )
            # A filter every record passes sends the filtered statement.
            filtered = await records.records_page(
                conn, "contacts", readable, person, after=cursor, limit=5, values_contain={}
            )
            assert plain == filtered
            seen += [row.label for row in plain]
            cursor = plain[-1].id if plain else None
    # The member made them all (its private ones too); the others do not see those.
    mine = [f"Person {i}" for i in range(10)]
    others = [f"Person {i}" for i in range(12) if i % 3][:10]
    assert seen == (mine if role == "member" else others)
