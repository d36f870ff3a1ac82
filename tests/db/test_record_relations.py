"""A record's readable relations (migration 0041): record_relations, inlined per page row, gives
each role what readable_relations (migration 0003, still in the schema) gave, and never a
related record the caller may not read (private and not shared, or in the trash)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from db import records
from db.pool import begin_workspace
from resolvers.common import ids
from resolvers.common.principals import principal_for_token
from tests.factories import load_records

OLD = "SELECT record_id, relations FROM readable_relations($1::uuid[], $2, $3)"


async def made(pool, ws) -> dict[str, Any]:
    lines: list[dict[str, Any]] = [
        {"object": "companies", "external_id": "open", "label": "Open Co"},
        {
            "object": "companies",
            "external_id": "secret",
            "label": "Secret Co",
            "visibility": "private",
        },
        {"object": "companies", "external_id": "binned", "label": "Binned Co"},
    ]
    lines += [
        {
            "object": "contacts",
            "label": f"Person {i}",
            "relations": {"company": {"external_id": company}},
        }
        for i, company in enumerate(["open", "secret", "binned", "open"])
    ]
    lines.append({"object": "contacts", "label": "Person 4"})  # no relation at all
    found = await load_records(pool, ws.tokens["member"], lines)
    local = [ids.decode(gid, "Record", ws.id) for gid in found]
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await records.set_record_trashed(conn, local[2], datetime.now(UTC))
    return {"contacts": local[3:], "companies": local[:3]}


@pytest.mark.parametrize("role", ["member", "viewer", "admin"])
async def test_relations_are_those_of_readable_relations(pool, ws, role):
    rows = await made(pool, ws)
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens[role])
        assert principal is not None
        readable, person = principal.readable_objects, principal.person_id
        page = await records.records_page(conn, "contacts", readable, person, after=None, limit=9)
        by_ids = await records.records_by_ids(conn, rows["contacts"], readable, person)
        old = {
            row["record_id"]: row["relations"]
            for row in await conn.fetch(OLD, rows["contacts"], readable, person)
        }
    assert [row.label for row in page] == [f"Person {i}" for i in range(5)]
    assert {row.id: row.relations for row in by_ids} == {row.id: row.relations for row in page}
    for row in page:
        assert row.relations is not None
        got = [(attribute, related.item) for attribute, related in row.relations]
        assert got == [(item["attribute"], item) for item in old.get(row.id, [])]
    shown = {row.label: [related.label for _, related in row.relations or []] for row in page}
    secret = ["Secret Co"] if role == "member" else []  # private to the member, shared with none
    assert shown == {
        "Person 0": ["Open Co"],
        "Person 1": secret,
        "Person 2": [],  # in the trash: read by no one
        "Person 3": ["Open Co"],
        "Person 4": [],
    }
    related = page[0].relations[0][1] if page[0].relations else None
    assert related is not None and related.id == rows["companies"][0]
    assert str(related.id) == related.item["id"]  # json gives a uuid as its canonical text
    assert related.object == "companies" and related.owner_member_id is None
    assert related.created_at.tzinfo is not None


async def test_the_relations_are_read_inlined(pool, ws):
    # No function scan of record_relations: its body (record_links and their records, by key)
    # is planned into the page's statement and into records_by_ids.
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        page = await conn.fetchval(
            "EXPLAIN (FORMAT JSON) SELECT * FROM records_page_rows("
            "'contacts', '{}'::uuid[], NULL, NULL, 21, NULL, NULL, NULL, NULL)"
        )
        by_ids = await conn.fetchval(
            "EXPLAIN (FORMAT JSON) " + records.Q["records_by_ids"].rstrip().rstrip(";"),
            [ws.id],
            [],
            None,
        )
    for plan in (str(page), str(by_ids)):
        assert "record_relations" not in plan and "Function Scan" not in plan, plan
        assert "record_links" in plan
