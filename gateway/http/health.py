"""The public probes: the process answers (healthz), the database answers (readyz)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gateway.http.responses import json_response
from resolvers.common.errors import Code
from schema.errors import DB_DOWN, error_body

# readyz waits at most this long for a connection.
READY_ACQUIRE_TIMEOUT_SECONDS = 2.0
DOWN = "The database is unavailable."
RESTARTING = "The embedded database is restarting (attempt {attempt} of {maxAttempts})."
GAVE_UP = "The embedded database did not start again; restart the process."


async def healthz(request: Request) -> Response:
    """The process answers."""
    return json_response({"status": "ok"})


async def readyz(request: Request) -> Response:
    """The database answers; with an embedded server, what its supervisor says of it."""
    supervisor = getattr(request.app.state, "supervisor", None)
    embedded: dict[str, Any] | None = None if supervisor is None else supervisor.report()
    message = _embedded_down(embedded)
    if message is None and not await _database_answers(request.app.state.pool):
        message = DOWN
    if message is None:
        ready: dict[str, Any] = {"status": "ready"}
        if embedded is not None:
            ready["embedded"] = embedded
        return json_response(ready)
    body = error_body(Code.DB_UNAVAILABLE, message, request.scope["request_id"], plain=True)
    if embedded is not None:
        body["embedded"] = embedded
    return json_response(body, 503)


def _embedded_down(embedded: dict[str, Any] | None) -> str | None:
    """Why the embedded server is not ready, by its supervisor (None: it runs)."""
    if embedded is None or embedded["state"] == "running":
        return None
    if embedded["state"] == "restarting":
        return RESTARTING.format(**embedded)
    return GAVE_UP


async def _database_answers(pool: Any) -> bool:
    if pool is None:
        return False
    try:
        async with pool.acquire(timeout=READY_ACQUIRE_TIMEOUT_SECONDS) as conn:
            await conn.fetchval("SELECT 1")
    except DB_DOWN:
        return False
    return True
