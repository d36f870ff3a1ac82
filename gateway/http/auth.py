"""The edge: every request but the public ones carries a bearer token, resolved here once.

The middleware reads the body first (capped, within a deadline, refusing JSON text holding
NUL), then takes one pooled connection for the request, opens its transaction, resolves
the token (which also sets the transaction's role and workspace) and hands principal and
connection to the app through the ASGI scope. The response is held until the transaction
commits, so a client never hears of a write that did not happen. A token the process resolved
a moment ago sends its settings with BEGIN instead (gateway/http/transaction.py), and a
GraphQL query that only reads begins READ ONLY (gateway/http/readonly.py).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Awaitable, Callable
from typing import cast
from urllib.parse import parse_qsl

import asyncpg
import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from db.principal_cache import PrincipalCache
from gateway.anthropic import errors as sdk_errors
from gateway.anthropic.errors import ApiError, is_anthropic_path, refusal
from gateway.http.body import (
    BodyRefused,
    body_cap,
    read_body,
    read_deadline,
    replay,
)
from gateway.http.early import refused_for_its_text
from gateway.http.graphql import OPERATION_PARAMS
from gateway.http.nul import json_body_nul_problems, refuse_nul
from gateway.http.openapi import OPENAPI_PATH
from gateway.http.readonly import reads_only
from gateway.http.responses import CONTENT_LENGTH
from gateway.http.transaction import ACQUIRE_TIMEOUT_SECONDS, request_transaction
from gateway.mcp.http import MCP_PATH, TOKEN_KEY
from gateway.observe import logs
from gateway.settings import BODY_READ_TIMEOUT_SECONDS
from resolvers.common.errors import Code, Problem
from resolvers.common.principals import principal_for_token, token_hash, well_formed
from schema.errors import DB_DOWN, error_body

log = logging.getLogger("skillmem.auth")

# `/metrics` checks its own token (the operator's, gateway/http/metrics.py).
PUBLIC_PATHS = ("/healthz", "/readyz", "/metrics", "/static/")
# A request id the client may choose: up to 64 visible ASCII characters.
REQUEST_ID = re.compile(r"[!-~]{1,64}")


def bearer_token(scope: Scope) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, if there is exactly one."""
    values = [v for k, v in scope["headers"] if k == b"authorization"]
    if len(values) != 1:
        return None
    header: bytes = values[0]
    scheme, _, token = header.decode("latin-1").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def request_id_of(scope: Scope) -> str:
    """The client's X-Request-Id when it is a short run of visible ASCII, else a fresh id: a
    control character never reaches a log line or a response header."""
    given = _header(scope, b"x-request-id")
    # 16 random bytes in hex: as long as uuid4().hex, without building a UUID.
    return given if given and REQUEST_ID.fullmatch(given) else os.urandom(16).hex()


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


# Routes whose body is not a plain route's JSON (MCP's tools check their own arguments).
NOT_JSON_BODIES = ("/graphql", "/skills/import", MCP_PATH)
# The methods /graphql's route answers (Starlette answers HEAD on a GET route).
GRAPHQL_METHODS = ("GET", "HEAD", "POST")
# /graphql's endpoint: a request in, its answer out (GraphQLEndpoint.handle).
GraphQLHandler = Callable[[Request], Awaitable[Response]]


def is_graphql_route(scope: Scope) -> bool:
    """Whether Starlette's router would hand this HTTP request to /graphql's route."""
    return (
        scope["path"] == "/graphql"
        and scope["method"] in GRAPHQL_METHODS
        and not scope.get("root_path")
    )


