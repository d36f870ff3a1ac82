"""The records page against its peer: skillmem, the plain baseline and PostGraphile 5, and
skillmem at 1 and 2 worker processes, all loaded by the same client in the same run.

`make bench-peer` installs PostGraphile under bench/peer/ (Node 22 from npm, never a test
dependency) and runs `python -m bench.records_peer`, which starts the bench's PostgreSQL
(bench/generate.py: DATABASE_URL's server, or the embedded one in .data/bench-postgres), then:

1. serves the records page `records(object: "contacts", first: 20)` with each contact's company
   from skillmem (uvicorn, one worker, as bench/records.py), the hand-written baseline
   (bench/baseline.py), PostGraphile connecting as the database owner (a superuser: no
   row-level security, no transaction), and PostGraphile whose every request sets `role` to the
   application role and `app.workspace_id` to the bench workspace first (pgSettings: the same
   row-level security policies as skillmem, but no token, no permission filter);
2. checks that the four return the same records for the same page (ids, labels, values and the
   company's, mapped between the two APIs' shapes) at first: 1 and 20, that the RLS variant
   runs as the application role, and counts each side's SQL statements per page;
3. loads them in interleaved rounds (each server `--seconds` per round, the order rotated every
   round) at each concurrency; reports the median of the rounds' requests/s, the same-round
   ratios, latency and CPU per request (the server's, PostgreSQL's);
4. the same for `skillmem serve --workers 1` against `--workers 2` (`--workers-concurrency`).

It prints Markdown tables and writes the figures to bench/results/peer-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import statistics
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg
import orjson
import psutil

from bench import client
from bench.generate import WORKSPACE_ID, BenchData, ensure
from bench.records import (
    CHECKOUT,
    PAGE_SIZE,
    QUERY,
    TRANSACTION_CONTROL,
    CpuMeter,
    Server,
    _wait_ready,
    count_statements,
    free_port,
    levels,
    machine,
    run,
    serve,
    wait_quiet,
    write_results,
)
from gateway.settings import Settings
from resolvers.common import ids

PEER_DIR = CHECKOUT / "bench" / "peer"
NODE = PEER_DIR / "node_modules" / ".bin" / "node"
APP_ROLE = "skillmem_app"
CHECKED_SIZES = (1, PAGE_SIZE)
PEER_QUERY = (
    '{ objectByWorkspaceIdAndSlug(workspaceId: %s, slug: "contacts") { '
    "recordsByWorkspaceIdAndObjectId(first: %d, orderBy: SEQ_ASC) { edges { cursor node { "
    "id label values recordLinksByWorkspaceIdAndRecordId(condition: {attributeSlug: "
    '"company"}) { nodes { recordByWorkspaceIdAndTargetId { id label values } } } } } } } }'
)


# --- servers --------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def process(
    name: str, argv: list[str], env: dict[str, str], port: int, path: str
) -> AsyncIterator[Server]:
    """Run ``argv`` (a server listening on ``port``) until the block ends."""
    proc = await asyncio.create_subprocess_exec(*argv, cwd=CHECKOUT, env=env)
    server = Server(name, port, proc, path)
    try:
        await _wait_ready(server)
        yield server
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()


def postgraphile(
    name: str, dsn: str, *, rls: bool
) -> contextlib.AbstractAsyncContextManager[Server]:
    """PostGraphile over ``dsn`` (bench/peer/server.mjs), with the application role and the
    bench workspace set in each request's transaction when ``rls``."""
    if not NODE.exists():
        raise SystemExit(f"{NODE.relative_to(CHECKOUT)} is missing: run `make bench-peer`")
    port = free_port()
    env = {
        **os.environ,
        "NODE_ENV": "production",
        "PEER_DATABASE_URL": dsn,
        "PEER_HOST": client.HOST,
        "PEER_PORT": str(port),
        "PEER_POOL_MAX": str(Settings().pool_max_size),
    }
    if rls:
        env |= {"PEER_ROLE": APP_ROLE, "PEER_WORKSPACE_ID": str(WORKSPACE_ID)}
    argv = [str(NODE), str(PEER_DIR / "server.mjs")]
    return process(name, argv, env, port, "/graphql")


