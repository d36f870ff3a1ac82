"""The Monday removal benchmark's data (bench/dreamer_removal.py): the bench workspace (or the
same generator scaled down), a copy of it per round, and in the copy the souvenirs made
removable for the removal to find."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import generate
from bench.dreamer_data import remake
from db.pool import begin_workspace, connect

# The bench workspace's pages (bench/generate.py MEMORY_PAGES) and what a scaled one is named.
BENCH_PAGES = sum(generate.MEMORY_PAGES.values())
SMALL_DATABASE = "skillmem_bench_removal_data"
RUN_DATABASE = "skillmem_bench_removal_run"
# The generated data is dated up to its "now", Monday 2026-06-01: the removal runs then, five
# minutes past midnight (the cron's first hour), and again a week later.
MONDAY = datetime(2026, 6, 1, 0, 5, tzinfo=UTC)
NEXT_MONDAY = MONDAY + timedelta(days=7)
# Per 1,000 souvenirs of the record pages, made removable (or kept) by the setup: ended the day
# before; ending during the week after (the next Monday's); from a record that no longer
# exists; written by a person (✍: kept whatever they say).
ENDED, ENDING, GONE, HUMAN = 50, 20, 50, 50
# Member profiles added per 1,000 record pages, each of PROFILE_LINES souvenirs from random
# deals: those of a deal private to someone else are closed to the member.
PROFILES_PER_1000 = 20
PROFILE_LINES = 6


@contextlib.contextmanager
def scaled(pages: int) -> Iterator[None]:
    """bench/generate.py's sizes scaled to ``pages`` record pages (one fifth on companies, the
    rest on contacts, like the bench workspace's), restored afterwards."""
    saved = {
        name: getattr(generate, name)
        for name in ("RECORDS_PER_OBJECT", "MEMBERS", "ROLE_COUNTS", "MEMORY_PAGES")
    }
    factor = pages / BENCH_PAGES
    try:
        generate.RECORDS_PER_OBJECT = {
            slug: max(10, round(count * factor))
            for slug, count in saved["RECORDS_PER_OBJECT"].items()
        }
        generate.MEMBERS = max(20, round(saved["MEMBERS"] * factor))
        generate.ROLE_COUNTS = {
            role: max(1, round(count * factor)) for role, count in saved["ROLE_COUNTS"].items()
        }
        companies = max(5, pages // 5)
        generate.MEMORY_PAGES = {"companies": companies, "contacts": pages - companies}
        generate.RECORDS_PER_OBJECT["companies"] = max(
            generate.RECORDS_PER_OBJECT["companies"], companies
        )
        generate.RECORDS_PER_OBJECT["contacts"] = max(
            generate.RECORDS_PER_OBJECT["contacts"], pages - companies
        )
        yield
    finally:
        for name, value in saved.items():
            setattr(generate, name, value)


async def prepared(server: str, pages: int) -> tuple[str, dict[str, int]]:
    """The database holding the workspace to copy: the bench workspace itself for its own
    size (found, or generated as `make bench-data` does), else the generator scaled to
    ``pages`` in a database of its own; its name and row counts."""
    if pages == BENCH_PAGES:
        data = await generate.ensure(server)
        return generate.DATABASE, data.counts
    with scaled(pages):
        data = await generate.ensure(server, SMALL_DATABASE)
    return SMALL_DATABASE, data.counts


# Run in the copy, in the bench workspace (row-level security on): every statement one pass
# over the workspace's rows, so that the setup stays fast at full size.
_REMOVABLE = (
    # Ended the day before Monday; ending during the following week (an end never before the
    # line's day: the grammar refuses one).
    """UPDATE memory_lines SET until = $1::date - 1
        WHERE workspace_id = app_workspace_id() AND kind = 'souvenir' AND day < $1::date
          AND abs(hashtext(key)) % 1000 < $2""",
    """UPDATE memory_lines SET until = $1::date + 3
        WHERE workspace_id = app_workspace_id() AND kind = 'souvenir' AND day <= $1::date + 3
          AND abs(hashtext(key)) % 1000 >= $2 AND abs(hashtext(key)) % 1000 < $2 + $3""",
    # From a record that no longer exists; written by a person.
    """UPDATE memory_lines SET source_kind = 'record', source_id = gen_random_uuid()
        WHERE workspace_id = app_workspace_id() AND kind = 'souvenir'
          AND abs(hashtext(key || 'gone')) % 1000 < $1""",
    """UPDATE memory_lines SET human = true, source_kind = NULL, source_id = NULL
        WHERE workspace_id = app_workspace_id() AND kind = 'souvenir'
          AND abs(hashtext(key || 'human')) % 1000 < $1""",
)

_PROFILES = """
WITH chosen AS MATERIALIZED (
    SELECT m.id, m.name, md5(m.id::text || 'profile')::uuid AS page_id FROM members m
     WHERE m.workspace_id = app_workspace_id()
       AND NOT EXISTS (SELECT 1 FROM memory_pages p
                        WHERE p.workspace_id = m.workspace_id AND p.member_id = m.id)
     ORDER BY m.id
     LIMIT $1
),
made AS (
    INSERT INTO records (workspace_id, id, object_id, label, visibility, created_at, updated_at)
    SELECT app_workspace_id(), c.page_id,
           (SELECT o.id FROM objects o
             WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'),
           c.name, 'memory', $2, $2
      FROM chosen c
)
INSERT INTO memory_pages (workspace_id, id, about_kind, member_id, version, created_at,
                          updated_at)
SELECT app_workspace_id(), c.page_id, 'member', c.id, 0, $2, $2
  FROM chosen c
RETURNING id
"""

_PROFILE_LINES = """
WITH deals AS (
    SELECT array_agg(r.id ORDER BY r.id) AS ids FROM records r
      JOIN objects o ON o.workspace_id = r.workspace_id AND o.id = r.object_id
     WHERE r.workspace_id = app_workspace_id() AND o.slug = 'deals'
)
INSERT INTO memory_lines (workspace_id, page_id, position, kind, key, text, type, author, day,
                          source_kind, source_id)
SELECT app_workspace_id(), p.id, n - 1, 'souvenir', 's' || substr(md5(p.id::text || n), 1, 16),
       'Follows this deal closely (' || n || ')', 'relation', 'Bench', $2::date - n,
       'record', deals.ids[1 + abs(hashtext(p.id::text || n)) % cardinality(deals.ids)]
  FROM unnest($1::uuid[]) AS p(id)
 CROSS JOIN generate_series(1, $3) AS n
 CROSS JOIN deals
"""


async def copy_with_removables(
    server: str, template: str, workspace_record_pages: int
) -> dict[str, Any]:
    """A fresh copy of ``template`` (RUN_DATABASE) in which souvenirs are made removable and
    member profiles added; its DSN and how many profiles."""
    dsn = await remake(server, RUN_DATABASE, template)
    conn = await connect(dsn)
    try:
        async with conn.transaction():
            await begin_workspace(conn, generate.WORKSPACE_ID)
            await conn.execute(_REMOVABLE[0], MONDAY.date(), ENDED)
            await conn.execute(_REMOVABLE[1], MONDAY.date(), ENDED, ENDING)
            await conn.execute(_REMOVABLE[2], GONE)
            await conn.execute(_REMOVABLE[3], HUMAN)
            wanted = max(1, workspace_record_pages * PROFILES_PER_1000 // 1000)
            rows = await conn.fetch(_PROFILES, wanted, MONDAY - timedelta(days=30))
            profiles = [row["id"] for row in rows]
            await conn.execute(_PROFILE_LINES, profiles, MONDAY.date(), PROFILE_LINES)
        await conn.execute("ANALYZE")
        lines = await _count_lines(conn)
    finally:
        await conn.close()
    return {"dsn": dsn, "profiles": len(profiles), "lines": lines}


async def _count_lines(conn: Any) -> int:
    async with conn.transaction():
        await begin_workspace(conn, generate.WORKSPACE_ID)
        found: int = await conn.fetchval(
            "SELECT count(*) FROM memory_lines WHERE kind = 'souvenir'"
        )
    return found
