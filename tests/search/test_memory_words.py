"""The workspace's souvenir words (migration 0040): counted by the lines holding them as lines
are inserted, updated, deleted and truncated, per workspace under row-level security; the last
word's prefix of a query replaced by the known words it stands for (none, one, up to 32; more:
the prefix as before); the search's matches, ranks and order the same as through the prefix;
and the match run without Memoize (migration 0042).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import asyncpg
import pytest

from db import search as search_db
from db.pool import begin_workspace
from tests.factories import Workspace, make_page
from tests.search.test_search import company_page


@pytest.fixture
async def owner(dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A plain connection as the login role (the tables' owner; it bypasses RLS)."""
    conn = await asyncpg.connect(dsn)
    yield conn
    await conn.close()


MATCHES = "SELECT * FROM memory_line_matches(search_query($1), $2, NULL, $3)"


def souvenir(text: str) -> str:
    return f"- {text} — Claire, 2026-10-02 [relation]"


async def counted(owner: asyncpg.Connection, workspace: UUID) -> dict[str, int]:
    """The words memory_words knows in a workspace, with their lines (slots summed)."""
    rows = await owner.fetch(
        "SELECT word, sum(lines)::int AS lines FROM memory_words WHERE workspace_id = $1"
        " GROUP BY word HAVING sum(lines) > 0",
        workspace,
    )
    return {row["word"]: row["lines"] for row in rows}


async def truth(owner: asyncpg.Connection, workspace: UUID) -> dict[str, int]:
    """The words of a workspace's souvenir lines, each with the lines holding it."""
    rows = await owner.fetch(
        "SELECT u.lexeme AS word, count(*)::int AS lines"
        " FROM memory_lines l, unnest(l.search_vector) u"
        " WHERE l.workspace_id = $1 AND l.kind = 'souvenir' GROUP BY u.lexeme",
        workspace,
    )
    return {row["word"]: row["lines"] for row in rows}


async def as_workspace(pool: asyncpg.Pool, ws: Workspace, sql: str, *args: Any) -> Any:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        return await conn.fetch(sql, *args)


async def pages(pool: asyncpg.Pool, ws: Workspace, name: str, lines: list[str]) -> None:
    """Company pages holding the souvenirs, six a page."""
    for index in range(0, len(lines), 6):
        await company_page(
            pool, ws, f"{name} {index}", [souvenir(t) for t in lines[index : index + 6]]
        )


async def expanded(pool: asyncpg.Pool, ws: Workspace, q: str) -> str:
    rows = await as_workspace(pool, ws, "SELECT memory_words_match(search_query($1))::text", q)
    return str(rows[0][0])


async def test_words_are_counted_as_lines_are_inserted_updated_and_deleted(pool, owner, ws, ws2):
    await make_page(
        pool, ws, "workspace", None, "\n".join(souvenir(t) for t in ("alpha beta", "alpha gamma"))
    )
    await make_page(pool, ws2, "workspace", None, souvenir("alpha omega"))
    words = await counted(owner, ws.id)
    assert {w: words[w] for w in ("alpha", "beta", "gamma")} == {"alpha": 2, "beta": 1, "gamma": 1}
    assert "omega" not in words
    assert (await counted(owner, ws2.id))["alpha"] == 1
    await as_workspace(
        pool, ws, "UPDATE memory_lines SET text = 'alpha delta' WHERE text = 'alpha beta'"
    )
    words = await counted(owner, ws.id)
    assert "beta" not in words and words["delta"] == 1 and words["alpha"] == 2
    # An update that changes no word (its position) changes no count.
    before = await owner.fetch("SELECT * FROM memory_words ORDER BY 1, 2, 3")
    await as_workspace(pool, ws, "UPDATE memory_lines SET day = day WHERE kind = 'souvenir'")
    assert await owner.fetch("SELECT * FROM memory_words ORDER BY 1, 2, 3") == before
    await as_workspace(pool, ws, "DELETE FROM memory_lines WHERE text = 'alpha gamma'")
    words = await counted(owner, ws.id)
    assert "gamma" not in words and words["alpha"] == 1
    for workspace in (ws.id, ws2.id):
        assert await counted(owner, workspace) == await truth(owner, workspace)
    # Rows left at zero are kept, never below.
    assert (
        await owner.fetchval(
            "SELECT sum(lines) FROM memory_words WHERE workspace_id = $1 AND word = 'beta'", ws.id
        )
        == 0
    )


async def test_a_truncate_of_the_lines_empties_the_words(pool, owner, ws):
    await make_page(pool, ws, "workspace", None, souvenir("truncated words"))
    tx = owner.transaction()
    await tx.start()
    try:
        await owner.execute("TRUNCATE memory_lines")
        assert await owner.fetchval("SELECT count(*) FROM memory_words") == 0
    finally:
        await tx.rollback()
    assert (await counted(owner, ws.id))["truncated"] == 1