def skillmem_cli(dsn: str, workers: int) -> contextlib.AbstractAsyncContextManager[Server]:
    """`skillmem serve --workers N` over ``dsn`` (no Dreamer worker, warnings only)."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": dsn,
        "SKILLMEM_INTROSPECTION": "false",
        "SKILLMEM_WORKER": "false",
        "SKILLMEM_LOG_LEVEL": "warning",
    }
    argv = [
        str(Path(sys.executable).parent / "skillmem"),
        "serve",
        "--host",
        client.HOST,
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    return process(f"workers={workers}", argv, env, port, "/graphql")


def page_request(server: Server, token: str, first: int) -> bytes:
    """The request for a page of ``first`` contacts in this server's API."""
    if server.name == "baseline":
        body = orjson.dumps({"object": "contacts", "first": first})
    elif server.name.startswith("postgraphile"):
        body = orjson.dumps({"query": PEER_QUERY % (json.dumps(str(WORKSPACE_ID)), first)})
    else:
        body = orjson.dumps({"query": QUERY % first})
    return client.post(server.port, server.path, body, token)


# --- same records ---------------------------------------------------------------------------

Row = tuple[UUID, str, Any, tuple[UUID, str, Any] | None]


def _peer_id(node_id: str) -> UUID:
    """The record's uuid in a PostGraphile node id (base64 of ["Record", workspace, id])."""
    kind, workspace, local = json.loads(base64.b64decode(node_id))
    assert kind == "Record" and UUID(workspace) == WORKSPACE_ID, node_id
    return UUID(local)


def rows_of(name: str, data: dict[str, Any]) -> list[Row]:
    """The page's records, each (id, label, values, company or None), from either API."""
    found: list[Row] = []
    if name.startswith("postgraphile"):
        connection = data["objectByWorkspaceIdAndSlug"]["recordsByWorkspaceIdAndObjectId"]
        for edge in connection["edges"]:
            node = edge["node"]
            links = node["recordLinksByWorkspaceIdAndRecordId"]["nodes"]
            target = links[0]["recordByWorkspaceIdAndTargetId"] if links else None
            company = (
                (_peer_id(target["id"]), target["label"], target["values"]) if target else None
            )
            found.append((_peer_id(node["id"]), node["label"], node["values"], company))
        return found
    for edge in data["records"]["edges"]:
        node, parent = edge["node"], edge["node"]["relation"]
        local = ids.decode(node["id"], "Record", WORKSPACE_ID)
        company = None
        if parent is not None:
            target = ids.decode(parent["id"], "Record", WORKSPACE_ID)
            company = (target, parent["label"], parent["values"])
        found.append((local, node["label"], node["values"], company))
    return found


async def check_same_records(servers: dict[str, Server], token: str) -> dict[str, Any]:
    """Assert that every server returns the same records for the same page."""
    seen: dict[str, Any] = {}
    for first in CHECKED_SIZES:
        pages: dict[str, list[Row]] = {}
        sizes: dict[str, int] = {}
        for name, server in servers.items():
            status, raw = await client.fetch(server.port, page_request(server, token, first))
            body = orjson.loads(raw)
            assert status == 200 and not body.get("errors"), (name, status, raw[:500])
            pages[name] = rows_of(name, body["data"])
            sizes[name] = len(raw)
        reference = next(iter(pages.values()))
        for name, rows in pages.items():
            if rows != reference:
                raise AssertionError(f"{name} returns other records at first={first}")
        assert len(reference) == first
        seen[str(first)] = {
            "records": first,
            "with_company": sum(row[3] is not None for row in reference),
            "response_bytes": sizes,
        }
    return seen


ROLE_PROBE = b'{"query": "{ allSchemaMigrations { totalCount } }"}'


async def check_roles(servers: dict[str, Server]) -> dict[str, str]:
    """Show that PostGraphile's RLS variant runs as the application role: it may not read
    `schema_migrations` (no grant to that role), which the owner variant reads."""
    found = {}
    for name in ("postgraphile", "postgraphile_rls"):
        server = servers[name]
        request = client.post(server.port, server.path, ROLE_PROBE, "none")
        _, raw = await client.fetch(server.port, request)
        body = orjson.loads(raw)
        refused = bool(body.get("errors"))
        assert refused == (name == "postgraphile_rls"), (name, raw[:300])
        found[name] = f"refused: {body['errors'][0]['message']}" if refused else "read"
    print("schema_migrations:", found, flush=True)
    return found


