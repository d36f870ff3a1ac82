"""The public probes: the process answers (healthz), the database answers (readyz)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from gateway.http.responses import error_response, json_response
from resolvers.common.errors import Code
from schema.errors import DB_DOWN

# readyz waits at most this long for a connection.
READY_ACQUIRE_TIMEOUT_SECONDS = 2.0


async def healthz(request: Request) -> Response:
    """The process answers."""
    return json_response({"status": "ok"})


async def readyz(request: Request) -> Response:
    """The database answers."""
    pool = request.app.state.pool
    try:
        if pool is None:
            raise ConnectionRefusedError("no pool")
        async with pool.acquire(timeout=READY_ACQUIRE_TIMEOUT_SECONDS) as conn:
            await conn.fetchval("SELECT 1")
    except DB_DOWN:
        message = "The database is unavailable."
        return error_response(Code.DB_UNAVAILABLE, message, request_id=request.scope["request_id"])
    return json_response({"status": "ready"})
