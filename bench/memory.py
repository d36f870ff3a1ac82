"""The memory benchmark: reading a page of 20 souvenirs, and editing it under concurrent editors,
GraphQL against a baseline.

`python -m bench.memory` (or `make bench-memory`) starts PostgreSQL like bench.records
(DATABASE_URL's server, or the embedded one in .data/bench-postgres), remakes the
`skillmem_bench_memory` database (a workspace of 1,000 companies, each with a page of 20
souvenirs, 10 of them from a private deal the reader cannot open), then:

1. counts the SQL statements of one read and of one edit, in-process;
2. runs the app and the baseline under uvicorn: the baseline is plain Starlette doing the same
   work by hand (the token, the page query of db/queries/memory.sql, the same rendering; for an
   edit, the same resolver function) without GraphQL; it checks both answer the same data;
3. loads each, in alternating slices, reading one page, then editing one (every request
   rewords the page's last souvenir, so every request writes: the editors queue on the page's
   row lock), at every concurrency, reporting requests/s and p50/p99 latency.

It prints Markdown tables and writes the figures to bench/results/memory-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import asyncpg
import httpx
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench import client, records
from bench.baseline import plain_app
from bench.generate import with_database
from bench.records import CpuMeter, Server, machine, wait_quiet
from db import identity, memory
from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from db.sql import queries
from gateway.app import create_app
from gateway.demo import CRM_OBJECTS
from gateway.settings import Settings
from resolvers.common import ids
from resolvers.common.principals import Principal, issue_token, principal_for_token
from resolvers.memory import access, edits, system
from resolvers.records.workspaces import create_object, create_workspace, grant_standard_roles
from resolvers.records.write import write_records

DATABASE = "skillmem_bench_memory"
COMPANIES = 1_000
SOUVENIRS = 20
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
SERVERS = {"graphql": "gateway.app:create_app", "baseline": "bench.memory:create_baseline"}
READ_QUERY = (
    "query($id: ID!) { memoryPage(id: $id) { content contentSha256 souvenirs { key line } } }"
)
EDIT_QUERY = (
    "mutation($id: ID!, $content: String!) "
    "{ editMemoryPage(pageId: $id, content: $content) { version } }"
)
BEGIN_REQUEST = queries("identity")["begin_request"]
ENDPOINTS = ("read", "edit")


def page_content(company: int, deal_gid: str) -> str:
    """20 souvenirs, every other one from a private deal."""
    lines = []
    for i in range(SOUVENIRS):
        source = f" → record:{deal_gid}" if i % 2 else ""
        lines.append(
            f"- Company {company} said thing {i} about how to work with them{source}"
            f" — Claire Morel, 2026-10-{1 + i:02d} [relation]"
        )
    return "\n".join(lines)


async def fresh_database(server: str) -> tuple[str, dict[str, Any]]:
    """Remake and fill the bench database; its DSN and what the load needs."""
    dsn = with_database(server, DATABASE)
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{DATABASE}"')
    finally:
        await admin.close()
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
        async with conn.transaction():
            made = await create_workspace(conn, "Bench")
            for slug, singular, plural, attributes in CRM_OBJECTS:
                object_id = await create_object(conn, slug, singular, plural, attributes)
                await grant_standard_roles(conn, made.roles, object_id)
            reader = await identity.insert_member(
                conn, uuid4(), "Reader", "reader@bench.example", made.roles["member"]
            )
            owner = await identity.insert_member(
                conn, uuid4(), "Owner", "owner@bench.example", made.roles["member"]
            )
            token = await issue_token(conn, "member", member_id=reader.id, purpose="test")
            owner_token = await issue_token(conn, "member", member_id=owner.id, purpose="test")
            as_owner = await principal_for_token(conn, owner_token)
            assert as_owner is not None
            [deal_line] = await write_records(
                conn,
                as_owner,
                [{"object": "deals", "label": "Private deal", "visibility": "private"}],
            )
            deal = deal_line.id
            written = await write_records(
                conn,
                as_owner,
                [{"object": "companies", "label": f"Company {i}"} for i in range(COMPANIES)],
            )
            page_ids = []
            for i, result in enumerate(written):
                local = ids.decode(result.id, "Record", made.workspace_id)
                page_ids.append(
                    await system.create_page(
                        conn,
                        made.workspace_id,
                        "record",
                        local,
                        name=f"Company {i}",
                        content=page_content(i, deal),
                    )
                )
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    target = page_ids[COMPANIES // 2]
    return dsn, {
        "token": token,
        "page": ids.encode("MemoryPage", made.workspace_id, target),
        "workspace_id": made.workspace_id,
    }


# --- the baseline -----------------------------------------------------------------------------


def _reply(status: int, body: Any) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def _token_hash(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return hashlib.sha256(token.strip().encode()).hexdigest()


async def _principal(conn: asyncpg.Connection, request: Request) -> Principal | None:
    token_hash = _token_hash(request)
    row = await identity.begin_request(conn, token_hash) if token_hash else None
    return Principal(row) if row else None


async def baseline_read(request: Request) -> Response:
    """POST {"id": ...}: the GraphQL `memoryPage` data, by hand."""
    body = orjson.loads(await request.body())
    async with request.app.state.pool.acquire() as conn, conn.transaction():
        principal = await _principal(conn, request)
        if principal is None:
            return _reply(401, {"error": "The token is not valid."})
        page_id = ids.decode(body["id"], "MemoryPage", principal.workspace_id)
        row = await memory.page_shown(
            conn, page_id, principal.readable_objects, principal.person_id
        )
        if row is None or not access.may_read(principal, row):
            return _reply(404, {"error": "No memory page with this id."})
    page = access.view(principal, row)
    shown = {
        "content": page.content,
        "contentSha256": page.content_sha256,
        "souvenirs": [{"key": s.key, "line": s.line} for s in page.souvenirs],
    }
    return _reply(200, {"data": {"memoryPage": shown}})


async def baseline_edit(request: Request) -> Response:
    """POST {"id", "content"}: the GraphQL `editMemoryPage` data, by the same resolver."""
    body = orjson.loads(await request.body())
    async with request.app.state.pool.acquire() as conn, conn.transaction():
        principal = await _principal(conn, request)
        if principal is None:
            return _reply(401, {"error": "The token is not valid."})
        page_id = ids.decode(body["id"], "MemoryPage", principal.workspace_id)
        page = await edits.edit_page(conn, principal, page_id, body["content"])
    return _reply(200, {"data": {"editMemoryPage": {"version": page.row.version}}})


def create_baseline(pool: asyncpg.Pool | None = None) -> Starlette:
    """The baseline app: over ``pool``, or a pool to DATABASE_URL sized like the app's."""
    return plain_app(
        [
            Route("/read", baseline_read, methods=["POST"]),
            Route("/edit", baseline_edit, methods=["POST"]),
        ],
        pool,
    )