async def peer_statements(server: Server, token: str) -> dict[str, Any]:
    """The SQL statements PostGraphile sends for one page of 20 (server.mjs notes them)."""
    request = page_request(server, token, PAGE_SIZE)
    await client.fetch(server.port, request)  # warm: prepared statements, pool
    await client.fetch(server.port, client.get(server.port, "/statements"))
    await client.fetch(server.port, request)
    _, raw = await client.fetch(server.port, client.get(server.port, "/statements"))
    sent = [" ".join(text.split()) for text in orjson.loads(raw)["statements"]]
    control = [t for t in sent if t.upper().startswith(TRANSACTION_CONTROL)]
    return {
        "data": len(sent) - len(control),
        "transaction_control": len(control),
        "statements": [t[:80] for t in sent],
    }


async def count_all(servers: dict[str, Server], data: BenchData, report: dict[str, Any]) -> None:
    """Statements per page of 20: skillmem's (in-process, as bench/records.py counts them)
    and PostGraphile's."""
    counted = await count_statements(data.dsn, data.token)
    found = {
        "graphql (token cached)": counted[f"{PAGE_SIZE} (hit)"],
        "graphql (token looked up)": counted[f"{PAGE_SIZE} (miss)"],
    }
    for name, server in servers.items():
        if name.startswith("postgraphile"):
            found[name] = await peer_statements(server, data.token)
    report["statements"] = found
    for name, row in found.items():
        print(f"statements {name}: {row}", flush=True)


