"""The search benchmark: the memory search of migration 0006 against today's, in the same run, on
the bench workspace (bench/generate.py: 50,000 record pages, 275,350 souvenirs).

`python -m bench.search` (or `make bench-search`) finds or generates the bench data, then:

1. installs the search as it stood before issue 17 under other names in the bench database
   (`bench_memory_line_matches_0006`, the function of migration 0006, and the `search_memory`
   statement that called it), and the function of migration 0038 with the statement that called
   it (`0038`: `bench_memory_line_matches_0038`, before migration 0040's word list and narrow
   matches), so all run against the same rows in the same server;
2. checks that both answer the same rows when fewer than 2,000 souvenirs match (past 2,500,
   the search now ranks the first readable matches in the index's order, not the best of all:
   checked best first, and the hits and pages of each reported), and that 0038 and today's
   answer the same rows for every query;
3. measures each query, before, 0038 and after, in alternating slices at concurrency 1, as the app
   sends a search of memory and skills for a cached principal (`BEGIN READ ONLY` with its
   `app_begin_cached` prelude in one round trip; then `search_memory` and `search_skills`, or
   for today's, the one statement of both, `search_memory_and_skills`; COMMIT; before the
   afternoon of 2026-12-03 this bench sent BEGIN and `begin_request`, the path of a principal
   cache's miss, and today's two statements) on one connection: the whole request, and the
   memory statement alone (today's: the statement of both);
4. prints EXPLAIN (ANALYZE, BUFFERS) of the matching functions' bodies for each query.

The queries: a person's name (an ordinary search, a few hundred souvenirs) and `renewal`, a word
of one souvenir in ten (27,000 souvenirs).

It prints Markdown tables and writes the figures to bench/results/search-<time>.json.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncpg

from bench import records
from bench.generate import ensure
from db import identity
from db import search as search_db
from db.begin import begun
from db.migrate import MIGRATIONS_DIR
from db.pool import api_dsn, create_pool
from db.principal_cache import prelude
from db.sql import queries
from resolvers.common.principals import Principal
from resolvers.search.search import query_text

QUERIES = {"ordinary": "Chloé Dubois", "common": "renewal"}
FIRST = 20
BEFORE_FUNCTION = "bench_memory_line_matches_0006"
# The function of migration 0038 (each page looked up once, whole lines as matches) under its
# bench name, called by the search_memory statement of its time.
PREVIOUS_FUNCTION = "bench_memory_line_matches_0038"
# The search_memory statement as it stood before issue 17 (db/queries/search.sql at d9d3e90),
# calling the function of migration 0006 under its bench name.
BEFORE_SEARCH_MEMORY = """
WITH matches AS (
    SELECT * FROM bench_memory_line_matches_0006(search_query($1), $2, $3, $5)
     WHERE agent_memory_on($6::uuid)
),
hits AS (
    SELECT DISTINCT ON (l.page_id) l.page_id, l.key, l.text, l.type, l.day, l.rank
      FROM matches l
     ORDER BY l.page_id, l.rank DESC, l.position
)
SELECT h.page_id, mr.label AS name, p.about_kind, p.subject_id, h.key, h.text, h.type, h.day,
       h.rank, count(*) OVER () AS total, (SELECT count(*) FROM matches) AS matched
  FROM hits h
  JOIN memory_pages p ON p.workspace_id = app_workspace_id() AND p.id = h.page_id
  JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
 ORDER BY h.rank DESC, h.page_id
 LIMIT $4"""
SEARCH_SKILLS = queries("search")["search_skills"]
# The search_memory statement of migration 0038's time (db/queries/search.sql before 0040).
PREVIOUS_SEARCH_MEMORY = """
WITH matches AS (
    SELECT * FROM bench_memory_line_matches_0038(search_query($1), $2, $3, $5)
     WHERE agent_memory_on($6::uuid)
),
hits AS (
    SELECT DISTINCT ON (l.page_id) l.page_id, l.key, l.text, l.type, l.day, l.rank
      FROM matches l
     ORDER BY l.page_id, l.rank DESC, l.position
),
best AS (
    SELECT h.*, count(*) OVER () AS total
      FROM hits h
     ORDER BY h.rank DESC, h.page_id
     LIMIT $4
)
SELECT h.page_id, mr.label AS name, p.about_kind, p.subject_id, h.key, h.text, h.type, h.day,
       h.rank, h.total, (SELECT count(*) FROM matches) AS matched
  FROM best h
  JOIN memory_pages p ON p.workspace_id = app_workspace_id() AND p.id = h.page_id
  JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
 ORDER BY h.rank DESC, h.page_id"""
# What each variant sends after its BEGIN: its search_memory statement then search_skills, or
# today's one statement of both (db/search.py, search_memory_and_skills).
VARIANTS = {
    "before": (BEFORE_SEARCH_MEMORY, SEARCH_SKILLS),
    "0038": (PREVIOUS_SEARCH_MEMORY, SEARCH_SKILLS),
    "after": (search_db.MEMORY_AND_SKILLS,),
}
MEMORY_COLUMNS = tuple(search_db.MemoryHit.__dataclass_fields__)
# The migration that defines today's memory_line_matches.
CURRENT_MIGRATION = "0040"
_FUNCTION = re.compile(
    r"CREATE (?:OR REPLACE )?FUNCTION memory_line_matches\(.*?\n\$\$;", re.DOTALL
)


def function_text(migration: str) -> str:
    """The CREATE FUNCTION memory_line_matches statement of a migration file."""
    path = next(MIGRATIONS_DIR.glob(f"{migration}_*.sql"))
    found = _FUNCTION.search(path.read_text())
    assert found is not None, path
    return found.group(0)


def body_of(create: str) -> str:
    """A function's SQL body, its parameters as statement parameters (for EXPLAIN)."""
    body = create.split("AS $$", 1)[1].rsplit("$$;", 1)[0]
    for name, param in (
        ("p_query", "search_query($1::text)"),
        ("p_readable", "$2::uuid[]"),
        ("p_person", "$3::uuid"),
        ("p_limit", "$4::integer"),
    ):
        body = re.sub(rf"\b{name}\b", param, body)
    return body


