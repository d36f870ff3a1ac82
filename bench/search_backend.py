"""The search's PostgreSQL CPU per request on one backend (bench/backend.py), with
memory_line_matches and the search_memory statement as migration 0038 left them and as today's
(migration 0040), alternated between slices of the same run: 0038's function installed under its
bench name (bench/search.py) and, in the app's one statement of memory and skills
(db/search.py, MEMORY_AND_SKILLS), the search_memory statement swapped for the one that called
it.

`python -m bench.search_backend [--rounds 4] [--seconds 5]`: the GraphQL `search` of the turns
benchmark (bench/turns.py: "Chloé Dubois", first 20) sent in-process, one request at a time, over
a pool of one connection; per slice the backend's CPU per request, statements per request and
wall time. Today's statement is put back at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from typing import Any

import asyncpg
import orjson

from bench import backend
from bench.generate import ensure, server_dsn
from bench.search import CURRENT_MIGRATION, PREVIOUS_SEARCH_MEMORY, install_before
from bench.turns import SEARCH_QUERY, SEARCH_TERMS
from db import search as search_db
from db.pool import api_dsn

VERSIONS = ("0038", CURRENT_MIGRATION)
# The app's statement of memory and skills (db/search.py), with 0038's memory statement in it.
STATEMENTS = {
    "0038": search_db.memory_and_skills_statement(
        PREVIOUS_SEARCH_MEMORY, search_db.Q["search_skills"]
    ),
    CURRENT_MIGRATION: search_db.MEMORY_AND_SKILLS,
}


def _check(name: str, body: dict[str, Any]) -> None:
    assert "errors" not in body, (name, str(body)[:300])


async def run(rounds: int, seconds: float) -> dict[str, list[dict[str, Any]]]:
    server, _handle = server_dsn()
    data = await ensure(server)
    body = orjson.dumps({"query": SEARCH_QUERY, "variables": {"q": SEARCH_TERMS}})
    owner = await asyncpg.connect(data.dsn)
    found: dict[str, list[dict[str, Any]]] = {version: [] for version in VERSIONS}
    try:
        await install_before(owner)
        for index in range(rounds):
            for version in VERSIONS if index % 2 == 0 else VERSIONS[::-1]:
                search_db.MEMORY_AND_SKILLS = STATEMENTS[version]
                row = await backend.per_request(
                    api_dsn(data.dsn), data.token, {"search": body}, seconds, _check, True
                )
                found[version].append(row["search"])
                print(version, row["search"], flush=True)
    finally:
        search_db.MEMORY_AND_SKILLS = STATEMENTS[CURRENT_MIGRATION]
        await owner.close()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per slice")
    args = parser.parse_args()
    found = asyncio.run(run(args.rounds, args.seconds))
    print(
        "| memory_line_matches and search_memory | requests "
        "| PostgreSQL CPU ms/req (median of slices) | slices |"
    )
    print("|---|---:|---:|---|")
    for version, rows in found.items():
        cpu = [row["postgres_cpu_ms_per_request"] for row in rows]
        print(
            f"| {version} | {sum(row['requests'] for row in rows)} "
            f"| {statistics.median(cpu):.3f} | {', '.join(f'{c:.3f}' for c in cpu)} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
