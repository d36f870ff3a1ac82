"""The edge's own cost per request: what its metrics and CORS (issue 13) add.

`python -m bench.edge` (or `make bench-edge`) starts PostgreSQL (DATABASE_URL's server, or the
bench's embedded one), makes a database of its own with the demo workspace, then sends
`{ me { name } }` (the lightest authenticated GraphQL request: the token, one transaction, one
field) through the app in this process (httpx over ASGI, one at a time), alternating slices of
the app as served and of the same app whose edge is the principal check alone (no metrics, no
CORS). It reports the process's CPU per request for each (the database's work is the same on
both sides and left out) and their difference.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import time
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.middleware import Middleware

from bench.generate import server_dsn, with_database
from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from gateway.app import create_app
from gateway.demo import ensure_demo
from gateway.http.auth import PrincipalMiddleware
from gateway.http.edge import Edge
from gateway.settings import Settings

DATABASE = "skillmem_bench_edge"
QUERY = {"query": "{ me { name } }"}


async def fresh_database(server: str) -> str:
    """An empty database of the bench's own on ``server``; its DSN."""
    admin = await connect(server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{DATABASE}"')
    finally:
        await admin.close()
    return with_database(server, DATABASE)


def without_edge_extras(app: Starlette) -> Starlette:
    """The same app whose edge (gateway/http/edge.py) is the principal check alone: no
    metrics, no CORS."""
    edge = next(m for m in app.user_middleware if m.cls is Edge)
    settings: Settings = edge.kwargs["settings"]
    bare = Middleware(
        PrincipalMiddleware,
        settings.introspection,
        settings.body_read_timeout,
        edge.kwargs["graphql"],
    )
    app.user_middleware = [bare if m is edge else m for m in app.user_middleware]
    app.middleware_stack = None
    return app


async def slice_cpu(client: httpx.AsyncClient, token: str, requests: int) -> float:
    """CPU seconds of this process per request over ``requests`` requests."""
    headers = {"authorization": f"Bearer {token}"}
    started = time.process_time()
    for _ in range(requests):
        answer = await client.post("/graphql", json=QUERY, headers=headers)
        assert answer.status_code == 200, answer.text
    return (time.process_time() - started) / requests


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    server, handle = server_dsn()
    dsn = await fresh_database(server)
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
        token = (await ensure_demo(conn)).token
    finally:
        await conn.close()
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=2)
    settings = Settings(database_url=None, worker=False, cors_origins=["http://localhost:3000"])
    apps = {
        "as served": create_app(settings, pool=pool),
        "without metrics and CORS": without_edge_extras(create_app(settings, pool=pool)),
    }
    found: dict[str, list[float]] = {name: [] for name in apps}
    try:
        clients = {
            name: httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b")
            for name, app in apps.items()
        }
        for client in clients.values():
            await slice_cpu(client, token, args.warmup)
        order = list(clients.items())
        for _ in range(args.slices):
            for name, client in order:
                found[name].append(await slice_cpu(client, token, args.requests))
            order.reverse()  # neither side always goes first
        for client in clients.values():
            await client.aclose()
    finally:
        await pool.close()
        if handle is not None:
            handle.cleanup()
    medians = {name: statistics.median(values) * 1e6 for name, values in found.items()}
    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "load": os.getloadavg(),
        "requests_per_slice": args.requests,
        "slices": args.slices,
        "cpu_us_per_request": {name: round(v, 1) for name, v in medians.items()},
        "slices_us": {name: [round(v * 1e6, 1) for v in vs] for name, vs in found.items()},
        "difference_us": round(medians["as served"] - medians["without metrics and CORS"], 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per slice")
    parser.add_argument("--slices", type=int, default=6, help="alternating slices per app")
    parser.add_argument("--warmup", type=int, default=500, help="warm-up requests per app")
    report = asyncio.run(bench(parser.parse_args()))
    for key, value in report.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
