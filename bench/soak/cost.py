"""What each abusive request costs the gateway, one kind at a time, against normal requests:
`python -m bench.soak.cost [--requests N]` starts an embedded PostgreSQL and a `skillmem serve`
as the soak does, sends N requests of each kind one after the other (after 20 unmeasured), and
prints the gateway's CPU milliseconds per request (user and system, from the process), this
client's, and the wall time. Sequential: nothing queues, so the CPU figures are each request's
own cost even on a busy machine (the wall time is not)."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from bench.soak import abuse, processes
from bench.soak.postgres import embedded, fresh_database
from bench.soak.tenants import make_tenant
from bench.soak.traffic import Lane, Traffic, prepare
from db.pool import create_pool

NORMAL = ("records", "turn", "search", "store_write", "mcp")
WARM_UP = 20


async def measure(send: Send, gateway: processes.Process, n: int) -> str:
    for _ in range(WARM_UP):
        await send()
    cpu, mine, began = gateway.cpu_seconds(), time.process_time(), time.monotonic()
    for _ in range(n):
        await send()
    cpu, mine = gateway.cpu_seconds() - cpu, time.process_time() - mine
    wall = time.monotonic() - began
    return f"{cpu / n * 1000:9.2f} {mine / n * 1000:9.2f} {wall / n * 1000:9.2f}"


Send = Callable[[], Awaitable[object]]


def senders(lane: Lane, client: httpx.AsyncClient, port: int) -> dict[str, Send]:
    """One request of each kind, by name: the mixed workload's, then the abusive ones."""
    bad = Traffic()

    def normal(kind: str) -> Send:
        async def send() -> object:
            lane.n += 1  # a write of its own each time
            return await getattr(lane, kind)()

        return send

    def abusive(kind: str) -> Send:
        return lambda: abuse.bad_body(client, kind, lane.tenant.token, bad)

    found = {kind: normal(kind) for kind in NORMAL}
    found.update({f"abuse:{kind}": abusive(kind) for kind in abuse.BODIES})
    found["abuse:websocket"] = lambda: abuse.websocket_attempt(port, bad)
    return found


async def costs(n: int) -> None:
    with embedded() as server:
        dsn = await fresh_database(server)
        owner = await create_pool(dsn, min_size=1, max_size=2)
        try:
            tenant = await make_tenant(owner, "Northwind")
        finally:
            await owner.close()
        log = str(Path(tempfile.mkdtemp(prefix="skillmem-cost-")) / "gateway.log")
        gateway = await processes.gateway("cost", dsn, log)
        async with processes.running(gateway):
            await prepare([tenant], gateway.base_url)
            async with httpx.AsyncClient(base_url=gateway.base_url, timeout=10) as client:
                sends = senders(Lane(1, tenant, client, []), client, gateway.port or 0)
                print(f"{'request':20s} {'gw cpu ms':>9s} {'client':>9s} {'wall ms':>9s}")
                for kind, send in sends.items():
                    print(f"{kind:20s} {await measure(send, gateway, n)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.soak.cost", description=__doc__)
    parser.add_argument("--requests", type=int, default=300, help="measured requests a kind")
    asyncio.run(costs(parser.parse_args().requests))


if __name__ == "__main__":
    main()