# --- interleaved rounds ---------------------------------------------------------------------


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its live children (uvicorn's worker processes)."""
    proc = psutil.Process(pid)
    total = CpuMeter.of(pid)
    for child in proc.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            times = child.cpu_times()
            total += times.user + times.system
    return total


@dataclass(slots=True)
class Rounds:
    """One server's rounds at one concurrency."""

    rps: list[float] = field(default_factory=list)
    latencies_ns: list[int] = field(default_factory=list)
    requests: int = 0
    errors: int = 0
    server_cpu: float = 0.0
    postgres_cpu: float = 0.0

    def cpu_per_request(self) -> float:
        """CPU seconds per request of the server's processes and PostgreSQL's."""
        n = len(self.latencies_ns)
        return (self.server_cpu + self.postgres_cpu) / n if n else 0.0

    def summary(self, postgres_measured: bool) -> dict[str, Any]:
        ordered = sorted(self.latencies_ns)
        n = len(ordered)

        def quantile(q: float) -> float:
            return round(ordered[min(n - 1, int(q * n))] / 1e6, 2) if n else float("nan")

        per_request = 1000 / n if n else 0.0
        return {
            "rps_median": round(statistics.median(self.rps), 1),
            "rps_rounds": self.rps,
            "requests": n,
            "errors": self.errors,
            "p50_ms": quantile(0.50),
            "p99_ms": quantile(0.99),
            "server_cpu_ms_per_request": round(self.server_cpu * per_request, 3),
            "postgres_cpu_ms_per_request": (
                round(self.postgres_cpu * per_request, 3) if postgres_measured else None
            ),
        }


async def rounds(
    servers: dict[str, Server],
    requests: dict[str, bytes],
    concurrency: int,
    args: argparse.Namespace,
    meter: CpuMeter,
) -> dict[str, Rounds]:
    """Warm each server up, then ``args.rounds`` rounds in which each runs ``args.seconds``,
    the order rotated by one every round."""
    for name, server in servers.items():
        await client.load(server.port, requests[name], concurrency, args.warmup)
    found = {name: Rounds() for name in servers}
    names = list(servers)
    for index in range(args.rounds):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            server, total = servers[name], found[name]
            assert server.process.pid is not None
            cpu, pg = tree_cpu(server.process.pid), meter.postgres()
            done = await client.load(server.port, requests[name], concurrency, args.seconds)
            total.server_cpu += tree_cpu(server.process.pid) - cpu
            total.postgres_cpu += meter.postgres() - pg
            total.rps.append(round(len(done.latencies_ns) / done.seconds, 1))
            total.latencies_ns += done.latencies_ns
            total.errors += done.errors
    return found


def ratios(found: dict[str, Rounds], pairs: list[tuple[str, str]]) -> dict[str, float]:
    """For each pair a/b: the median over rounds of a's req/s over b's (same round), and
    ("a/b cpu") b's CPU per request (its server's and PostgreSQL's) over a's, the throughput
    ratio a machine saturated by these two alone would show, which other load disturbs less."""
    found_ratios = {}
    for a, b in pairs:
        rounds_ = zip(found[a].rps, found[b].rps, strict=True)
        found_ratios[f"{a}/{b}"] = round(statistics.median(x / y for x, y in rounds_), 3)
        cost_a, cost_b = found[a].cpu_per_request(), found[b].cpu_per_request()
        found_ratios[f"{a}/{b} cpu"] = round(cost_b / cost_a, 3) if cost_a else float("nan")
    return found_ratios


async def measure_all(
    servers: dict[str, Server],
    token: str,
    levels_: list[int],
    pairs: list[tuple[str, str]],
    args: argparse.Namespace,
    meter: CpuMeter,
) -> list[dict[str, Any]]:
    """Rounds at every concurrency: a row each with every server's summary and the ratios."""
    requests = {name: page_request(s, token, PAGE_SIZE) for name, s in servers.items()}
    rows = []
    for concurrency in levels_:
        idle = await wait_quiet(meter, args.wait_quiet)
        found = await rounds(servers, requests, concurrency, args, meter)
        row: dict[str, Any] = {"concurrency": concurrency, "idle_load_before": idle}
        for name, total in found.items():
            row[name] = total.summary(meter.postmaster is not None)
        row["ratios"] = ratios(found, pairs)
        rows.append(row)
        medians = ", ".join(f"{n} {row[n]['rps_median']}" for n in found)
        print(f"c={concurrency} (load before {idle}): {medians}; {row['ratios']}", flush=True)
    return rows


# --- report ---------------------------------------------------------------------------------

PEER_NAMES = ("graphql", "baseline", "postgraphile", "postgraphile_rls")
PEER_PAIRS = [("graphql", "baseline"), ("graphql", "postgraphile"), ("graphql", "postgraphile_rls")]
WORKER_PAIRS = [("workers=2", "workers=1")]


def _detail(rows: list[dict[str, Any]], names: list[str]) -> list[str]:
    lines = [
        "| c | server | req/s (median) | rounds | p50 ms | p99 ms | server CPU ms/req "
        "| PostgreSQL CPU ms/req | errors |",
        "|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        for name in names:
            s = row[name]
            lines.append(
                f"| {row['concurrency']} | {name} | {s['rps_median']:,.0f} "
                f"| {' '.join(f'{r:.0f}' for r in s['rps_rounds'])} | {s['p50_ms']:.2f} "
                f"| {s['p99_ms']:.2f} | {s['server_cpu_ms_per_request']} "
                f"| {s['postgres_cpu_ms_per_request']} | {s['errors']} |"
            )
    return lines


def _ratio(row: dict[str, Any], a: str, b: str) -> str:
    r = row["ratios"]
    return f"{r[f'{a}/{b}']:.2f}x ({r[f'{a}/{b} cpu']:.2f}x)"


def markdown(report: dict[str, Any]) -> str:
    """The report's tables."""
    lines: list[str] = []
    if report.get("peer"):
        lines += [
            "| c | skillmem req/s | baseline | PostGraphile (owner) | PostGraphile (RLS role) "
            "| skillmem/baseline (by CPU) | skillmem/PostGraphile (by CPU) "
            "| skillmem/PostGraphile RLS (by CPU) |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in report["peer"]:
            lines.append(
                f"| {row['concurrency']} | "
                + " | ".join(f"{row[n]['rps_median']:,.0f}" for n in PEER_NAMES)
                + " | "
                + " | ".join(_ratio(row, a, b) for a, b in PEER_PAIRS)
                + " |"
            )
        lines += ["", *_detail(report["peer"], list(PEER_NAMES)), ""]
    if report.get("workers"):
        lines += [
            "| c | 1 worker req/s | 2 workers req/s | 2 workers / 1 (by CPU) |",
            "|---:|---:|---:|---:|",
        ]
        for row in report["workers"]:
            lines.append(
                f"| {row['concurrency']} | {row['workers=1']['rps_median']:,.0f} "
                f"| {row['workers=2']['rps_median']:,.0f} "
                f"| {_ratio(row, 'workers=2', 'workers=1')} |"
            )
        lines += ["", *_detail(report["workers"], ["workers=1", "workers=2"])]
    return "\n".join(lines)


async def versions() -> dict[str, str]:
    """Node's and PostGraphile's versions."""
    proc = await asyncio.create_subprocess_exec(
        str(NODE), "--version", stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate()
    package = PEER_DIR / "node_modules" / "postgraphile" / "package.json"
    return {
        "node": out.decode().strip(),
        "postgraphile": json.loads(package.read_text())["version"],
    }


async def roles(dsn: str) -> dict[str, Any]:
    """Who each side runs as: the login role, and the role requests switch to."""
    conn = await asyncpg.connect(dsn)
    try:
        login = await conn.fetchrow(
            "SELECT current_user AS name, rolsuper, rolbypassrls FROM pg_roles"
            " WHERE rolname = current_user"
        )
        app = await conn.fetchrow(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = $1", APP_ROLE
        )
        server_version = str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()
    assert login is not None and app is not None
    return {
        "server_version": server_version,
        "login": dict(login),
        "app_role": {"name": APP_ROLE, **dict(app)},
    }


async def peer_part(
    data: BenchData, args: argparse.Namespace, meter: CpuMeter, report: dict[str, Any]
) -> None:
    """skillmem, the baseline and PostGraphile (both ways): same records, then rounds."""
    async with (
        serve("graphql", data.dsn) as graphql,
        serve("baseline", data.dsn) as baseline,
        postgraphile("postgraphile", data.dsn, rls=False) as owner,
        postgraphile("postgraphile_rls", data.dsn, rls=True) as rls,
    ):
        servers = {s.name: s for s in (graphql, baseline, owner, rls)}
        report["same_records"] = await check_same_records(servers, data.token)
        print("same records:", report["same_records"], flush=True)
        report["schema_migrations_probe"] = await check_roles(servers)
        await count_all(servers, data, report)
        report["peer"] = await measure_all(
            servers, data.token, args.concurrency, PEER_PAIRS, args, meter
        )


async def workers_part(
    data: BenchData, args: argparse.Namespace, meter: CpuMeter, report: dict[str, Any]
) -> None:
    """`skillmem serve --workers 1` against `--workers 2`."""
    async with skillmem_cli(data.dsn, 1) as one, skillmem_cli(data.dsn, 2) as two:
        servers = {s.name: s for s in (one, two)}
        report["workers_same_records"] = await check_same_records(servers, data.token)
        report["workers"] = await measure_all(
            servers, data.token, args.workers_concurrency, WORKER_PAIRS, args, meter
        )


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    """Generate or reuse the data, run the parts asked for, print and save the report."""
    data = await ensure(server, fresh=args.fresh)
    print(f"data: {'generated' if data.generated else 'reused'}: {data.counts}", flush=True)
    who = await roles(data.dsn)
    report: dict[str, Any] = {
        "command": "python -m bench.records_peer " + " ".join(sys.argv[1:]),
        "machine": machine(who["server_version"]),
        "peer_versions": await versions() if args.only != "workers" else None,
        "roles": who,
        "data": data.counts,
        "settings": {
            key: getattr(args, key)
            for key in ("seconds", "rounds", "warmup", "concurrency", "workers_concurrency")
        }
        | {"query": QUERY % PAGE_SIZE, "peer_query": PEER_QUERY % ('"…"', PAGE_SIZE)},
    }
    meter = CpuMeter(postmaster_pid)
    if args.only in ("both", "peer"):
        await peer_part(data, args, meter, report)
    if args.only in ("both", "workers"):
        await workers_part(data, args, meter, report)
    write_results("peer", report, markdown(report))
    return 0


def main() -> int:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per server and round")
    parser.add_argument("--rounds", type=int, default=8, help="interleaved rounds per level")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds per server")
    parser.add_argument("--concurrency", type=levels, default=[1, 8, 32], help="peer levels")
    parser.add_argument(
        "--workers-concurrency", type=levels, default=[8, 32], help="levels for 1 and 2 workers"
    )
    parser.add_argument("--only", choices=("both", "peer", "workers"), default="both")
    parser.add_argument("--fresh", action="store_true", help="regenerate the data")
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=10.0,
        help="seconds to wait at most for an idle machine before each concurrency level",
    )
    return run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