async def install_before(conn: asyncpg.Connection) -> None:
    """The functions of migrations 0006 and 0038 under their bench names (as the migrations'
    owner)."""
    for migration, name in (("0006", BEFORE_FUNCTION), ("0038", PREVIOUS_FUNCTION)):
        create = function_text(migration).replace("CREATE OR REPLACE FUNCTION", "CREATE FUNCTION")
        create = create.replace("FUNCTION memory_line_matches(", f"OR REPLACE FUNCTION {name}(", 1)
        await conn.execute(create)
        await conn.execute(
            f"GRANT EXECUTE ON FUNCTION {name}(tsquery, uuid[], uuid, integer) TO skillmem_app"
        )


@dataclass(frozen=True, slots=True)
class Caller:
    """The bench token's principal and the prelude a cached principal's request sends with its
    BEGIN (gateway/http/transaction.py, db/principal_cache.py)."""

    principal: Principal
    prelude: str


async def resolve(conn: asyncpg.Connection, token_hash: str) -> Caller:
    """The bench token resolved once, as the app does on a principal cache's miss."""
    async with conn.transaction():
        found = await identity.begin_request_generation(conn, token_hash)
    assert found is not None and found[1] is not None, "the bench token is not live"
    row, generation = found
    return Caller(Principal(row), prelude(row.workspace_id, row.token_id, generation))


async def search_once(
    conn: asyncpg.Connection, caller: Caller, statements: tuple[str, ...], q: str
) -> tuple[float, float, list[dict[str, Any]]]:
    """One search of memory and skills as the app sends it for a cached principal (`BEGIN READ
    ONLY` with its prelude, the variant's statements, COMMIT): (request seconds, seconds of the
    memory statement (today's: of both), its memory rows)."""
    started = time.perf_counter()
    transaction = begun(conn, caller.prelude, readonly=True)
    async with transaction:
        assert not transaction.stale, "the bench token's principal changed"
        text = query_text(q)
        principal = caller.principal
        readable, person = principal.readable_objects, principal.person_id
        memory_sql, *skills_sql = statements
        # search_memory's parameters; the statement of both takes the skills' agent after them.
        given = [text, readable, person, FIRST, search_db.MEMORY_CANDIDATES, None]
        statement = time.perf_counter()
        found = await conn.fetch(memory_sql, *given, *([] if skills_sql else [None]))
        memory_seconds = time.perf_counter() - statement
        for sql in skills_sql:
            await conn.fetch(sql, text, readable, person, FIRST, None)
    rows = [
        {name: row[name] for name in MEMORY_COLUMNS}
        for row in found
        if skills_sql or row["object"] == "memory"
    ]
    return time.perf_counter() - started, memory_seconds, rows


def percentiles(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000, 2)

    return {"n": len(ordered), "p50_ms": at(0.50), "p99_ms": at(0.99), "max_ms": at(1.0)}


async def measure(
    conn: asyncpg.Connection, caller: Caller, q: str, args: argparse.Namespace
) -> dict[str, Any]:
    """Before and after for one query, in alternating slices after a warm-up of each."""
    for statements in VARIANTS.values():
        deadline = time.perf_counter() + args.warmup
        while time.perf_counter() < deadline:
            await search_once(conn, caller, statements, q)
    requests: dict[str, list[float]] = {name: [] for name in VARIANTS}
    statements: dict[str, list[float]] = {name: [] for name in VARIANTS}
    names = list(VARIANTS)
    for index in range(args.slices):
        for name in names if index % 2 == 0 else names[::-1]:
            deadline = time.perf_counter() + args.seconds / args.slices
            while time.perf_counter() < deadline:
                whole, memory, _ = await search_once(conn, caller, VARIANTS[name], q)
                requests[name].append(whole)
                statements[name].append(memory)
    return {
        name: {
            "request": percentiles(requests[name]),
            "search_memory": percentiles(statements[name]),
        }
        for name in names
    }