# --- requests ---------------------------------------------------------------------------------


class Requests:
    """The bytes each server is sent; every edit rewords the page's last souvenir anew."""

    def __init__(self, page: str, token: str, base: str) -> None:
        self.page, self.token = page, token
        self.base = base.rsplit("\n", 1)[0]
        self.counter = itertools.count()

    def edit_content(self) -> str:
        return f"{self.base}\n- Edit {next(self.counter)} of the last thing [relation]"

    def make(self, server: Server, endpoint: str) -> bytes | Callable[[], bytes]:
        if endpoint == "read":
            if server.name == "graphql":
                body = {"query": READ_QUERY, "variables": {"id": self.page}}
                return client.post(server.port, "/graphql", orjson.dumps(body), self.token)
            return client.post(server.port, "/read", orjson.dumps({"id": self.page}), self.token)

        def edit() -> bytes:
            content = self.edit_content()
            if server.name == "graphql":
                body = {"query": EDIT_QUERY, "variables": {"id": self.page, "content": content}}
                return client.post(server.port, "/graphql", orjson.dumps(body), self.token)
            payload = orjson.dumps({"id": self.page, "content": content})
            return client.post(server.port, "/edit", payload, self.token)

        return edit


# --- statements -------------------------------------------------------------------------------


def _statement_name(query: str) -> str:
    for domain in ("identity", "memory", "records"):
        for name, text in queries(domain).items():
            if text == query.strip():
                return name
    return " ".join(query.split())[:40]


