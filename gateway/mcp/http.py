"""MCP over streamable HTTP at /mcp: the SDK's session manager as an ASGI endpoint.

The edge (gateway/http/auth.py) has already refused a request without a live bearer token
(401) and put the token in the scope; each MCP request then runs as that token in its own
transaction (gateway/mcp/server.py). Stateless, with JSON answers: no session is kept
between HTTP requests, so every one is authenticated again."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from gateway.http.responses import error_response
from gateway.mcp.server import build_server
from resolvers.catalog.settings import CatalogSettings
from resolvers.common.errors import Code

MCP_PATH = "/mcp"
# The scope key the edge puts a checked token under.
TOKEN_KEY = "mcp_token"


def http_caller(server: Server[Any, Any]) -> tuple[asyncpg.Pool, str | None]:
    """The pool of the app and the token of the HTTP request a message came in."""
    request = server.request_context.request
    if not isinstance(request, Request):
        raise LookupError("an MCP request over HTTP without its HTTP request")
    pool: asyncpg.Pool = request.app.state.pool
    token: str | None = request.scope.get(TOKEN_KEY)
    return pool, token


class McpEndpoint:
    """The ASGI app at /mcp; ``running`` must wrap the app's life (its lifespan)."""

    def __init__(self, catalog: CatalogSettings) -> None:
        self.manager = StreamableHTTPSessionManager(
            app=build_server(http_caller, catalog), stateless=True, json_response=True
        )
        self.live = False

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run():
            self.live = True
            try:
                yield
            finally:
                self.live = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.live:  # an app whose lifespan was not run (an ASGI test client's)
            message = "The MCP server is not running."
            await error_response(Code.INTERNAL, message)(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


Lifespan = Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]]


def with_mcp(endpoint: McpEndpoint, lifespan: Lifespan) -> Lifespan:
    """The app's lifespan with the MCP session manager running around it."""

    @contextlib.asynccontextmanager
    async def both(app: Starlette) -> AsyncIterator[None]:
        async with endpoint.running(), lifespan(app):
            yield

    return both
