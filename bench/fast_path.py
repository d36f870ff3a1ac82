"""The whole-operation fast path (schema/fast.py) in process: the app's work per request with
the fast path on and off, for the records page, the skill activation and the memory page read.

`python -m bench.fast_path [--query records|activation|memory] [--requests 200] [--rounds 6]`
finds (or makes) the bench database of that query (bench/generate.py's, bench/skills.py's or
bench/memory.py's), builds the app twice over one pool (SKILLMEM_FAST_PATH true and false)
and sends the query to each through httpx's ASGI transport after a warm-up that checks both
answer the same bytes; then alternating rounds of CPU time per request (as bench/planned.py).

Instruction counts, repeatable on a busy machine: `--only fast|slow --requests N` runs one app
and, under `valgrind --tool=callgrind --instr-atstart=no`, turns callgrind's instrumentation on
(callgrind_control) after the warm-up and off after the N requests, so that the count is the
N requests' alone: `callgrind_annotate` of the output's total Ir / N.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import Any

import httpx

from bench import memory, skills
from bench.generate import ensure
from bench.records import QUERY as RECORDS_QUERY
from bench.records import run
from db.events import Listener
from db.pool import api_dsn, connect, create_pool
from db.principal_cache import PrincipalCache
from gateway import heap
from gateway.app import create_app
from gateway.settings import Settings

WARMUP_REQUESTS = 30
APPS = {"fast": True, "slow": False}


async def setup(query: str, server: str) -> tuple[str, str, dict[str, Any]]:
    """The database's DSN, the caller's token and the request body of ``query``."""
    if query == "records":
        data = await ensure(server)
        return data.dsn, data.token, {"query": RECORDS_QUERY % 20}
    if query == "memory":
        dsn, made = await memory.fresh_database(server)
        body = {"query": memory.READ_QUERY, "variables": {"id": made["page"]}}
        return dsn, made["token"], body
    dsn = await skills.fresh_database(server)
    conn = await connect(dsn)
    try:
        filled = await skills.fill_skills(conn)
    finally:
        await conn.close()
    return dsn, filled["token"], {"query": skills.ACTIVATION_QUERY % skills.ACTIVATED}


def callgrind(switch: str) -> None:
    """Turn callgrind's instrumentation of this process on or off (no-op without valgrind)."""
    try:
        subprocess.run(
            ["callgrind_control", "-i", switch, str(os.getpid())], check=False, capture_output=True
        )
    except FileNotFoundError:
        pass


async def bench(args: argparse.Namespace, server: str, _postmaster: int | None) -> int:
    dsn, token, body = await setup(args.query, server)
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=2)
    listener = Listener(api_dsn(dsn), name="bench-fast")
    await listener.start()
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    clients = {}
    for name, fast in APPS.items():
        if args.only and name != args.only:
            continue
        settings = Settings(database_url=dsn, introspection=False, fast_path=fast)
        app = create_app(settings, pool=pool)
        app.state.principals = PrincipalCache(listener, ttl=3600.0, size=10)
        transport = httpx.ASGITransport(app=app)
        clients[name] = httpx.AsyncClient(transport=transport, base_url="http://bench")
    try:
        answers = set()
        for client in clients.values():
            for _ in range(WARMUP_REQUESTS):
                response = await client.post("/graphql", json=body, headers=headers)
            assert response.status_code == 200 and b'"errors"' not in response.content
            answers.add(response.content)
        assert len(answers) == 1, "the fast path's answer differs"
        heap.settle()  # as the server does once it has started
        if args.only:
            callgrind("on")
            for _ in range(args.requests):
                await clients[args.only].post("/graphql", json=body, headers=headers)
            callgrind("off")
            return 0
        found: dict[str, list[float]] = {name: [] for name in clients}
        for index in range(args.rounds):
            for name in list(clients) if index % 2 == 0 else list(clients)[::-1]:
                started = time.process_time()
                for _ in range(args.requests):
                    await clients[name].post("/graphql", json=body, headers=headers)
                found[name].append(1000 * (time.process_time() - started) / args.requests)
    finally:
        for client in clients.values():
            await client.aclose()
        await pool.close()
        await listener.stop()
    for name, figures in found.items():
        print(f"{args.query} {name}: {min(figures):.3f} ms CPU a request (best)")
    print(f"fast / slow: {min(found['fast']) / min(found['slow']):.3f}x (best rounds)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--query", choices=("records", "activation", "memory"), default="records")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--only", choices=tuple(APPS), help="one app, for callgrind")
    return run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