async def test_the_words_of_another_workspace_are_neither_seen_nor_written(pool, ws, ws2):
    await make_page(pool, ws, "workspace", None, souvenir("ours alone"))
    await make_page(pool, ws2, "workspace", None, souvenir("theirs alone"))
    seen = await as_workspace(pool, ws, "SELECT DISTINCT workspace_id, word FROM memory_words")
    assert {row["workspace_id"] for row in seen} == {ws.id}
    assert "theirs" not in {row["word"] for row in seen}
    # Their word is not ours to expand: the prefix stays a prefix.
    assert await expanded(pool, ws, "thei") == "'thei':*"
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await as_workspace(
            pool,
            ws,
            "INSERT INTO memory_words (workspace_id, word, slot, lines) VALUES ($1, 'x', 0, 1)",
            ws2.id,
        )
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await as_workspace(pool, ws, "DELETE FROM memory_words")


async def test_the_last_prefix_becomes_the_known_words_it_stands_for(pool, ws):
    many = [f"zqa{i:02d}x" for i in range(33)]
    lines = ["chloe dubois", "dubois duboise", "renewal", *(f"word {w}" for w in many)]
    await pages(pool, ws, "Words", lines)
    # None: no prefix (a word of two letters), or no known word under it.
    assert await expanded(pool, ws, "chloe du") == "'chloe' & 'du'"
    assert await expanded(pool, ws, "chloe dux") == "'chloe' & 'dux':*"
    # One, and two.
    assert await expanded(pool, ws, "Chloé Duboise") == "'chloe' & 'duboise'"
    assert await expanded(pool, ws, "Chloé Dubois") == "'chloe' & ( 'dubois' | 'duboise' )"
    assert await expanded(pool, ws, "renew") == "'renewal'"
    # 32 of them, and 33: the prefix as before.
    assert await expanded(pool, ws, "zqa0") == " | ".join(f"'{w}'" for w in many[:10])
    thirty_two = await as_workspace(
        pool, ws, "DELETE FROM memory_lines WHERE text = $1 RETURNING key", f"word {many[-1]}"
    )
    assert len(thirty_two) == 1
    assert await expanded(pool, ws, "zqa") == " | ".join(f"'{w}'" for w in many[:32])
    await company_page(pool, ws, "More", [souvenir(f"word {many[-1]}")])
    assert await expanded(pool, ws, "zqa") == "'zqa':*"


async def matches(pool: asyncpg.Pool, ws: Workspace, q: str, limit: int) -> list[tuple[Any, ...]]:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        readable = await conn.fetchval("SELECT array_agg(id) FROM objects")
        rows = await conn.fetch(MATCHES, q, readable, limit)
        memory = await search_db.search_memory(conn, q, readable, None, 20)
        recalled = await search_db.recall_memory(conn, q, readable, None, 20)
    found = sorted((r["page_id"], r["position"], r["rank"]) for r in rows)
    return [*found, *memory, *recalled]


@pytest.mark.parametrize("q", ["Chloé Dubois", "dubo", "Chloé dubo", "renew", "zqa", "zqa0"])
async def test_matches_ranks_and_order_are_those_of_the_prefix(pool, owner, ws, q):
    many = [f"zqa{i:02d}x dubois" for i in range(40)]
    lines = ["chloe dubois", "chloé duboise dubois", "dubois duboise", "renewal dubois", *many]
    await pages(pool, ws, "Matches", lines)
    for limit in (2000, 3):
        through_words = await matches(pool, ws, q, limit)
        assert through_words
        # The same search with no word known: the prefix, as before migration 0040.
        saved = await owner.fetch(
            "DELETE FROM memory_words WHERE workspace_id = $1 RETURNING *", ws.id
        )
        try:
            assert await expanded(pool, ws, q) == str(
                await owner.fetchval("SELECT search_query($1)::text", q)
            )
            assert await matches(pool, ws, q, limit) == through_words
        finally:
            await owner.executemany(
                "INSERT INTO memory_words VALUES ($1, $2, $3, $4)", [tuple(r) for r in saved]
            )


async def test_the_match_runs_without_memoize_and_leaves_the_session_setting(pool, owner, ws):
    # Migration 0042: each matching page is looked up once, so Memoize only misses.
    config = await owner.fetchval(
        "SELECT proconfig FROM pg_proc WHERE proname = 'memory_line_matches'"
    )
    assert sorted(config) == ["enable_memoize=off", "search_path=public, pg_temp"]
    await pages(pool, ws, "Memo", ["chloe dubois", "dubois"])
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        readable = await conn.fetchval("SELECT array_agg(id) FROM objects")
        assert len(await conn.fetch(MATCHES, "dubois", readable, 20)) == 2
        assert await conn.fetchval("SHOW enable_memoize") == "on"
