"""The turn benchmark: `turnContext` with 3 cards and `search` over the 100,000-record workspace
with 50,000 memory pages, GraphQL against a baseline.

`python -m bench.turns` (or `make bench-turns`) finds or generates the bench data
(bench/generate.py: the records benchmark's workspace plus 50,000 record pages of 3 to 8
souvenirs and the caller's profile, which holds souvenirs about 3 companies), then:

1. counts the SQL statements of one turn and one search, in-process;
2. runs the app and the baseline under uvicorn. The baseline is plain Starlette doing the same
   work without GraphQL: the same token statement and SQL (it calls the same resolver
   functions) and the same JSON as the GraphQL `data`; it checks both answer the same;
3. loads each, in alternating slices: a turn whose message mentions the caller's 3 records
   (3 cards, each with related records, its page's souvenirs and the caller's own), and a
   search for a word of a few hundred souvenirs, at every concurrency.

It prints Markdown tables and writes the figures to bench/results/turns-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import sys
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench import backend, client, records
from bench.baseline import plain_app
from bench.generate import WORKSPACE_ID, ensure
from bench.memory import load_all, markdown
from bench.records import Server, machine
from db import identity
from db import search as search_db
from db.pool import api_dsn, begin_workspace, create_pool
from db.sql import queries
from gateway.app import create_app
from gateway.settings import Settings
from resolvers.common import ids
from resolvers.common.principals import Principal
from resolvers.search import search
from resolvers.turns import cards, turns

SERVERS = {"graphql": "gateway.app:create_app", "baseline": "bench.turns:create_baseline"}
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
ENDPOINTS = ("turn", "search")
SEARCH_TERMS = "Chloé Dubois"
TURN_QUERY = """query($input: TurnInput!) { turnContext(input: $input) {
  profiles { workspace person agent }
  cards { recordId label object objectName signal values { attribute title value }
          related { recordId label object attribute direction }
          lastChange { actorName at fields } souvenirs { key line } profileSouvenirs { key line }
          text }
  budget { limit used dropped { recordId kind key reason } }
  text replayed } }"""
SEARCH_QUERY = """query($q: String!) { search(q: $q, first: 20) {
  total hits { object id title snippet rank } } }"""


def turn_data(found: turns.TurnContext) -> dict[str, Any]:
    """The GraphQL `data` of TURN_QUERY, by hand."""

    def card(c: cards.Card) -> dict[str, Any]:
        return {
            "recordId": c.record_id,
            "label": c.label,
            "object": c.object,
            "objectName": c.object_name,
            "signal": c.signal.upper(),
            "values": [asdict(v) for v in c.values],
            "related": [
                {
                    "recordId": r.record_id,
                    "label": r.label,
                    "object": r.object,
                    "attribute": r.attribute,
                    "direction": r.direction,
                }
                for r in c.related
            ],
            "lastChange": {
                "actorName": c.last_change.actor_name,
                "at": c.last_change.at,
                "fields": c.last_change.fields,
            }
            if c.last_change
            else None,
            "souvenirs": [asdict(s) for s in c.souvenirs],
            "profileSouvenirs": [asdict(s) for s in c.profile_souvenirs],
            "text": c.text,
        }

    budget = found.budget
    return {
        "turnContext": {
            "profiles": asdict(found.profiles),
            "cards": [card(c) for c in found.cards],
            "budget": {
                "limit": budget.limit,
                "used": budget.used,
                "dropped": [
                    {"recordId": d.record_id, "kind": d.kind, "key": d.key, "reason": d.reason}
                    for d in budget.dropped
                ],
            },
            "text": cards.cards_text(found.cards),
            "replayed": found.replayed,
        }
    }


def search_data(found: search.Results) -> dict[str, Any]:
    """The GraphQL `data` of SEARCH_QUERY, by hand."""
    return {
        "search": {
            "total": found.total,
            "hits": [
                {
                    "object": h.object.upper(),
                    "id": h.id,
                    "title": h.title,
                    "snippet": h.snippet,
                    "rank": h.rank,
                }
                for h in found.hits
            ],
        }
    }


# --- the baseline -----------------------------------------------------------------------------


def _reply(status: int, body: Any) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


async def _principal(conn: asyncpg.Connection, request: Request) -> Principal | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        return None
    row = await identity.begin_request(conn, hashlib.sha256(token.strip().encode()).hexdigest())
    return Principal(row) if row else None


async def baseline_turn(request: Request) -> Response:
    """POST {"message"}: the GraphQL `turnContext` data, without GraphQL."""
    body = orjson.loads(await request.body())
    async with request.app.state.pool.acquire() as conn, conn.transaction():
        principal = await _principal(conn, request)
        if principal is None:
            return _reply(401, {"error": "The token is not valid."})
        found = await turns.turn_context(conn, principal, turns.TurnInput(body["message"]))
    return _reply(200, {"data": turn_data(found)})


async def baseline_search(request: Request) -> Response:
    """POST {"q"}: the GraphQL `search` data, without GraphQL."""
    body = orjson.loads(await request.body())
    async with request.app.state.pool.acquire() as conn, conn.transaction():
        principal = await _principal(conn, request)
        if principal is None:
            return _reply(401, {"error": "The token is not valid."})
        found = await search.search(conn, principal, body["q"], ["memory", "skill"], 20)
    return _reply(200, {"data": search_data(found)})


def create_baseline() -> Starlette:
    return plain_app(
        [
            Route("/turn", baseline_turn, methods=["POST"]),
            Route("/search", baseline_search, methods=["POST"]),
        ]
    )


# --- requests and statements ------------------------------------------------------------------


class Requests:
    """The bytes each server is sent."""

    def __init__(self, message: str, token: str) -> None:
        self.message, self.token = message, token

    def body(self, server_name: str, endpoint: str) -> tuple[str, bytes]:
        if server_name == "graphql":
            if endpoint == "turn":
                payload = {"query": TURN_QUERY, "variables": {"input": {"message": self.message}}}
            else:
                payload = {"query": SEARCH_QUERY, "variables": {"q": SEARCH_TERMS}}
            return "/graphql", orjson.dumps(payload)
        if endpoint == "turn":
            return "/turn", orjson.dumps({"message": self.message})
        return "/search", orjson.dumps({"q": SEARCH_TERMS})

    def make(self, server: Server, endpoint: str) -> bytes | Callable[[], bytes]:
        path, payload = self.body(server.name, endpoint)
        return client.post(server.port, path, payload, self.token)


def _statement_name(query: str) -> str:
    if query == search_db.MEMORY_AND_SKILLS:
        return "search_memory_and_skills"
    for domain in ("identity", "turns", "memory", "search"):
        for name, text in queries(domain).items():
            if text == query.strip():
                return name
    return " ".join(query.split())[:40]


async def count_statements(dsn: str, requests: Requests) -> dict[str, Any]:
    """The statements of one turn and one search, in-process, after a warm-up of each."""
    sent: list[str] = []
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=1)
    async with pool.acquire() as conn:
        conn.add_query_logger(lambda record: sent.append(record.query))
    app = create_app(Settings(database_url=dsn), pool=pool)
    counts: dict[str, Any] = {}
    headers = {"authorization": f"Bearer {requests.token}", "content-type": "application/json"}
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://bench"
        ) as http:
            for endpoint in ENDPOINTS:
                _, payload = requests.body("graphql", endpoint)
                for _ in range(2):
                    await asyncio.sleep(0.01)
                    sent.clear()
                    response = await http.post("/graphql", content=payload, headers=headers)
                    assert "errors" not in response.json(), response.text[:300]
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


async def backend_cost(
    dsn: str, requests: Requests, args: argparse.Namespace, postmaster_pid: int | None
) -> dict[str, Any]:
    """PostgreSQL CPU and statements per turn and per search, on one backend
    (bench/backend.py): as served (the principal cache on, each request its hit: "(served)")
    and with the token looked up each time ("(token looked up)", `begin_request` counted), in
    alternating rounds, ``--backend-seconds`` each."""

    def check(name: str, body: dict[str, Any]) -> None:
        assert "errors" not in body, (name, str(body)[:300])
        if name == "turn":
            assert len(body["data"]["turnContext"]["cards"]) == 3, body

    bodies = {endpoint: requests.body("graphql", endpoint)[1] for endpoint in ENDPOINTS}
    local = postmaster_pid is not None
    return await backend.per_request(
        api_dsn(dsn), requests.token, bodies, 2 * args.backend_seconds, check, local, served=True
    )


async def check_same_data(servers: dict[str, Server], requests: Requests) -> dict[str, Any]:
    """Both servers answer the same data; what a turn and a search hold."""
    seen: dict[str, Any] = {}
    for endpoint in ENDPOINTS:
        bodies = {}
        for name, server in servers.items():
            request = requests.make(server, endpoint)
            assert isinstance(request, bytes)
            status, raw = await client.fetch(server.port, request)
            body = orjson.loads(raw)
            assert status == 200 and "errors" not in body, (name, endpoint, raw[:300])
            bodies[name] = body["data"]
        if bodies["graphql"] != bodies["baseline"]:
            raise AssertionError(f"GraphQL and the baseline differ for {endpoint}")
        data = bodies["graphql"]
        if endpoint == "turn":
            turn = data["turnContext"]
            seen[endpoint] = {
                "cards": len(turn["cards"]),
                "related": [len(c["related"]) for c in turn["cards"]],
                "souvenirs": [len(c["souvenirs"]) for c in turn["cards"]],
                "profile_souvenirs": [len(c["profileSouvenirs"]) for c in turn["cards"]],
                "budget_used": turn["budget"]["used"],
                "dropped": len(turn["budget"]["dropped"]),
                "bytes": len(raw),
            }
        else:
            seen[endpoint] = {"total": data["search"]["total"], "hits": len(data["search"]["hits"])}
    return seen


async def caller_message(dsn: str) -> str:
    """A message mentioning the records the caller's profile holds souvenirs about."""
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            await begin_workspace(conn, WORKSPACE_ID)
            rows = await conn.fetch(
                "SELECT r.id, r.label FROM memory_lines l"
                " JOIN memory_pages p ON p.workspace_id = l.workspace_id AND p.id = l.page_id"
                " JOIN records r ON r.workspace_id = l.workspace_id AND r.id = l.about_id"
                " WHERE p.about_kind = 'member' ORDER BY l.position"
            )
    finally:
        await conn.close()
    mentions = [
        f"@[{r['label']}](record:{ids.encode('Record', WORKSPACE_ID, r['id'])})" for r in rows
    ]
    return "Where are we with " + ", ".join(mentions) + "?"


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    data = await ensure(server, fresh=args.fresh)
    verb = "generated" if data.generated else "reused"
    print(f"data: {verb} in {data.seconds:.1f} s: {data.counts}", flush=True)
    conn = await asyncpg.connect(data.dsn)
    try:
        server_version = str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()
    requests = Requests(await caller_message(data.dsn), data.token)
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m bench.turns " + " ".join(sys.argv[1:]),
        "machine": machine(server_version),
        "data": {"counts": data.counts, "generated": data.generated},
        "settings": {**vars(args), "message": requests.message, "search": SEARCH_TERMS},
    }
    report["statements"] = await count_statements(data.dsn, requests)
    print("statements:", report["statements"], flush=True)
    report["backend"] = await backend_cost(data.dsn, requests, args, postmaster_pid)
    print(backend.markdown(report["backend"]), flush=True)
    report["load"] = []
    if args.backend_only:
        records.write_results("turns", report, backend.markdown(report["backend"]))
        return 0
    async with (
        records.serve("graphql", data.dsn, SERVERS["graphql"], "") as graphql,
        records.serve("baseline", data.dsn, SERVERS["baseline"], "") as baseline,
    ):
        servers = {"graphql": graphql, "baseline": baseline}
        report["same_data"] = await check_same_data(servers, requests)
        print("same data:", report["same_data"], flush=True)
        report["load"] = await load_all(servers, requests, ENDPOINTS, args, postmaster_pid)
    tables = markdown(report) + "\n\n" + backend.markdown(report["backend"])
    records.write_results("turns", report, tables)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time per server")
    parser.add_argument("--slices", type=int, default=4, help="alternating slices per server")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds per server")
    parser.add_argument(
        "--concurrency", type=records.levels, default=[1, 8, 32], help="comma-separated levels"
    )
    parser.add_argument("--wait-quiet", type=float, default=60.0, help="seconds to wait at most")
    parser.add_argument("--fresh", action="store_true", help="regenerate the bench data")
    parser.add_argument(
        "--backend-seconds", type=float, default=5.0, help="sequential requests on one backend"
    )
    parser.add_argument(
        "--backend-only", action="store_true", help="only the one-backend CPU and statements"
    )
    return records.run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