class PrincipalMiddleware:
    """The principal check: the request id, the token, the body and the request's transaction
    (gateway/http/edge.py runs it with the metrics and CORS in one layer)."""

    def __init__(
        self,
        app: ASGIApp,
        graphiql_enabled: bool,
        body_read_timeout: float = BODY_READ_TIMEOUT_SECONDS,
        graphql: GraphQLHandler | None = None,
    ) -> None:
        self.app = app
        self.graphiql_enabled = graphiql_enabled
        self.body_read_timeout = body_read_timeout
        # /graphql's endpoint, called straight from here (no routing hop on the hot path).
        self.graphql = graphql

    def is_public(self, scope: Scope) -> bool:
        path: str = scope["path"]
        if path.startswith(PUBLIC_PATHS):
            return True
        if path == OPENAPI_PATH:
            return True  # served only with introspection on (gateway/app.py)
        # The GraphiQL page itself needs no token; every operation it sends does.
        return (
            self.graphiql_enabled
            and path == "/graphql"
            and scope["method"] == "GET"
            and "text/html" in _header(scope, b"accept")
            and not any(key in OPERATION_PARAMS for key, _ in _query_params(scope))
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        scope["request_id"] = request_id
        logs.REQUEST_ID.set(request_id)
        await self.check(scope, receive, _with_request_id(send, request_id))

    async def dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The app, or /graphql's endpoint straight (what the router would call)."""
        if self.graphql is None or not is_graphql_route(scope):
            await self.app(scope, receive, send)
            return
        response = await self.graphql(Request(scope, receive, send))
        await response(scope, receive, send)

    async def check(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An HTTP request whose request id is set (and which ``send`` tags): a public one
        runs as it is, any other needs a live token and runs in its transaction."""
        if self.is_public(scope):
            await self.app(scope, receive, send)
            return
        token = bearer_token(scope)
        if token is None:
            await refuse(scope, send, 401, Code.UNAUTHENTICATED, "A bearer token is required.")
            return
        body = await self.body(scope, receive, send)
        if body is None:
            return
        if not well_formed(token):
            # Not the shape of any token issued: refused without taking a connection, as an
            # unknown token is once looked up.
            await refuse(scope, send, 401, Code.UNAUTHENTICATED, "The token is not valid.")
            return
        if scope["path"] == MCP_PATH:
            await self.run_mcp(scope, replay(body, receive), send, token)
            return
        hashed = token_hash(token)  # once a request: the cache's key, and the lookup's
        if self.known(scope, hashed) and refused_for_its_text(
            getattr(scope["app"].state, "documents", None), scope, body
        ):
            # A token resolved moments ago, a request refused for its text
            # (gateway/http/early.py): answered without taking a connection for it.
            await self.dispatch(scope, replay(body, receive), send)
            return
        await self.run(scope, replay(body, receive), send, token, body, hashed)

    @staticmethod
    def known(scope: Scope, hashed: str) -> bool:
        """Whether the principal cache holds the token of hash ``hashed`` live: authentication
        still comes first (an unknown token is looked up, and refused, before its request is
        looked at)."""
        cache: PrincipalCache | None = getattr(scope["app"].state, "principals", None)
        return cache is not None and cache.holds(hashed)

    async def body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The body, read before any connection is taken; None once refused (answered)."""
        limit = body_cap(scope["path"])
        declared = _declared_length(scope)
        if declared > limit:
            refusal = BodyRefused(413, f"The request body is larger than {limit} bytes.")
        else:
            try:
                deadline = read_deadline(self.body_read_timeout, declared)
                body = await read_body(receive, limit, deadline)
            except BodyRefused as error:
                refusal = error
            else:
                problems = refuse_nul(self.nul_problems(scope, body), "body")
                if problems is None:
                    return body
                await refuse(scope, send, 400, problems.code, problems.message, problems.problems)
                return None
        if refusal.status != 499:
            await refuse(scope, send, refusal.status, body_code(scope), refusal.message)
        return None

    @staticmethod
    def nul_problems(scope: Scope, body: bytes) -> list[Problem]:
        """Where a plain route's JSON body holds NUL (GraphQL checks its own arguments; an
        archive's entry names are checked by the archive reader, its contents are files)."""
        if scope["path"] in NOT_JSON_BODIES:
            return []
        content_type = _header(scope, b"content-type").split(";")[0].strip().lower()
        if content_type == "multipart/form-data" and is_anthropic_path(scope["path"]):
            return []  # a skill's files: their names and the form's fields are checked by the route
        return json_body_nul_problems(body, content_type)

    async def run_mcp(self, scope: Scope, receive: Receive, send: Send, token: str) -> None:
        """MCP over HTTP: the token checked here (401 when it is not live), then the endpoint
        runs with no connection of this request's: each MCP request opens its own
        transaction as the token (gateway/mcp/server.py), and its answer streams."""
        pool: asyncpg.Pool | None = getattr(scope["app"].state, "pool", None)
        try:
            if pool is None:
                raise ConnectionRefusedError("no database pool")
            async with pool.acquire(timeout=ACQUIRE_TIMEOUT_SECONDS) as proxy, proxy.transaction():
                principal = await principal_for_token(cast(asyncpg.Connection, proxy), token)
        except DB_DOWN as error:
            log.warning("request %s: database unavailable: %r", scope["request_id"], error)
            await refuse(scope, send, 503, Code.DB_UNAVAILABLE, "The database is unavailable.")
            return
        except Exception:
            log.exception("request %s failed", scope["request_id"])
            await refuse(scope, send, 500, Code.INTERNAL, "Internal error.")
            return
        if principal is None:
            await refuse(scope, send, 401, Code.UNAUTHENTICATED, "The token is not valid.")
            return
        scope[TOKEN_KEY] = token
        await self.app(scope, receive, send)

    async def run(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        token: str,
        body: bytes = b"",
        hashed: str | None = None,
    ) -> None:
        """Resolve the token and run the app inside one transaction; answer once it commits."""
        request_id = scope["request_id"]
        held: list[Message] = []

        async def hold(message: Message) -> None:
            held.append(message)

        # The app's pool and principal cache, set by its lifespan (or by the tests).
        state = scope["app"].state
        pool: asyncpg.Pool | None = getattr(state, "pool", None)
        cache: PrincipalCache | None = getattr(state, "principals", None)
        try:
            if pool is None:
                raise ConnectionRefusedError("no database pool")
            readonly = reads_only(getattr(state, "documents", None), scope, body)
            async with request_transaction(pool, token, cache, readonly, hashed) as (
                conn,
                principal,
            ):
                if principal is not None:
                    scope["principal"] = principal
                    scope["db"] = conn
                    await self.dispatch(scope, receive, hold)
        except DB_DOWN as error:
            log.warning("request %s: database unavailable: %r", request_id, error)
            await refuse(scope, send, 503, Code.DB_UNAVAILABLE, "The database is unavailable.")
            return
        except Exception:
            log.exception("request %s failed", request_id)
            await refuse(scope, send, 500, Code.INTERNAL, "Internal error.")
            return
        if "principal" not in scope:
            await refuse(scope, send, 401, Code.UNAUTHENTICATED, "The token is not valid.")
            return
        for message in held:
            await send(message)


def body_code(scope: Scope) -> Code:
    """The code of a refused body: GraphQL's request error, or the plain routes' validation."""
    return (
        Code.GRAPHQL_PARSE_FAILED if scope["path"] == "/graphql" else Code.SCHEMA_VALIDATION_FAILED
    )


def _declared_length(scope: Scope) -> int:
    declared = _header(scope, b"content-length")
    return int(declared) if CONTENT_LENGTH.fullmatch(declared) else 0


async def refuse(
    scope: Scope,
    send: Send,
    status: int,
    code: Code,
    message: str,
    problems: list[Problem] | None = None,
) -> None:
    """Answer the request here with one error, in the convention of the route asked for."""
    if is_anthropic_path(scope["path"]):
        listed_problems = [p.as_dict() for p in problems or []]
        await refuse_as_sdk(scope, send, refusal(status, code, message, listed_problems))
        return
    graphql = scope["path"] == "/graphql"
    listed = [p.as_dict() for p in problems or []]
    body = error_body(code, message, scope["request_id"], listed, plain=not graphql)
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


async def refuse_as_sdk(scope: Scope, send: Send, error: ApiError) -> None:
    """A refusal on the `anthropic` SDK's routes, in its shape (gateway/anthropic/errors.py)."""
    request_id = scope["request_id"]
    payload = orjson.dumps(sdk_errors.error_body(error, request_id))
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        *((k.encode(), v.encode()) for k, v in sdk_errors.error_headers(error, request_id).items()),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
