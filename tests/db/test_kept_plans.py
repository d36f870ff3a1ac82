"""The statements planned once per session (issue 17, item 1; migration 0035): a turn's read and
an unfiltered records page run inside functions that keep a generic plan, and the unfiltered
page answers exactly what the filtered statement answers with no filter; a turn's read runs the
rules it calls inside its own plan (migration 0043)."""

from __future__ import annotations

import pytest

from db import records, turns
from resolvers.common.principals import principal_for_token
from tests.factories import company, load_records, local, make_page

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


# The rules a turn's read calls (migration 0043), each a SQL function reading tables: called in
# an expression, one runs as a query of its own every time; inlined, it is not called at all.
RULES = (
    "memory_lines_shown_rows",
    "memory_lines_shown_list",
    "agent_memory_on",
    "agent_memory_on_row",
    "object_carries_pages",
    "object_carries_pages_row",
    "line_source_open",
    "record_readable",
)


async def test_a_turns_read_calls_no_rule_as_a_function_of_its_own(pool, ws):
    acme = await company(pool, ws, "Acme")
    beta = await company(pool, ws, "Beta")
    source = f" → record:{beta}"
    await make_page(
        pool, ws, "record", local(ws, acme), f"- Pays late{source} — Claire, 2026-10-02 [relation]"
    )
    await make_page(
        pool,
        ws,
        "member",
        ws.members["member"],
        f"- @[Beta](record:{beta}) Renewal in May — Member, 2026-10-03 [relation]",
        name="Member",
    )
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL track_functions = 'all'")
        principal = await principal_for_token(conn, ws.tokens["member"])
        assert principal is not None
        read = await turns.turn_read(
            conn,
            [local(ws, acme)],
            principal.readable_objects,
            principal.person_id,
            (3, 8, 5),
            None,
            cards=True,
            profiles=True,
        )
        calls = dict(await conn.fetch("SELECT funcname, calls FROM pg_stat_xact_user_functions"))
    # The turn read what it reads through those rules: the page's souvenir and its open
    # source, the profile's record as a card of its own.
    assert [card.label for card in read.cards] == ["Acme", "Beta"]
    [line] = read.cards[0].page_lines
    assert line.source_open and line.source_object == "Company"
    assert calls["turn_read"] == 1
    assert {name: calls[name] for name in RULES if name in calls} == {}