async def count_statements(dsn: str, setup: dict[str, Any]) -> dict[str, Any]:
    """The statements of one read and one edit, in-process, after a warm-up of each."""
    sent: list[str] = []
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=1)
    async with pool.acquire() as conn:
        conn.add_query_logger(lambda record: sent.append(record.query))
    app = create_app(Settings(database_url=dsn), pool=pool)
    counts: dict[str, Any] = {}
    headers = {"authorization": f"Bearer {setup['token']}"}
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://bench"
        ) as http:

            async def send(query: str, variables: dict[str, Any]) -> dict[str, Any]:
                response = await http.post(
                    "/graphql", json={"query": query, "variables": variables}, headers=headers
                )
                body: dict[str, Any] = response.json()
                assert "errors" not in body, body
                return body["data"]

            read = await send(READ_QUERY, {"id": setup["page"]})
            base = read["memoryPage"]["content"].rsplit("\n", 1)[0]
            for endpoint in ENDPOINTS:
                for attempt in range(2):
                    await asyncio.sleep(0.01)
                    sent.clear()
                    if endpoint == "read":
                        await send(READ_QUERY, {"id": setup["page"]})
                    else:
                        content = f"{base}\n- Counted edit {attempt} [relation]"
                        await send(EDIT_QUERY, {"id": setup["page"], "content": content})
                    await asyncio.sleep(0.01)
                control = [q for q in sent if q.strip().upper().startswith(TRANSACTION_CONTROL)]
                counts[endpoint] = {
                    "data": len(sent) - len(control),
                    "transaction_control": len(control),
                    "statements": [_statement_name(q) for q in sent],
                }
    finally:
        await pool.close()
    return counts


async def check_same_data(servers: dict[str, Server], requests: Requests) -> dict[str, Any]:
    """Both servers answer the same page; both editors write."""
    bodies = {}
    for name, server in servers.items():
        request = requests.make(server, "read")
        assert isinstance(request, bytes)
        status, raw = await client.fetch(server.port, request)
        assert status == 200, (name, raw[:300])
        bodies[name] = orjson.loads(raw)["data"]
    if bodies["graphql"] != bodies["baseline"]:
        raise AssertionError("GraphQL and the baseline read different pages")
    page = bodies["graphql"]["memoryPage"]
    versions = {}
    for name, server in servers.items():
        edit = requests.make(server, "edit")
        assert callable(edit)
        status, raw = await client.fetch(server.port, edit())
        assert status == 200 and b"errors" not in raw, (name, raw[:300])
        versions[name] = orjson.loads(raw)["data"]["editMemoryPage"]["version"]
    assert versions["baseline"] == versions["graphql"] + 1, versions
    hidden = sum("deal from Owner" in s["line"] for s in page["souvenirs"])
    return {"souvenirs": len(page["souvenirs"]), "closed_sources": hidden, "bytes": len(raw)}


async def measure(
    servers: dict[str, Server],
    requests: Requests,
    endpoint: str,
    concurrency: int,
    args: argparse.Namespace,
    meter: CpuMeter,
) -> dict[str, Any]:
    """Load each server on one endpoint (see records.load_slices)."""
    made = {name: requests.make(s, endpoint) for name, s in servers.items()}
    result = await records.load_slices(
        servers, made, concurrency, args.seconds, args.slices, args.warmup, meter
    )
    return {"endpoint": endpoint, **result}


async def load_all(
    servers: dict[str, Server],
    requests: Any,
    endpoints: tuple[str, ...],
    args: argparse.Namespace,
    postmaster_pid: int | None,
) -> list[dict[str, Any]]:
    """Every endpoint at every concurrency, once the machine is quiet; printed as it goes."""
    meter = CpuMeter(postmaster_pid)
    rows = []
    for endpoint in endpoints:
        for concurrency in args.concurrency:
            await wait_quiet(meter, args.wait_quiet)
            row = await measure(servers, requests, endpoint, concurrency, args, meter)
            rows.append(row)
            g, b = row["graphql"], row["baseline"]
            print(
                f"{endpoint} c={concurrency}: graphql {g['rps']} req/s p50 {g['p50_ms']}"
                f" p99 {g['p99_ms']}; baseline {b['rps']} req/s p50 {b['p50_ms']};"
                f" ratio {row['ratio']}",
                flush=True,
            )
    return rows


