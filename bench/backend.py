"""PostgreSQL CPU and statements per request, on one backend, without the noise of a load run.

The app runs in-process over a pool of one connection, so every statement of every request
goes to one PostgreSQL backend. The same request is sent again and again, one at a time, for a
few seconds; the backend's user and system CPU (from /proc/<pid>/stat: it runs on this
machine, the embedded server) over that time, divided by the requests, is the PostgreSQL CPU a
request costs, and the statements the connection logged, divided the same way, are the
statements a request sends. Other processes (this one, other sessions) do not count, so the
figure holds on a busy machine better than a load run's (which sums every PostgreSQL process).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

import httpx

from db.pool import create_pool
from gateway.app import create_app
from gateway.settings import Settings

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
WARMUP_REQUESTS = 20
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


async def per_request(
    dsn: str,
    token: str,
    bodies: dict[str, bytes],
    seconds: float,
    check: Callable[[str, dict[str, Any]], None],
    local: bool,
) -> dict[str, Any]:
    """For each named GraphQL body: requests sent, statements per request (data and
    transaction control) and, when the server runs on this machine (``local``), its backend's
    CPU milliseconds per request. ``check`` sees each answer first."""
    logged: list[str] = []
    pool = await create_pool(dsn, min_size=1, max_size=1)
    found: dict[str, Any] = {}
    try:
        async with pool.acquire() as conn:
            pid = int(await conn.fetchval("SELECT pg_backend_pid()"))
            conn.add_query_logger(lambda record: logged.append(record.query))
        app = create_app(Settings(database_url=dsn, introspection=False), pool=pool)
        headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
            for name, body in bodies.items():
                for _ in range(WARMUP_REQUESTS):
                    response = await http.post("/graphql", content=body, headers=headers)
                    check(name, response.json())
                await asyncio.sleep(0.05)  # loggers are called soon after, not inline
                logged.clear()
                requests, started = 0, time.perf_counter()
                cpu_before = cpu_seconds(pid) if local else None
                while time.perf_counter() - started < seconds:
                    await http.post("/graphql", content=body, headers=headers)
                    requests += 1
                cpu_after = cpu_seconds(pid) if local else None
                elapsed = time.perf_counter() - started
                await asyncio.sleep(0.05)
                control = sum(q.strip().upper().startswith(TRANSACTION_CONTROL) for q in logged)
                cpu_ms = None
                if cpu_before is not None and cpu_after is not None:
                    cpu_ms = round(1000 * (cpu_after - cpu_before) / requests, 3)
                found[name] = {
                    "requests": requests,
                    "wall_ms_per_request": round(1000 * elapsed / requests, 3),
                    "postgres_cpu_ms_per_request": cpu_ms,
                    "data_statements_per_request": round((len(logged) - control) / requests, 2),
                    "transaction_control_per_request": round(control / requests, 2),
                }
    finally:
        await pool.close()
    return found


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
