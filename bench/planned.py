"""The planned executor in process: server CPU per records-page request, planned against
graphql-core alone, with no HTTP server, load generator or PostgreSQL process in the figure.

`python -m bench.planned [--rounds 6] [--requests 200] [--first 20] [--profile] [--baseline]`
(or `make bench-planned`) finds (or generates) the bench database as `make bench` does, builds
the app twice over one pool (SKILLMEM_PLANNED_EXECUTION true and false) and sends the records
page to each through httpx's ASGI transport, in alternating rounds; it prints this process's CPU
time per request (the app's work plus the in-process client's, the same for both), best and
median of the rounds, and their ratio. With --baseline the hand-written baseline
(bench/baseline.py, over a pool of its own) takes its turn in the same rounds, and the planned
app's CPU is also given as a ratio of the baseline's. With --profile it runs cProfile (CPU
clock) over the planned app instead and prints the shares of CPU by area, as bench/profile.py
names them.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from typing import Any

import asyncpg
import httpx
from starlette.routing import Route

from bench import baseline
from bench.generate import ensure
from bench.profile import AREAS
from bench.records import QUERY, run
from db.events import Listener
from db.pool import api_dsn, create_pool
from db.principal_cache import PrincipalCache
from gateway import heap
from gateway.app import create_app
from gateway.settings import Settings

WARMUP_REQUESTS = 30


BASELINE = "baseline"
# What each app is sent: its path and body (the baseline's route takes the page's arguments).
Asks = dict[str, tuple[str, dict[str, Any]]]


async def rounds(
    clients: dict[str, httpx.AsyncClient], asks: Asks, headers: dict[str, str], args: Any
) -> dict[str, list[float]]:
    """CPU milliseconds per request of each app, one figure a round."""
    found: dict[str, list[float]] = {name: [] for name in clients}
    for index in range(args.rounds):
        order = list(clients) if index % 2 == 0 else list(clients)[::-1]
        for name in order:
            path, body = asks[name]
            started = time.process_time()
            for _ in range(args.requests):
                await clients[name].post(path, json=body, headers=headers)
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


async def baseline_client(dsn: str) -> tuple[httpx.AsyncClient, Any]:
    """The baseline app through httpx's ASGI transport, over a pool of its own (its codecs)."""
    pool = await asyncpg.create_pool(
        dsn, min_size=1, max_size=2, init=baseline._init, reset=baseline._keep_session
    )
    app = baseline.plain_app([Route("/records", baseline.records, methods=["POST"])], pool)
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://bench"), pool


async def warmed(
    clients: dict[str, httpx.AsyncClient], asks: Asks, headers: dict[str, str]
) -> None:
    """Warm every app up, checking that the GraphQL apps answer the same bytes."""
    answers = set()
    for name, client in clients.items():
        path, body = asks[name]
        for _ in range(WARMUP_REQUESTS):
            response = await client.post(path, json=body, headers=headers)
        assert response.status_code == 200 and b'"errors"' not in response.content
        if name != BASELINE:
            answers.add(response.content)
    assert len(answers) == 1, "the planned and unplanned answers differ"


def report(found: dict[str, list[float]], rounds_run: int) -> None:
    for name, figures in found.items():
        ordered = sorted(figures)
        print(
            f"{name}: {ordered[0]:.3f} ms CPU a request (best), "
            f"{ordered[len(ordered) // 2]:.3f} (median) over {rounds_run} rounds"
        )
    best = {name: min(figures) for name, figures in found.items()}
    for other in ("graphql-core alone", BASELINE):
        if other in best:
            # Each round's own ratio too: the two apps of a round ran moments apart, on a
            # machine as busy (or as idle) for both.
            each = sorted(p / o for p, o in zip(found["planned"], found[other], strict=True))
            print(
                f"planned / {other}: {best['planned'] / best[other]:.3f}x (best rounds), "
                f"{each[len(each) // 2]:.3f}x (median of the rounds' own ratios)"
            )


async def bench(args: argparse.Namespace, server: str, _postmaster: int | None) -> int:
    data = await ensure(server)
    pool = await create_pool(api_dsn(data.dsn), min_size=1, max_size=2)
    headers = {"authorization": f"Bearer {data.token}", "content-type": "application/json"}
    graphql = ("/graphql", {"query": QUERY % args.first})
    asks: Asks = {}
    clients = {}
    apps = (
        (("planned", True),)
        if args.planned_only
        else (("planned", True), ("graphql-core alone", False))
    )
    # The principal cache the server keeps (its lifespan is not run here).
    listener = Listener(api_dsn(data.dsn), name="bench-planned")
    await listener.start()
    for name, planned in apps:
        settings = Settings(database_url=data.dsn, introspection=False, planned_execution=planned)
        app = create_app(settings, pool=pool)
        app.state.principals = PrincipalCache(listener, ttl=3600.0, size=10)
        transport = httpx.ASGITransport(app=app)
        clients[name] = httpx.AsyncClient(transport=transport, base_url="http://bench")
        asks[name] = graphql
    baseline_pool = None
    if args.baseline:
        clients[BASELINE], baseline_pool = await baseline_client(api_dsn(data.dsn))
        asks[BASELINE] = ("/records", {"object": "contacts", "first": args.first})
    try:
        await warmed(clients, asks, headers)
        heap.settle()  # as the server does once it has started
        if args.profile:
            await profiled(clients["planned"], graphql[1], headers, args.requests * args.rounds)
            return 0
        found = await rounds(clients, asks, headers, args)
    finally:
        for client in clients.values():
            await client.aclose()
        await pool.close()
        await listener.stop()
        if baseline_pool is not None:
            await baseline_pool.close()
    report(found, args.rounds)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds per app")
    parser.add_argument("--requests", type=int, default=200, help="requests per round")
    parser.add_argument("--first", type=int, default=20, help="records on the page")
    parser.add_argument("--profile", action="store_true", help="cProfile the planned app")
    parser.add_argument(
        "--baseline", action="store_true", help="the baseline app in the rounds too"
    )
    parser.add_argument(
        "--planned-only", action="store_true", help="leave graphql-core alone out of the rounds"
    )
    return run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
