"""Activation and the catalog in process: this process's CPU per request, the app against the
skills baseline, with no HTTP server, load generator or PostgreSQL process in the figure.

`python -m bench.skills_cpu [--rounds 6] [--requests 100] [--endpoint catalog,activation]
[--profile]` remakes the skills benchmark's database (as bench.skills does), builds the app
(its principal cache listening, as `serve` has it) and the baseline over one pool, and sends
each endpoint to both through httpx's ASGI transport in alternating rounds; it prints the CPU
time per request (the app's or the baseline's work plus the in-process client's, the same for
both), best and median of the rounds, and the ratio baseline/app (what the app's throughput
would be against the baseline's if CPU alone bounded both). With --profile it runs cProfile
(CPU clock) over the app instead and prints the functions with the most CPU.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from typing import Any

import httpx

from bench.records import run
from bench.skills import (
    ACTIVATED,
    ACTIVATION_QUERY,
    CATALOG_QUERY,
    create_baseline,
    fill_skills,
    fresh_database,
)
from db.pool import api_dsn, connect, create_pool
from gateway import heap
from gateway.app import create_app, listening
from gateway.settings import Settings

WARMUP_REQUESTS = 20


def requests_of(endpoint: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each server's path and JSON body for ``endpoint``."""
    if endpoint == "activation":
        return {
            "app": ("/graphql", {"query": ACTIVATION_QUERY % ACTIVATED}),
            "baseline": ("/activation", {"name": ACTIVATED}),
        }
    return {"app": ("/graphql", {"query": CATALOG_QUERY}), "baseline": ("/catalog", {})}


async def rounds(
    clients: dict[str, httpx.AsyncClient], endpoint: str, headers: dict[str, str], args: Any
) -> dict[str, list[float]]:
    """CPU milliseconds per request of each server, one figure a round."""
    sent = requests_of(endpoint)
    found: dict[str, list[float]] = {name: [] for name in clients}
    for index in range(args.rounds):
        order = list(clients) if index % 2 == 0 else list(clients)[::-1]
        for name in order:
            path, body = sent[name]
            started = time.process_time()
            for _ in range(args.requests):
                await clients[name].post(path, json=body, headers=headers)
            found[name].append(1000 * (time.process_time() - started) / args.requests)
    return found


async def profiled(
    client: httpx.AsyncClient, endpoint: str, headers: dict[str, str], requests: int
) -> None:
    path, body = requests_of(endpoint)["app"]
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for _ in range(requests):
        await client.post(path, json=body, headers=headers)
    profile.disable()
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(
        r"wt/skills/(gateway|schema|resolvers|db)|strawberry|graphql/execution", 60
    )


async def check_same(
    clients: dict[str, httpx.AsyncClient], endpoint: str, headers: dict[str, str]
) -> None:
    """Both answer the same data (and warm up)."""
    data = []
    for name, (path, body) in requests_of(endpoint).items():
        for _ in range(WARMUP_REQUESTS):
            response = await clients[name].post(path, json=body, headers=headers)
        assert response.status_code == 200 and b'"errors"' not in response.content, name
        data.append(response.json()["data"])
    assert data[0] == data[1], f"the app and the baseline differ for {endpoint}"


async def bench(args: argparse.Namespace, server: str, _postmaster: int | None) -> int:
    dsn = await fresh_database(server)
    conn = await connect(dsn)
    try:
        token = (await fill_skills(conn))["token"]
    finally:
        await conn.close()
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=2)
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    settings = Settings(database_url=dsn, introspection=False)
    app = create_app(settings, pool=pool)
    clients = {
        "app": httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b"),
        "baseline": httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_baseline(pool)), base_url="http://b"
        ),
    }
    try:
        async with listening(api_dsn(dsn), settings) as (_events, principals):
            app.state.principals = principals
            for endpoint in args.endpoint:
                await check_same(clients, endpoint, headers)
            heap.settle()
            for endpoint in args.endpoint:
                if args.profile:
                    await profiled(clients["app"], endpoint, headers, args.requests * args.rounds)
                    continue
                chosen = {"app": clients["app"]} if args.app_only else clients
                found = await rounds(chosen, endpoint, headers, args)
                if not args.app_only:
                    report(endpoint, found)
    finally:
        for client in clients.values():
            await client.aclose()
        await pool.close()
    return 0


def report(endpoint: str, found: dict[str, list[float]]) -> None:
    for name, figures in found.items():
        ordered = sorted(figures)
        print(
            f"{endpoint} {name}: {ordered[0]:.3f} ms CPU a request (best), "
            f"{ordered[len(ordered) // 2]:.3f} (median) over {len(ordered)} rounds"
        )
    best = {name: min(figures) for name, figures in found.items()}
    print(f"{endpoint} baseline/app CPU: {best['baseline'] / best['app']:.2f}x (best rounds)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds per server")
    parser.add_argument("--requests", type=int, default=100, help="requests per round")
    parser.add_argument(
        "--endpoint",
        type=lambda text: text.split(","),
        default=["activation", "catalog"],
        help="comma-separated: activation, catalog",
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the app")
    parser.add_argument(
        "--app-only", action="store_true", help="send to the app only (to sample it: py-spy)"
    )
    return run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
