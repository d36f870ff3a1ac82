"""A search of memory and skills in one statement (db/search.py, search_memory_and_skills): the
same rows, in the same order, as search_memory and search_skills sent one after the other."""

from __future__ import annotations

import asyncpg
import pytest

from db import search as search_db
from db.pool import begin_workspace
from tests.factories import Workspace
from tests.search.test_search import company_page, create_skill, skill_body, souvenir


async def both_ways(pool: asyncpg.Pool, ws: Workspace, q: str, first: int) -> tuple[object, ...]:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        readable = await conn.fetchval("SELECT array_agg(id) FROM objects")
        together = await search_db.search_memory_and_skills(conn, q, readable, None, first)
        memory = await search_db.search_memory(conn, q, readable, None, first)
        skills = await search_db.search_skills(conn, q, readable, None, first)
    return together, (memory, skills)


@pytest.mark.parametrize(
    ("q", "memory", "skills"),
    [("harbour", 5, 3), ("quay", 2, 0), ("lighthouse", 0, 2), ("nowhere", 0, 0), ("har", 5, 3)],
)
async def test_one_statement_answers_what_the_two_do(client, pool, ws, q, memory, skills):
    # Ties: the same souvenir on several pages, skills whose text ranks them alike.
    for index in range(4):
        await company_page(pool, ws, f"Port {index}", [souvenir("harbour visit")])
    await company_page(pool, ws, "Quay", [souvenir("harbour quay"), souvenir("quay again")])
    await company_page(pool, ws, "Quay two", [souvenir("a quay")])
    token = ws.tokens["member"]
    await create_skill(client, token, "harbour-route", "Plan a harbour route.")
    for name in ("lighthouse-a", "lighthouse-b"):
        await create_skill(
            client, token, name, "Harbour lights.", skill_body("Before", "lighthouse")
        )
    for first in (2, 20):
        together, apart = await both_ways(pool, ws, q, first)
        assert together == apart, (q, first)
    found_memory, found_skills = together
    assert (len(found_memory), len(found_skills)) == (min(memory, 20), skills)
