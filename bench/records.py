"""The records benchmark: a page of contacts with their company, GraphQL against a baseline.

`python -m bench.records` (or `make bench`) starts PostgreSQL (DATABASE_URL's server, or an
embedded one in .data/bench-postgres), migrates and fills the `skillmem_bench` database
once, then:

1. counts the SQL statements of one GraphQL request at first: 1, 20 and 100 (the app run
   in-process over a pool whose connection logs every statement);
2. starts the real app and the hand-written baseline (bench/baseline.py) under uvicorn, one
   worker each on 127.0.0.1, and checks that both return the same data;
3. loads each at every concurrency for the same time, in alternating slices after a
   warm-up, and reports requests/s, p50 and p99 latency, and the server's CPU per request.

It prints Markdown tables and writes the figures to bench/results/ as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import orjson
import psutil

from bench import backend, client
from bench.generate import BenchData, ensure, server_dsn
from db.events import Listener
from db.pool import api_dsn, create_pool
from db.principal_cache import PrincipalCache
from db.sql import queries
from gateway.app import create_app
from gateway.settings import Settings

CHECKOUT = Path(__file__).resolve().parent.parent
RESULTS = CHECKOUT / "bench" / "results"
QUERY = (
    '{ records(object: "contacts", first: %d) { edges { cursor node { id label values '
    'relation(attribute: "company") { id label values } } } } }'
)
PAGE_SIZE = 20
COUNTED_SIZES = (1, 20, 100)
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
SERVERS = {
    "graphql": "gateway.app:create_app",
    "baseline": "bench.baseline:create_app",
    # The same app with its principal cache off (every request runs app_begin_request): the
    # before of issue 17's principal cache, measured in the same run.
    "uncached": "gateway.app:create_app",
}
# --unplanned: the app once more with graphql-core alone completing every field (issue 17,
# item 2's before), in the same alternating slices.
UNPLANNED = "unplanned"
UNPLANNED_ENV = {"SKILLMEM_PLANNED_EXECUTION": "false"}
SERVER_ENV = {"uncached": {"SKILLMEM_PRINCIPAL_CACHE_SECONDS": "0"}, UNPLANNED: UNPLANNED_ENV}
GRAPHQL_SERVERS = ("graphql", "uncached", UNPLANNED)
READY_SECONDS = 60.0
PACKAGES = ("strawberry-graphql", "graphql-core", "starlette", "uvicorn", "asyncpg", "orjson")


@dataclass(slots=True)
class Server:
    """One uvicorn process under test."""

    name: str
    port: int
    process: asyncio.subprocess.Process
    path: str

    def request(self, token: str, first: int) -> bytes:
        """The request this server answers with a page of ``first`` contacts."""
        if self.name in GRAPHQL_SERVERS:
            body = orjson.dumps({"query": QUERY % first})
        else:
            body = orjson.dumps({"object": "contacts", "first": first})
        return client.post(self.port, self.path, body, token)


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as sock:
        sock.bind((client.HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def serve(
    name: str,
    dsn: str,
    factory: str | None = None,
    path: str | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Server]:
    """Run one app (``factory``, by default the records benchmark's ``name``) under uvicorn
    (one worker, no access log) until the block ends; ``path`` is the route to load, ``env``
    more environment."""
    port = free_port()
    # The API alone: no Dreamer worker in the process under test.
    env = {
        **os.environ,
        "DATABASE_URL": dsn,
        "SKILLMEM_INTROSPECTION": "false",
        "SKILLMEM_WORKER": "false",
        **SERVER_ENV.get(name, {}),
        **(env or {}),
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "uvicorn",
        factory or SERVERS[name],
        "--factory",
        "--host",
        client.HOST,
        "--port",
        str(port),
        "--workers",
        "1",
        "--loop",
        "uvloop",
        "--http",
        "httptools",
        "--no-access-log",
        "--log-level",
        "warning",
        cwd=CHECKOUT,
        env=env,
    )
    if path is None:
        path = "/graphql" if name in GRAPHQL_SERVERS else "/records"
    server = Server(name, port, process, path)
    try:
        await _wait_ready(server)
        yield server
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 15)
            except TimeoutError:
                process.kill()
                await process.wait()


async def _wait_ready(server: Server) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if server.process.returncode is not None:
            raise RuntimeError(f"{server.name} exited with {server.process.returncode}")
        with contextlib.suppress(OSError):
            status, _ = await client.fetch(server.port, client.get(server.port, "/healthz"))
            if status == 200:
                return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"{server.name} did not answer on port {server.port}")


# --- SQL statements per request -------------------------------------------------------------


def _statement_name(query: str) -> str:
    if query.startswith("BEGIN") and "app_begin_cached" in query:
        return query.split(";")[0] + " + settings"  # a cached principal's one round trip
    for domain in ("identity", "records"):
        for name, text in queries(domain).items():
            if text == query.strip():
                return name
    return " ".join(query.split())[:60]


def _counted(logged: list[str]) -> dict[str, Any]:
    control = [q for q in logged if q.strip().upper().startswith(TRANSACTION_CONTROL)]
    data = [q for q in logged if q not in control]
    return {
        "data": len(data),
        "transaction_control": len(control),
        "statements": [_statement_name(q) for q in logged],
    }


async def count_statements(dsn: str, token: str) -> dict[str, Any]:
    """SQL statements of one GraphQL request per page size, the app run in-process with its
    principal cache: on a miss (the token resolved by app_begin_request) and on a hit."""
    logged: list[str] = []
    pool = await create_pool(dsn, min_size=1, max_size=1)
    listener = Listener(dsn, name="bench-principals")
    cache = PrincipalCache(listener, ttl=60.0, size=10)
    await listener.start()
    try:
        async with pool.acquire() as conn:
            conn.add_query_logger(lambda record: logged.append(record.query))
        app = create_app(Settings(database_url=dsn, introspection=False), pool=pool)
        app.state.principals = cache
        transport = httpx.ASGITransport(app=app)
        headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
        found: dict[str, Any] = {}
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
            for first in COUNTED_SIZES:
                body = {"query": QUERY % first}
                await http.post("/graphql", json=body, headers=headers)  # warm the connection
                for case in ("miss", "hit"):
                    if case == "miss":
                        cache.entries.clear()
                    await asyncio.sleep(0.01)
                    logged.clear()
                    response = await http.post("/graphql", json=body, headers=headers)
                    await asyncio.sleep(0.01)  # loggers are called soon after, not inline
                    edges = response.json()["data"]["records"]["edges"]
                    assert len(edges) == first, (first, len(edges))
                    found[f"{first} ({case})"] = _counted(logged)
    finally:
        await listener.stop()
        await pool.close()
    return found


# --- same data ------------------------------------------------------------------------------


async def check_same_data(servers: dict[str, Server], token: str) -> dict[str, Any]:
    """Assert that GraphQL and the baseline return identical data; describe the page."""
    seen: dict[str, Any] = {}
    for first in COUNTED_SIZES:
        bodies = {}
        for name, server in servers.items():
            status, raw = await client.fetch(server.port, server.request(token, first))
            body = orjson.loads(raw)
            assert status == 200 and "errors" not in body, (name, status, raw[:500])
            bodies[name] = body["data"]
        for name in GRAPHQL_SERVERS:
            if name in bodies and bodies[name] != bodies["baseline"]:
                raise AssertionError(f"{name} and baseline data differ at first={first}")
        edges = bodies["graphql"]["records"]["edges"]
        assert len(edges) == first
        seen[str(first)] = {
            "edges": len(edges),
            "with_relation": sum(e["node"]["relation"] is not None for e in edges),
            "bytes": len(orjson.dumps(bodies["graphql"])),
        }
    return seen


# --- load -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Totals:
    """One server's measurements at one concurrency, over all its slices."""

    latencies_ns: list[int]
    seconds: float = 0.0
    errors: int = 0
    server_cpu: float = 0.0
    postgres_cpu: float = 0.0
    client_cpu: float = 0.0
    other_cpu: float = 0.0
    slice_rps: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        n = len(self.latencies_ns)
        ordered = sorted(self.latencies_ns)

        def quantile(q: float) -> float:
            return ordered[min(n - 1, int(q * n))] / 1e6 if n else float("nan")

        return {
            "requests": n,
            "errors": self.errors,
            "seconds": round(self.seconds, 2),
            "rps": round(n / self.seconds, 1) if self.seconds else 0.0,
            "slice_rps": self.slice_rps,
            "p50_ms": round(quantile(0.50), 2),
            "p99_ms": round(quantile(0.99), 2),
            "server_cpu_ms_per_request": round(1000 * self.server_cpu / n, 3) if n else None,
            "postgres_cpu_ms_per_request": round(1000 * self.postgres_cpu / n, 3) if n else None,
            "client_cpu_ms_per_request": round(1000 * self.client_cpu / n, 3) if n else None,
            # CPU the rest of the machine used meanwhile, in cores: a noise indicator.
            "other_cores": round(self.other_cpu / self.seconds, 2) if self.seconds else None,
        }


class CpuMeter:
    """CPU seconds used so far by a process, and by a PostgreSQL server's processes."""

    def __init__(self, postmaster_pid: int | None) -> None:
        self.postmaster = psutil.Process(postmaster_pid) if postmaster_pid else None

    @staticmethod
    def busy() -> float:
        """CPU seconds the whole machine has been busy."""
        times = psutil.cpu_times()
        return float(sum(times) - times.idle - getattr(times, "iowait", 0.0))

    @staticmethod
    def of(pid: int) -> float:
        times = psutil.Process(pid).cpu_times()
        return float(times.user + times.system)

    def postgres(self) -> float:
        """CPU seconds of the server: its processes, live and ended (reaped by the postmaster)."""
        if self.postmaster is None:
            return 0.0
        own = self.postmaster.cpu_times()
        total = own.user + own.system + own.children_user + own.children_system
        for proc in self.postmaster.children():
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                total += times.user + times.system
        return float(total)


async def wait_quiet(meter: CpuMeter, limit: float, threshold: float = 0.25) -> float:
    """Wait (up to ``limit`` seconds) until the machine is nearly idle; return its load."""
    deadline = time.monotonic() + limit
    while True:
        busy = meter.busy()
        await asyncio.sleep(2.0)
        cores = (meter.busy() - busy) / 2.0
        if cores < threshold or time.monotonic() >= deadline:
            return round(cores, 2)


async def measure(
    servers: dict[str, Server],
    token: str,
    concurrency: int,
    seconds: float,
    slices: int,
    warmup: float,
    meter: CpuMeter,
) -> dict[str, Any]:
    """Load each server with a page of contacts (see load_slices)."""
    requests = {name: s.request(token, PAGE_SIZE) for name, s in servers.items()}
    return await load_slices(servers, requests, concurrency, seconds, slices, warmup, meter)


async def load_slices(
    servers: dict[str, Server],
    requests: dict[str, bytes | Callable[[], bytes]],
    concurrency: int,
    seconds: float,
    slices: int,
    warmup: float,
    meter: CpuMeter,
) -> dict[str, Any]:
    """Load each server with its request for ``seconds`` in ``slices`` alternating slices,
    after a warm-up; each server's figures and the GraphQL/baseline ratio."""
    for name, server in servers.items():
        await client.load(server.port, requests[name], concurrency, warmup)
    totals = {name: Totals([]) for name in servers}
    names = list(servers)
    for index in range(slices):
        for name in names if index % 2 == 0 else names[::-1]:
            server = servers[name]
            assert server.process.pid is not None
            cpu, pg, busy = meter.of(server.process.pid), meter.postgres(), meter.busy()
            run = await client.load(server.port, requests[name], concurrency, seconds / slices)
            total = totals[name]
            cpu, pg = meter.of(server.process.pid) - cpu, meter.postgres() - pg
            total.server_cpu += cpu
            total.postgres_cpu += pg
            total.other_cpu += max(0.0, meter.busy() - busy - cpu - pg - run.client_cpu_seconds)
            total.latencies_ns += run.latencies_ns
            total.seconds += run.seconds
            total.errors += run.errors
            total.client_cpu += run.client_cpu_seconds
            total.slice_rps.append(round(len(run.latencies_ns) / run.seconds, 1))
    result: dict[str, Any] = {"concurrency": concurrency}
    for name, total in totals.items():
        result[name] = total.summary()
        if meter.postmaster is None:  # DATABASE_URL's server: its processes are not ours
            result[name]["postgres_cpu_ms_per_request"] = None
    result["ratio"] = round(result["graphql"]["rps"] / result["baseline"]["rps"], 3)
    if "uncached" in result:
        result["uncached_ratio"] = round(result["uncached"]["rps"] / result["baseline"]["rps"], 3)
        result["cache_gain"] = round(result["graphql"]["rps"] / result["uncached"]["rps"], 3)
    if UNPLANNED in result:
        result["planned_ratio"] = round(result["graphql"]["rps"] / result[UNPLANNED]["rps"], 3)
    return result


def unplanned_markdown(report: dict[str, Any]) -> list[str]:
    """The planned executor against graphql-core alone, when --unplanned measured both."""
    rows = [row for row in report["load"] if UNPLANNED in row]
    if not rows:
        return []
    lines = [
        "",
        "| concurrency | planned req/s | server CPU ms/req | graphql-core alone req/s "
        "| server CPU ms/req | planned/alone |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        g, u = row["graphql"], row[UNPLANNED]
        lines.append(
            f"| {row['concurrency']} | {g['rps']:,.0f} | {g['server_cpu_ms_per_request']} "
            f"| {u['rps']:,.0f} | {u['server_cpu_ms_per_request']} | {row['planned_ratio']:.2f}x |"
        )
    return lines


# --- report ---------------------------------------------------------------------------------


def machine(server_version: str) -> dict[str, Any]:
    """What the figures were measured on."""
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=CHECKOUT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": model,
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "postgresql": server_version,
        "packages": {name: metadata.version(name) for name in PACKAGES},
        "commit": commit,
    }


def _load_rows(report: dict[str, Any]) -> list[str]:
    lines = [
        "| concurrency | GraphQL req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms "
        "| GraphQL/baseline | cache off req/s | cache off/baseline | cache on/off |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["load"]:
        g, b, u = row["graphql"], row["baseline"], row.get("uncached")
        off = (
            f"{u['rps']:,.0f} | {row['uncached_ratio']:.2f}x | {row['cache_gain']:.2f}x"
            if u
            else "- | - | -"
        )
        lines.append(
            f"| {row['concurrency']} | {g['rps']:,.0f} | {g['p50_ms']:.2f} | {g['p99_ms']:.2f} "
            f"| {b['rps']:,.0f} | {b['p50_ms']:.2f} | {b['p99_ms']:.2f} | {row['ratio']:.2f}x "
            f"| {off} |"
        )
    return lines


def _cpu_rows(report: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "| concurrency | server CPU ms/req GraphQL | cache off | baseline "
        "| PostgreSQL CPU ms/req GraphQL | cache off | baseline | other load (cores) "
        "| errors GraphQL / baseline |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["load"]:
        g, b = row["graphql"], row["baseline"]
        u = row.get("uncached") or {}
        lines.append(
            f"| {row['concurrency']} | {g['server_cpu_ms_per_request']} "
            f"| {u.get('server_cpu_ms_per_request', '-')} "
            f"| {b['server_cpu_ms_per_request']} | {g['postgres_cpu_ms_per_request']} "
            f"| {u.get('postgres_cpu_ms_per_request', '-')} "
            f"| {b['postgres_cpu_ms_per_request']} "
            f"| {g['other_cores']} / {b['other_cores']} | {g['errors']} / {b['errors']} |"
        )
    return lines


def markdown(report: dict[str, Any]) -> str:
    """The report's tables."""
    lines = _load_rows(report)
    if report["load"]:
        lines += _cpu_rows(report)
    lines += [
        "",
        "| first | data statements | BEGIN/COMMIT | statements in order |",
        "|---:|---:|---:|---|",
    ]
    for first, row in report["statements"].items():
        order = ", ".join(row["statements"])
        lines.append(f"| {first} | {row['data']} | {row['transaction_control']} | {order} |")
    return "\n".join(lines + unplanned_markdown(report))


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    """Generate, count, check and load; print and save the report."""
    data: BenchData = await ensure(server, fresh=args.fresh)
    verb = "generated" if data.generated else "reused"
    print(f"data: {verb} in {data.seconds:.1f} s: {data.counts}", flush=True)
    conn = await asyncpg.connect(data.dsn)
    try:
        server_version = str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m bench.records " + " ".join(sys.argv[1:]),
        "machine": machine(server_version),
        "data": {"counts": data.counts, "generated": data.generated, "seconds": data.seconds},
        "settings": {
            "seconds": args.seconds,
            "slices": args.slices,
            "warmup": args.warmup,
            "concurrency": args.concurrency,
            "wait_quiet": args.wait_quiet,
            "page_size": PAGE_SIZE,
            "query": QUERY % PAGE_SIZE,
        },
    }
    report["statements"] = await count_statements(data.dsn, data.token)
    print("statements per request:", report["statements"], flush=True)
    report["backend"] = await backend_cost(data, args, postmaster_pid)
    print(backend.markdown(report["backend"]), flush=True)
    report["load"] = []
    if args.backend_only:
        write_results("records", report, backend.markdown(report["backend"]))
        return 0
    async with contextlib.AsyncExitStack() as stack:
        servers = {name: await stack.enter_async_context(serve(name, data.dsn)) for name in SERVERS}
        if args.unplanned:
            servers[UNPLANNED] = await stack.enter_async_context(
                serve(UNPLANNED, data.dsn, SERVERS["graphql"], "/graphql")
            )
        report["same_data"] = await check_same_data(servers, data.token)
        print("same data:", report["same_data"], flush=True)
        meter = CpuMeter(postmaster_pid)
        report["idle_load_before"] = []
        for concurrency in args.concurrency:
            idle = await wait_quiet(meter, args.wait_quiet)
            report["idle_load_before"].append(idle)
            if idle >= 0.25:
                print(f"warning: the machine is busy ({idle} cores) before c={concurrency}")
            row = await measure(
                servers, data.token, concurrency, args.seconds, args.slices, args.warmup, meter
            )
            report["load"].append(row)
            g, b = row["graphql"], row["baseline"]
            print(
                f"c={concurrency}: graphql {g['rps']} req/s p50 {g['p50_ms']} p99 {g['p99_ms']}; "
                f"baseline {b['rps']} req/s p50 {b['p50_ms']} p99 {b['p99_ms']}; "
                f"ratio {row['ratio']}; planned/alone {row.get('planned_ratio')}",
                flush=True,
            )
    write_results(
        "records", report, markdown(report) + "\n\n" + backend.markdown(report["backend"])
    )
    return 0


async def backend_cost(
    data: BenchData, args: argparse.Namespace, postmaster_pid: int | None
) -> dict[str, Any]:
    """PostgreSQL CPU and statements per records page, on one backend (bench/backend.py)."""

    def check(name: str, body: dict[str, Any]) -> None:
        assert len(body["data"]["records"]["edges"]) == PAGE_SIZE, (name, str(body)[:300])

    bodies = {f"records page of {PAGE_SIZE}": orjson.dumps({"query": QUERY % PAGE_SIZE})}
    local = postmaster_pid is not None
    return await backend.per_request(
        api_dsn(data.dsn), data.token, bodies, args.backend_seconds, check, local
    )


def write_results(name: str, report: dict[str, Any], tables: str) -> None:
    """Print the tables and keep the figures in bench/results/<name>-<time>.json."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = RESULTS / f"{name}-{stamp}.json"
    path.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))
    print()
    print(tables)
    print(f"\nresults: {path.relative_to(CHECKOUT)}")


def levels(text: str) -> list[int]:
    """Concurrency levels from "1,8,32"."""
    return [int(part) for part in text.split(",") if part.strip()]


def main() -> int:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=15.0, help="measured time per server and concurrency"
    )
    parser.add_argument("--slices", type=int, default=6, help="alternating slices per server")
    parser.add_argument("--warmup", type=float, default=5.0, help="warm-up seconds per server")
    parser.add_argument(
        "--concurrency", type=levels, default=[1, 8, 32], help="comma-separated levels"
    )
    parser.add_argument("--fresh", action="store_true", help="regenerate the data")
    parser.add_argument(
        "--unplanned",
        action="store_true",
        help="also load the app with graphql-core alone (SKILLMEM_PLANNED_EXECUTION=false)",
    )
    parser.add_argument(
        "--backend-seconds", type=float, default=5.0, help="sequential requests on one backend"
    )
    parser.add_argument(
        "--backend-only", action="store_true", help="only the one-backend CPU and statements"
    )
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=120.0,
        help="seconds to wait at most for an idle machine before each concurrency level",
    )
    return run(bench, parser.parse_args())


def run(
    bench: Callable[[argparse.Namespace, str, int | None], Awaitable[int]],
    args: argparse.Namespace,
) -> int:
    """Run a benchmark on the bench's PostgreSQL server (under uvloop when it is there)."""
    server, handle = server_dsn()
    postmaster = handle.get_pid() if handle is not None else None
    try:
        import uvloop
    except ImportError:
        return asyncio.run(bench(args, server, postmaster))
    return uvloop.run(bench(args, server, postmaster))


if __name__ == "__main__":
    sys.exit(main())
