"""PostgreSQL CPU and statements per request, on one backend, without the noise of a load run.

The app runs in-process over a pool of one connection, so every statement of every request
goes to one PostgreSQL backend. The same request is sent again and again, one at a time, for a
few seconds; the backend's user and system CPU (from /proc/<pid>/stat: it runs on this
machine, the embedded server) over that time, divided by the requests, is the PostgreSQL CPU a
request costs, and the statements the connection logged, divided the same way, are the
statements a request sends. Other processes (this one, other sessions) do not count, so the
figure holds on a busy machine better than a load run's (which sums every PostgreSQL process).

A request can be measured as served: the app keeps its principal cache, as it does under
uvicorn, so after the first request every one is the cache's hit and sends no `begin_request`;
and with the token looked up each time, in alternating rounds on the same backend, so that the
two figures come from the same minutes of a shared machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from db.pool import create_pool
from gateway.app import create_app, listening
from gateway.settings import Settings

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
WARMUP_REQUESTS = 20
# Alternating rounds of each way a body is measured, when it is measured served and cold.
SERVED_ROUNDS = 6
# /proc/<pid>/stat: utime and stime, in clock ticks, are the 14th and 15th fields.
UTIME_FIELD, STIME_FIELD = 13, 14


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds process ``pid`` of this machine used so far (None when it
    is not a process of this machine)."""
    try:
        raw = open(f"/proc/{pid}/stat", encoding="ascii").read()  # noqa: SIM115
    except OSError:
        return None
    # The command name, in parentheses, may hold spaces: the fields count from after it.
    fields = raw[raw.rindex(")") + 2 :].split()
    ticks = int(fields[UTIME_FIELD - 2]) + int(fields[STIME_FIELD - 2])
    return ticks / os.sysconf("SC_CLK_TCK")


@contextlib.asynccontextmanager
async def principal_cache(app: Any, dsn: str, settings: Settings) -> AsyncIterator[None]:
    """The app's principal cache and its listener for the block, as when it is served
    (gateway/app.py's lifespan, which an in-process app does not run)."""
    async with listening(dsn, settings) as (events, principals):
        assert principals is not None, "the principal cache is off in the settings"
        app.state.events, app.state.principals = events, principals
        try:
            yield
        finally:
            app.state.events = app.state.principals = None


async def per_request(
    dsn: str,
    token: str,
    bodies: dict[str, bytes],
    seconds: float,
    check: Callable[[str, dict[str, Any]], None],
    local: bool,
    served: bool = False,
) -> dict[str, Any]:
    """For each named GraphQL body: requests sent, statements per request (data and
    transaction control) and, when the server runs on this machine (``local``), its backend's
    CPU milliseconds per request. ``check`` sees each answer first. With ``served``, each body
    is measured twice in alternating rounds over the same connection, "<name> (served)" (the
    principal cache on: every request its hit, the settings and freshness check sent with
    BEGIN, counted with the transaction control) and "<name> (token looked up)"
    (`begin_request` each time); without, the token is looked up each time."""
    logged: list[str] = []
    pool = await create_pool(dsn, min_size=1, max_size=1)
    try:
        async with pool.acquire() as conn:
            pid = int(await conn.fetchval("SELECT pg_backend_pid()"))
            conn.add_query_logger(lambda record: logged.append(record.query))
        settings = Settings(database_url=dsn, introspection=False)
        cold = create_app(settings, pool=pool)
        headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
        async with contextlib.AsyncExitStack() as stack:
            apps = {"": cold}
            if served:
                hit = create_app(settings, pool=pool)
                await stack.enter_async_context(principal_cache(hit, dsn, settings))
                apps = {" (served)": hit, " (token looked up)": cold}
            clients = {
                label: await stack.enter_async_context(
                    httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b")
                )
                for label, app in apps.items()
            }
            meter = Meter(pid if local else None, logged)
            rounds = SERVED_ROUNDS if served else 1
            found: dict[str, Any] = {}
            for name, body in bodies.items():
                for http in clients.values():
                    for _ in range(WARMUP_REQUESTS):
                        response = await http.post("/graphql", content=body, headers=headers)
                        check(name, response.json())
                totals = {label: Totals() for label in clients}
                for index in range(rounds):
                    order = list(clients) if index % 2 == 0 else list(clients)[::-1]
                    for label in order:
                        post = functools.partial(
                            clients[label].post, "/graphql", content=body, headers=headers
                        )
                        await meter.measure(post, seconds / rounds, totals[label])
                found.update({name + label: t.summary() for label, t in totals.items()})
    finally:
        await pool.close()
    return found


@dataclass
class Totals:
    """One request's figures summed over its rounds."""

    requests: int = 0
    seconds: float = 0.0
    cpu: float | None = 0.0
    statements: int = 0
    control: int = 0

    def summary(self) -> dict[str, Any]:
        n = self.requests
        return {
            "requests": n,
            "wall_ms_per_request": round(1000 * self.seconds / n, 3),
            "postgres_cpu_ms_per_request": None
            if self.cpu is None
            else round(1000 * self.cpu / n, 3),
            "data_statements_per_request": round((self.statements - self.control) / n, 2),
            "transaction_control_per_request": round(self.control / n, 2),
        }


@dataclass
class Meter:
    """Requests sent for a while, and what the one backend did meanwhile."""

    pid: int | None
    logged: list[str]

    async def measure(
        self, post: Callable[[], Awaitable[Any]], seconds: float, totals: Totals
    ) -> None:
        await asyncio.sleep(0.05)  # loggers are called soon after, not inline
        self.logged.clear()
        requests, started = 0, time.perf_counter()
        cpu_before = cpu_seconds(self.pid) if self.pid is not None else None
        while time.perf_counter() - started < seconds:
            await post()
            requests += 1
        cpu_after = cpu_seconds(self.pid) if self.pid is not None else None
        elapsed = time.perf_counter() - started
        await asyncio.sleep(0.05)
        control = sum(q.strip().upper().startswith(TRANSACTION_CONTROL) for q in self.logged)
        totals.requests += requests
        totals.seconds += elapsed
        totals.statements += len(self.logged)
        totals.control += control
        if cpu_before is None or cpu_after is None or totals.cpu is None:
            totals.cpu = None
        else:
            totals.cpu += cpu_after - cpu_before


def markdown(found: dict[str, Any]) -> str:
    """The table of per_request's figures."""
    lines = [
        "| request | requests | PostgreSQL CPU ms/req (one backend) | data statements/req "
        "| BEGIN/COMMIT/req | wall ms/req (in-process, sequential) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in found.items():
        lines.append(
            f"| {name} | {row['requests']} | {row['postgres_cpu_ms_per_request']} "
            f"| {row['data_statements_per_request']} | {row['transaction_control_per_request']} "
            f"| {row['wall_ms_per_request']} |"
        )
    return "\n".join(lines)