def cpu_ms(side: dict[str, Any]) -> tuple[float, float | None]:
    """A side's server CPU and PostgreSQL CPU per request (ms; None when not measured)."""
    return side["server_cpu_ms_per_request"], side.get("postgres_cpu_ms_per_request")


def cpu_ratio(row: dict[str, Any]) -> str:
    """The baseline's CPU per request (server and PostgreSQL) over GraphQL's: the same-run
    ratio a shared machine's load moves least."""
    (gs, gp), (bs, bp) = cpu_ms(row["graphql"]), cpu_ms(row["baseline"])
    if gp is None or bp is None:
        return f"{bs / gs:.2f}x (server only)"
    return f"{(bs + bp) / (gs + gp):.2f}x"


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| endpoint | concurrency | GraphQL req/s | p50 ms | p99 ms | baseline req/s | p50 ms "
        "| p99 ms | GraphQL/baseline | CPU ms/req GraphQL (server + PostgreSQL) | baseline "
        "| CPU baseline/GraphQL | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["load"]:
        g, b = row["graphql"], row["baseline"]
        (gs, gp), (bs, bp) = cpu_ms(g), cpu_ms(b)
        lines.append(
            f"| {row['endpoint']} | {row['concurrency']} | {g['rps']:,.0f} | {g['p50_ms']:.2f} "
            f"| {g['p99_ms']:.2f} | {b['rps']:,.0f} | {b['p50_ms']:.2f} | {b['p99_ms']:.2f} "
            f"| {row['ratio']:.2f}x | {gs} + {gp} | {bs} + {bp} | {cpu_ratio(row)} "
            f"| {g['errors']} / {b['errors']} |"
        )
    lines += ["", "| request | data statements | BEGIN/COMMIT etc. | statements in order |"]
    lines += ["|---|---:|---:|---|"]
    for endpoint, row in report["statements"].items():
        order = ", ".join(row["statements"])
        lines.append(f"| {endpoint} | {row['data']} | {row['transaction_control']} | {order} |")
    return "\n".join(lines)


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    started = time.perf_counter()
    dsn, setup = await fresh_database(server)
    print(f"data: {COMPANIES} pages in {time.perf_counter() - started:.1f} s", flush=True)
    conn = await asyncpg.connect(dsn)
    try:
        server_version = str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m bench.memory " + " ".join(sys.argv[1:]),
        "machine": machine(server_version),
        "settings": {k: v for k, v in vars(args).items()},
    }
    report["statements"] = await count_statements(dsn, setup)
    print("statements:", report["statements"], flush=True)
    report["load"] = []
    async with (
        records.serve("graphql", dsn, SERVERS["graphql"], "") as graphql,
        records.serve("baseline", dsn, SERVERS["baseline"], "") as baseline,
    ):
        servers = {"graphql": graphql, "baseline": baseline}
        status, raw = await client.fetch(
            graphql.port,
            client.post(
                graphql.port,
                "/graphql",
                orjson.dumps({"query": READ_QUERY, "variables": {"id": setup["page"]}}),
                setup["token"],
            ),
        )
        content = orjson.loads(raw)["data"]["memoryPage"]["content"]
        requests = Requests(setup["page"], setup["token"], content)
        report["same_data"] = await check_same_data(servers, requests)
        print("same data:", report["same_data"], flush=True)
        report["load"] = await load_all(servers, requests, ENDPOINTS, args, postmaster_pid)
    records.write_results("memory", report, markdown(report))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="measured time per server")
    parser.add_argument("--slices", type=int, default=4, help="alternating slices per server")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds per server")
    parser.add_argument(
        "--concurrency", type=records.levels, default=[1, 8, 32], help="comma-separated levels"
    )
    parser.add_argument(
        "--wait-quiet", type=float, default=30.0, help="seconds to wait at most for an idle machine"
    )
    return records.run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
