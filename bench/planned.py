"""The planned executor in process: server CPU per records-page request, planned against
graphql-core alone, with no HTTP server, load generator or PostgreSQL process in the figure.

`python -m bench.planned [--rounds 6] [--requests 200] [--first 20] [--profile]` (or `make
bench-planned`) finds (or generates) the bench database as `make bench` does, builds the app
twice over one pool (SKILLMEM_PLANNED_EXECUTION true and false) and sends the records page to
each through httpx's ASGI transport, in alternating rounds; it prints this process's CPU time
per request (the app's work plus the in-process client's, the same for both), best and median
of the rounds, and their ratio. With --profile it runs cProfile (CPU clock) over the planned
app instead and prints the shares of CPU by area, as bench/profile.py names them.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from typing import Any

import httpx

from bench.generate import ensure
from bench.profile import AREAS
from bench.records import QUERY, run
from db.pool import api_dsn, create_pool
from gateway.app import create_app
from gateway.settings import Settings

WARMUP_REQUESTS = 30


async def rounds(
    clients: dict[str, httpx.AsyncClient], body: dict[str, Any], headers: dict[str, str], args: Any
) -> dict[str, list[float]]:
    """CPU milliseconds per request of each app, one figure a round."""
    found: dict[str, list[float]] = {name: [] for name in clients}
    for index in range(args.rounds):
        order = list(clients) if index % 2 == 0 else list(clients)[::-1]
        for name in order:
            started = time.process_time()
            for _ in range(args.requests):
                await clients[name].post("/graphql", json=body, headers=headers)
            found[name].append(1000 * (time.process_time() - started) / args.requests)
    return found


def area(path: str) -> str:
    for name, part in AREAS:
        if part in path:
            return name
    return "other (the client, stdlib, uvloop)"


async def profiled(
    client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str], requests: int
) -> None:
    """cProfile's CPU time of the planned app, by area."""
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for _ in range(requests):
        await client.post("/graphql", json=body, headers=headers)
    profile.disable()
    shares: dict[str, float] = {}
    for (path, _line, _name), row in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        shares[area(path)] = shares.get(area(path), 0.0) + row[2]
    whole = sum(shares.values())
    for name, seconds in sorted(shares.items(), key=lambda item: -item[1]):
        print(f"{100 * seconds / whole:6.1f} %  {1000 * seconds / requests:.3f} ms  {name}")


async def bench(args: argparse.Namespace, server: str, _postmaster: int | None) -> int:
    data = await ensure(server)
    pool = await create_pool(api_dsn(data.dsn), min_size=1, max_size=2)
    headers = {"authorization": f"Bearer {data.token}", "content-type": "application/json"}
    body = {"query": QUERY % args.first}
    clients = {}
    for name, planned in (("planned", True), ("graphql-core alone", False)):
        settings = Settings(database_url=data.dsn, introspection=False, planned_execution=planned)
        transport = httpx.ASGITransport(app=create_app(settings, pool=pool))
        clients[name] = httpx.AsyncClient(transport=transport, base_url="http://bench")
    try:
        answers = set()
        for client in clients.values():
            for _ in range(WARMUP_REQUESTS):
                response = await client.post("/graphql", json=body, headers=headers)
            assert response.status_code == 200 and b'"errors"' not in response.content
            answers.add(response.content)
        assert len(answers) == 1, "the planned and unplanned answers differ"
        if args.profile:
            await profiled(clients["planned"], body, headers, args.requests * args.rounds)
            return 0
        found = await rounds(clients, body, headers, args)
    finally:
        for client in clients.values():
            await client.aclose()
        await pool.close()
    for name, figures in found.items():
        ordered = sorted(figures)
        print(
            f"{name}: {ordered[0]:.3f} ms CPU a request (best), "
            f"{ordered[len(ordered) // 2]:.3f} (median) over {args.rounds} rounds"
        )
    best = {name: min(figures) for name, figures in found.items()}
    print(f"planned / alone: {best['planned'] / best['graphql-core alone']:.2f}x (best rounds)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds per app")
    parser.add_argument("--requests", type=int, default=200, help="requests per round")
    parser.add_argument("--first", type=int, default=20, help="records on the page")
    parser.add_argument("--profile", action="store_true", help="cProfile the planned app")
    return run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
