"""A turn's statement, before and after migration 0043, on one backend, call by call.

`python -m bench.turn_sql [--calls 200] [--rounds 20]` (`make bench-turn-sql`) finds (or makes)
the bench database (bench/generate.py), sends one turn in process (bench/turns.py's message:
three cards, with profiles) to learn the arguments the app gives `turn_read`, and then, on one
connection as the bench caller (`app_begin_request` in one read-only transaction), calls:

- after: `turn_read` as the migrations define it;
- before: migration 0039's `turn_read` and `memory_lines_shown_rows` (their text, read from that
  migration, created as `pg_temp` copies on this connection only).

Both answer the same cards, profiles and souvenirs once decoded (checked first). The calls
alternate one by one (before, after, after, before, ...) so that a shared machine's changes of
speed fall on both alike; the backend's CPU time around each call (/proc/<pid>/schedstat, in
nanoseconds, this machine's embedded server) is summed per way. Each round's figure is the mean
of its calls; the table gives the medians of the rounds and of the rounds' after/before ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from typing import Any

import asyncpg
import httpx
import orjson

from bench.generate import ensure, server_dsn
from bench.records_sql import pg_temp_copies
from bench.turns import TURN_QUERY, caller_message
from db.migrate import MIGRATIONS_DIR
from db.pool import api_dsn, create_pool
from db.turns import Q
from gateway.app import create_app
from gateway.settings import Settings
from resolvers.common.principals import token_hash

OLD_MIGRATION = MIGRATIONS_DIR / "0039_turn_read_lines_as_rows.sql"
OLD_FUNCTIONS = ("memory_lines_shown_rows", "turn_read")
WAYS = {
    "before": "SELECT cards, profiles, shown FROM pg_temp.turn_read_0039($1, $2, $3, $4, $5, $6,"
    " $7, $8, $9)",
    "after": Q["turn_read"],
}


def old_functions() -> list[str]:
    """Migration 0039's functions, as pg_temp copies named ``<name>_0039``."""
    return pg_temp_copies(OLD_MIGRATION, OLD_FUNCTIONS, "0039")


async def turn_arguments(dsn: str, token: str) -> list[Any]:
    """The arguments the app gives turn_read for the bench turn."""
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=1)
    sent: list[Any] = []
    try:
        async with pool.acquire() as conn:
            conn.add_query_logger(lambda r: sent.append(r.args) if r.query == Q["turn_read"] else 0)
        app = create_app(Settings(database_url=dsn, introspection=False), pool=pool)
        body = {"query": TURN_QUERY, "variables": {"input": {"message": await caller_message(dsn)}}}
        headers = {"authorization": f"Bearer {token}"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
            answer = (await http.post("/graphql", json=body, headers=headers)).json()
    finally:
        await pool.close()
    assert "errors" not in answer and sent, str(answer)[:300]
    return list(sent[-1])


def decoded(row: asyncpg.Record) -> dict[str, Any]:
    return {key: orjson.loads(value) for key, value in row.items()}


async def measure(dsn: str, token: str, args: list[Any], calls: int, rounds: int) -> dict:
    conn = await asyncpg.connect(dsn)  # no codecs: json and jsonb come as text, decoded here
    try:
        for statement in old_functions():
            await conn.execute(statement)
        await conn.execute("BEGIN READ ONLY")
        await conn.fetchrow("SELECT * FROM app_begin_request($1)", token_hash(token))
        prepared = {way: await conn.prepare(text) for way, text in WAYS.items()}
        answers = [decoded(await prepared[way].fetchrow(*args)) for way in WAYS]
        assert answers[0] == answers[1], "before and after answer differently"
        pid = int(await conn.fetchval("SELECT pg_backend_pid()"))

        def cpu_ns() -> int:
            with open(f"/proc/{pid}/schedstat", encoding="ascii") as stat:
                return int(stat.read().split()[0])

        for way in WAYS:  # warm-up: plans, caches
            for _ in range(20):
                await prepared[way].fetchrow(*args)
        per_round: dict[str, list[float]] = {way: [] for way in WAYS}
        for _ in range(rounds):
            spent = dict.fromkeys(WAYS, 0)
            for index in range(calls):
                for way in WAYS if index % 2 else list(WAYS)[::-1]:
                    started = cpu_ns()
                    await prepared[way].fetchrow(*args)
                    spent[way] += cpu_ns() - started
            for way in WAYS:
                per_round[way].append(spent[way] / calls / 1e6)
        await conn.execute("COMMIT")
    finally:
        await conn.close()
    ratios = [a / b for a, b in zip(per_round["after"], per_round["before"], strict=True)]
    return {
        "answer": {"cards": len(answers[1]["cards"]), "shown": len(answers[1]["shown"])},
        "ms": {way: statistics.median(values) for way, values in per_round.items()},
        "ratio": statistics.median(ratios),
        "ratio_range": (min(ratios), max(ratios)),
    }


async def main_async(options: argparse.Namespace) -> None:
    server, _handle = server_dsn()
    data = await ensure(server)
    args = await turn_arguments(data.dsn, data.token)
    found = await measure(data.dsn, data.token, args, options.calls, options.rounds)
    print(f"same answer: {found['answer']}; {options.rounds} rounds of {options.calls} calls each")
    print("| turn_read | PostgreSQL CPU ms/call (median of rounds) |\n|---|---:|")
    for way, ms in found["ms"].items():
        print(f"| {way} | {ms:.3f} |")
    low, high = found["ratio_range"]
    print(f"after/before: {found['ratio']:.3f} (median of rounds; {low:.3f}-{high:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls of each way a round")
    parser.add_argument("--rounds", type=int, default=20, help="rounds")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
