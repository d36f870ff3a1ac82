"""What reading the workspace's memory store costs (issue 14, item 4, from a review): the
same statements whatever the number of pages in the workspace, and the lines of the pages
answered only."""

from __future__ import annotations

import pytest

from db import memory_stores
from db.pool import begin_workspace
from gateway.anthropic import memory_models as m
from gateway.anthropic.transport import public_id
from resolvers.common.principals import principal_for_token
from resolvers.stores.workspace import WORKSPACE_STORE_ID
from tests.factories import bearer, load_records, local, make_page, split

LINE = "- {} — Claire, 2026-10-02 [relation]"
# The calls of the function that renders a page's lines this backend counted (not flushed yet).
CALLS = (
    "SELECT COALESCE(sum(calls), 0) FROM pg_stat_xact_user_functions"
    " WHERE funcname = 'memory_lines_shown'"
)


async def _sent(counted, token: str, path: str) -> tuple[dict, list[str]]:
    client, statements = counted
    await client.get(path, headers=bearer(token))  # warms the connection's type cache
    statements.clear()
    response = await client.get(path, headers=bearer(token))
    assert response.status_code == 200, response.text
    return response.json(), split(statements)[1]


@pytest.mark.parametrize("count", [2, 40])
async def test_a_workspace_store_read_costs_the_same_whatever_the_pages(counted, pool, ws, count):
    made = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "label": f"Co {i:02}"} for i in range(count)],
    )
    pages = [
        await make_page(pool, ws, "record", local(ws, co), LINE.format(i), name=f"Co {i:02}")
        for i, co in enumerate(made)
    ]
    store = f"/v1/memory_stores/{public_id(*m.STORE, ws.id, WORKSPACE_STORE_ID)}"
    token = ws.tokens["member"]
    listed, sent = await _sent(counted, token, f"{store}/memories?limit=2&view=full")
    assert [e["path"] for e in listed["data"]] == [
        "/records/companies/Co 00.md",
        "/records/companies/Co 01.md",
    ]
    # The token; the memory object and the workspace (the store); its page of entries.
    assert len(sent) == 4, sent
    memory_id = public_id(*m.MEMORY, ws.id, local(ws, pages[-1], "MemoryPage"))
    one, sent = await _sent(counted, token, f"{store}/memories/{memory_id}")
    assert one["path"] == f"/records/companies/Co {count - 1:02}.md"
    assert len(sent) == 4, sent
    version, sent = await _sent(
        counted, token, f"{store}/memory_versions/{one['memory_version_id']}"
    )
    assert version["content"] == one["content"]
    # The token, the store, the version, its memory.
    assert len(sent) == 5, sent


async def _rendered(pool, ws, **asked) -> tuple[list[str], int]:
    """The keys the store's query answers to the member, and how many pages' lines it rendered
    (the function calls PostgreSQL counts in the transaction)."""
    readable, person = await _member_reads(pool, ws)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL track_functions = 'all'")
        await begin_workspace(conn, ws.id)
        before = await conn.fetchval(CALLS)
        found = await memory_stores.workspace_entries(conn, readable, person, **asked)
        calls = await conn.fetchval(CALLS) - before
    return [e.key for e in found], calls


async def _member_reads(pool, ws) -> tuple[list, object]:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        principal = await principal_for_token(conn, ws.tokens["member"])
    return principal.readable_objects, principal.person_id


async def test_only_the_pages_answered_are_rendered(pool, ws):
    made = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "label": f"Co {i:02}"} for i in range(12)],
    )
    pages = [
        await make_page(pool, ws, "record", local(ws, co), LINE.format(i), name=f"Co {i:02}")
        for i, co in enumerate(made)
    ]
    keys, calls = await _rendered(pool, ws, limit=3)
    assert len(keys) == 3 and calls == 3
    keys, calls = await _rendered(pool, ws, depth=1, limit=10)
    assert keys == ["/records/"] and calls == 0  # a roll-up renders nothing
    keys, calls = await _rendered(pool, ws, page_id=local(ws, pages[5], "MemoryPage"))
    assert keys == ["/records/companies/Co 05.md"] and calls == 1
