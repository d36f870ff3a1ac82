"""The baseline: the GraphQL records query's work done by hand with asyncpg on plain Starlette.

One pooled connection and one transaction per request, the same token lookup, the same
`records_page_plain` SQL text (db.records.records_page's for a page without a filter), and
the same JSON data as the GraphQL query
`records(object, first) { edges { cursor node { id label values
relation(attribute: "company") { id label values } } } }`.
Served with `uvicorn bench.baseline:create_app --factory` (DATABASE_URL names the database).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import asyncpg
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from db.sql import queries
from gateway.settings import Settings
from resolvers.common.ids import encode, encode_cursor

BEGIN_REQUEST = "SELECT * FROM app_begin_request($1)"
RECORDS_PAGE = queries("records")["records_page_plain"]
RELATION = "company"


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


async def _init(conn: asyncpg.Connection) -> None:
    """Decode json and jsonb with orjson, as the app does."""
    for kind in ("json", "jsonb"):
        await conn.set_type_codec(kind, encoder=_dumps, decoder=orjson.loads, schema="pg_catalog")


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Send no reset query on release: role and workspace are transaction-local."""


def _reply(status: int, body: dict[str, Any]) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def _node(workspace_id: UUID, local_id: UUID, label: str, values: Any) -> dict[str, Any]:
    return {"id": encode("Record", workspace_id, local_id), "label": label, "values": values}


def page_data(workspace_id: UUID, rows: list[asyncpg.Record], first: int) -> dict[str, Any]:
    """The `data` of the GraphQL response for these `records_page` rows."""
    edges = []
    for row in rows[:first]:
        node = _node(workspace_id, row["id"], row["label"], row["values"])
        parent = next((r for r in row["relations"] if r["attribute"] == RELATION), None)
        node["relation"] = (
            _node(workspace_id, UUID(parent["id"]), parent["label"], parent["values"])
            if parent is not None
            else None
        )
        edges.append({"cursor": encode_cursor(row["id"], row["created_at"]), "node": node})
    return {"records": {"edges": edges}}


async def records(request: Request) -> Response:
    """POST {"object": slug, "first": n} with a bearer token: a page of records."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return _reply(401, {"error": "A bearer token is required."})
    body = orjson.loads(await request.body())
    first = int(body.get("first", 20))
    token_hash = hashlib.sha256(token.strip().encode()).hexdigest()
    async with request.app.state.pool.acquire() as conn, conn.transaction():
        principal = await conn.fetchrow(BEGIN_REQUEST, token_hash)
        if principal is None:
            return _reply(401, {"error": "The token is not valid."})
        rows = await conn.fetch(
            RECORDS_PAGE,
            body["object"],
            principal["readable"],
            principal["member_id"],
            None,
            first + 1,
            None,
        )
    return _reply(200, {"data": page_data(principal["workspace_id"], rows, first)})


async def healthz(request: Request) -> Response:
    """The process answers."""
    return _reply(200, {"status": "ok"})


async def baseline_pool(settings: Settings) -> asyncpg.Pool:
    """The baselines' pool: the app's size, codecs and reset, on DATABASE_URL."""
    pool = await asyncpg.create_pool(
        os.environ["DATABASE_URL"],
        min_size=settings.pool_min_size,
        max_size=settings.pool_max_size,
        init=_init,
        command_timeout=30,
        reset=_keep_session,
    )
    assert pool is not None
    return pool


def create_app() -> Starlette:
    """The baseline app over a pool sized like the app's."""
    return plain_app([Route("/records", records, methods=["POST"])])


def plain_app(routes: list[Route], pool: asyncpg.Pool | None = None) -> Starlette:
    """A baseline app serving ``routes`` (and /healthz) over ``pool``, or over a pool to
    DATABASE_URL sized like the app's."""
    settings = Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if pool is not None:
            yield
            return
        app.state.pool = await baseline_pool(settings)
        try:
            yield
        finally:
            await app.state.pool.close()

    app = Starlette(
        routes=[*routes, Route("/healthz", healthz, methods=["GET"])], lifespan=lifespan
    )
    app.state.pool = pool
    return app
