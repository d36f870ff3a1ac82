"""The edge: every request but the public ones carries a bearer token, resolved here once.

The middleware takes one pooled connection for the request, opens its transaction, resolves
the token (which also sets the transaction's role and workspace) and hands principal and
connection to the app through the ASGI scope. The response is held until the transaction
commits, so a client never hears of a write that did not happen.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

import asyncpg
import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from resolvers.common.errors import Code
from resolvers.common.principals import principal_for_token
from schema.errors import DB_DOWN, error_body

log = logging.getLogger("skillmem.auth")

# A request waits at most this long for a connection, then answers DB_UNAVAILABLE.
ACQUIRE_TIMEOUT_SECONDS = 5.0
PUBLIC_PATHS = ("/healthz", "/readyz", "/static/")


def bearer_token(scope: Scope) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, if there is exactly one."""
    values = [v for k, v in scope["headers"] if k == b"authorization"]
    if len(values) != 1:
        return None
    scheme, _, token = values[0].decode("latin-1").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def _with_request_id(send: Send, request_id: str) -> Send:
    """``send`` that tags every response with its request id (the one logs name)."""
    header = (b"x-request-id", request_id.encode("latin-1"))

    async def tagged(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [h for h in message.get("headers", []) if h[0] != b"x-request-id"]
            message = {**message, "headers": [*headers, header]}
        await send(message)

    return tagged


def _query_params(scope: Scope) -> list[tuple[str, str]]:
    """The URL's parameters, decoded as the endpoint's ``request.query_params`` are."""
    return parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)


class PrincipalMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        pool: Callable[[], asyncpg.Pool | None],
        graphiql_enabled: bool,
    ) -> None:
        self.app = app
        self.pool = pool
        self.graphiql_enabled = graphiql_enabled

    def is_public(self, scope: Scope) -> bool:
        path: str = scope["path"]
        if path.startswith(PUBLIC_PATHS):
            return True
        # The GraphiQL page itself needs no token; every operation it sends does.
        return (
            self.graphiql_enabled
            and path == "/graphql"
            and scope["method"] == "GET"
            and "text/html" in _header(scope, b"accept")
            and not any(key == "query" for key, _ in _query_params(scope))
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _header(scope, b"x-request-id")[:64] or uuid.uuid4().hex
        scope["request_id"] = request_id
        send = _with_request_id(send, request_id)
        if self.is_public(scope):
            await self.app(scope, receive, send)
            return
        token = bearer_token(scope)
        if token is None:
            await self.refuse(
                scope, send, 401, Code.UNAUTHENTICATED, "A bearer token is required.", request_id
            )
            return
        pool = self.pool()
        held: list[Message] = []

        async def hold(message: Message) -> None:
            held.append(message)

        try:
            if pool is None:
                raise ConnectionRefusedError("no database pool")
            async with pool.acquire(timeout=ACQUIRE_TIMEOUT_SECONDS) as conn, conn.transaction():
                principal = await principal_for_token(conn, token)
                if principal is None:
                    held.clear()
                else:
                    scope["principal"] = principal
                    scope["db"] = conn
                    await self.app(scope, receive, hold)
        except DB_DOWN as error:
            log.warning("request %s: database unavailable: %r", request_id, error)
            await self.refuse(
                scope, send, 503, Code.DB_UNAVAILABLE, "The database is unavailable.", request_id
            )
            return
        except Exception:
            log.exception("request %s failed", request_id)
            await self.refuse(scope, send, 500, Code.INTERNAL, "Internal error.", request_id)
            return
        if "principal" not in scope:
            await self.refuse(
                scope, send, 401, Code.UNAUTHENTICATED, "The token is not valid.", request_id
            )
            return
        for message in held:
            await send(message)

    async def refuse(
        self, scope: Scope, send: Send, status: int, code: Code, message: str, request_id: str
    ) -> None:
        body = error_body(code, message, request_id)
        graphql = scope["path"] == "/graphql"
        if not graphql:
            body = plain_error(code, message, request_id)
        accept = _header(scope, b"accept")
        media = (
            "application/json"
            if not graphql or ("application/json" in accept and "graphql-response" not in accept)
            else "application/graphql-response+json"
        )
        headers = [(b"content-type", f"{media}; charset=utf-8".encode())]
        if status == 401:
            headers.append((b"www-authenticate", b'Bearer realm="skillmem"'))
        payload = orjson.dumps(body)
        headers.append((b"content-length", str(len(payload)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


def plain_error(
    code: Code,
    message: str,
    request_id: str | None = None,
    problems: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The error body of the plain HTTP routes."""
    error: dict[str, Any] = {"code": code.value, "message": message}
    if problems:
        error["problems"] = problems
    if request_id is not None and code in (Code.INTERNAL, Code.DB_UNAVAILABLE):
        error["requestId"] = request_id
    return {"error": error}