async def same_rows(conn: asyncpg.Connection, caller: Caller, q: str) -> dict[str, Any]:
    """What each variant answers; both the same rows when at most 2,500 souvenirs match (past
    that, after ranks the first readable matches in the index's order: checked to be
    readable-only and best first, and compared by how many hits and pages)."""
    rows = {
        name: (await search_once(conn, caller, statements, q))[2]
        for name, statements in VARIANTS.items()
    }
    seen = {}
    for name, found in rows.items():
        first = found[0] if found else {}
        seen[name] = {
            "hits": len(found),
            "total": first.get("total"),
            "matched": first.get("matched"),
        }
    ranks = [r["rank"] for r in rows["after"]]
    assert ranks == sorted(ranks, reverse=True), q
    if seen["before"]["matched"] < search_db.MEMORY_CANDIDATES and rows["before"] != rows["after"]:
        raise AssertionError(f"before and after differ for {q!r}")
    if rows["0038"] != rows["after"]:
        raise AssertionError(f"0038 and after differ for {q!r}")
    seen["same_rows"] = rows["before"] == rows["after"]
    return seen


async def explain(conn: asyncpg.Connection, token_hash: str, q: str) -> dict[str, str]:
    """EXPLAIN (ANALYZE, BUFFERS) of each matching function's body, run as its owner."""
    plans = {}
    for name, migration in (("before", "0006"), ("0038", "0038"), ("after", CURRENT_MIGRATION)):
        async with conn.transaction():
            row = await identity.begin_request(conn, token_hash)
            assert row is not None
            principal = Principal(row)
            await conn.execute("RESET ROLE")  # the functions run as their owner
            plan = await conn.fetch(
                "EXPLAIN (ANALYZE, BUFFERS) " + body_of(function_text(migration)),
                query_text(q),
                principal.readable_objects,
                principal.person_id,
                search_db.MEMORY_CANDIDATES,
            )
        plans[name] = "\n".join(r[0] for r in plan)
    return plans


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| query | matched souvenirs (capped at 2,000) | pages counted | variant "
        "| request p50 ms | p99 ms | memory statement p50 ms | p99 ms | requests |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for kind, row in report["queries"].items():
        for name in VARIANTS:
            seen = row["same_rows"][name]
            r, s = row["load"][name]["request"], row["load"][name]["search_memory"]
            lines.append(
                f"| {kind}: {QUERIES[kind]} | {seen['matched']} | {seen['total']} | {name} "
                f"| {r['p50_ms']} | {r['p99_ms']} | {s['p50_ms']} | {s['p99_ms']} | {r['n']} |"
            )
    return "\n".join(lines)


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    data = await ensure(server, fresh=args.fresh)
    verb = "generated" if data.generated else "reused"
    print(f"data: {verb} in {data.seconds:.1f} s: {data.counts}", flush=True)
    owner = await asyncpg.connect(data.dsn)
    try:
        await install_before(owner)
        server_version = str(await owner.fetchval("SHOW server_version"))
    finally:
        await owner.close()
    token_hash = hashlib.sha256(data.token.encode()).hexdigest()
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m bench.search " + " ".join(sys.argv[1:]),
        "machine": records.machine(server_version),
        "data": {"counts": data.counts, "generated": data.generated},
        "settings": {**vars(args), "queries": QUERIES, "first": FIRST},
        "queries": {},
    }
    pool = await create_pool(api_dsn(data.dsn), min_size=1, max_size=1)
    try:
        async with pool.acquire() as conn:
            caller = await resolve(conn, token_hash)
            for kind, q in QUERIES.items():
                row: dict[str, Any] = {"same_rows": await same_rows(conn, caller, q)}
                print(kind, "same rows:", row["same_rows"], flush=True)
                row["load"] = await measure(conn, caller, q, args)
                print(kind, row["load"], flush=True)
                report["queries"][kind] = row
        owner = await asyncpg.connect(data.dsn)
        try:
            for kind, q in QUERIES.items():
                report["queries"][kind]["explain"] = await explain(owner, token_hash, q)
                for name, plan in report["queries"][kind]["explain"].items():
                    print(f"\n--- {kind} {name}\n{plan}")
        finally:
            await owner.close()
    finally:
        await pool.close()
    records.write_results("search", report, markdown(report))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured time per variant")
    parser.add_argument("--slices", type=int, default=4, help="alternating slices per variant")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds per variant")
    parser.add_argument("--fresh", action="store_true", help="regenerate the bench data")
    return records.run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
