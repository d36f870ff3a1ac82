"""The edge: one ASGI layer for what every HTTP request goes through (issue 17, item 2).

In order: the request's metrics (counted and timed by route template, GraphQL operation and
status, gateway/http/metrics.py), CORS (a preflight answered here, before authentication;
every other answer carries what a browser needs to read it, gateway/http/cors.py), the request
id (``X-Request-Id``, in the logs and on every answer but a preflight's) and the principal check
(the token, the body, the request's transaction: gateway/http/auth.py), which calls /graphql's
endpoint straight. One layer instead of three: one ``send`` wrapper per request, and a request
with no ``Origin`` header (what agents and partners send) answered with ``Vary: Origin``
without building Starlette's header objects.
"""

from __future__ import annotations

import time

from starlette.datastructures import Headers
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.http.auth import GraphQLHandler, PrincipalMiddleware, is_graphql_route, request_id_of
from gateway.http.cors import cors_for
from gateway.http.metrics import route_label
from gateway.observe import logs, metrics
from gateway.settings import Settings

REQUEST_ID_HEADER = b"x-request-id"


def request_origin(scope: Scope) -> tuple[str | None, bool]:
    """The request's first ``Origin`` header (None when it has none), and whether it asks
    ``Access-Control-Request-Method`` (a preflight's header)."""
    origin: str | None = None
    asks_method = False
    for key, value in scope["headers"]:
        if key == b"origin" and origin is None:
            origin = value.decode("latin-1")
        elif key == b"access-control-request-method":
            asks_method = True
    return origin, asks_method


def vary_origin(headers: list[tuple[bytes, bytes]]) -> None:
    """``Vary`` gains ``Origin``, in one header, as Starlette's CORS answers a request."""
    found = [index for index, (key, _) in enumerate(headers) if key == b"vary"]
    if not found:
        headers.append((b"vary", b"Origin"))
        return
    value = b", ".join([*(headers[index][1] for index in found), b"Origin"])
    for index in reversed(found[1:]):
        del headers[index]
    headers[found[0]] = (b"vary", value)


class Edge(PrincipalMiddleware):
    """Metrics, CORS, the request id and the principal check, in one layer."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        routes: list[BaseRoute],
        settings: Settings,
        graphql: GraphQLHandler | None = None,
    ) -> None:
        super().__init__(app, settings.introspection, settings.body_read_timeout, graphql)
        self.routes = routes
        self.cors = cors_for(settings, app)

    def route(self, scope: Scope) -> str:
        """The request's route label (/graphql's without asking every route)."""
        return "/graphql" if is_graphql_route(scope) else route_label(self.routes, scope)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        answered = [500]  # the status answered; 500 until an answer starts
        try:
            origin, asks_method = request_origin(scope)
            if origin is not None and asks_method and scope["method"] == "OPTIONS":
                preflight = self.cors.preflight_response(Headers(scope=scope))
                await preflight(scope, receive, _counted(send, answered))
                return
            request_id = request_id_of(scope)
            scope["request_id"] = request_id
            logs.REQUEST_ID.set(request_id)
            tagged = (
                _tagged(send, request_id, answered)
                if origin is None
                else self.tagged_for_origin(scope, send, request_id, answered)
            )
            await self.check(scope, receive, tagged)
        finally:
            operation = scope.get("operation_label", metrics.NOT_GRAPHQL)
            seconds = time.perf_counter() - started
            metrics.count_request(self.route(scope), operation, str(answered[0]), seconds)

    def tagged_for_origin(
        self, scope: Scope, send: Send, request_id: str, answered: list[int]
    ) -> Send:
        """``send`` for a request from a browser: the request id, then CORS's headers."""
        request_headers = Headers(scope=scope)
        header = (REQUEST_ID_HEADER, request_id.encode("latin-1"))
        counted = _counted(send, answered)

        async def tagged(message: Message) -> None:
            if message["type"] != "http.response.start":
                await send(message)
                return
            headers = [h for h in message.get("headers", []) if h[0] != REQUEST_ID_HEADER]
            message = {**message, "headers": [*headers, header]}
            await self.cors.send(message, counted, request_headers)

        return tagged


def _counted(send: Send, answered: list[int]) -> Send:
    """``send`` noting the status answered."""

    async def counted(message: Message) -> None:
        if message["type"] == "http.response.start":
            answered[0] = message["status"]
        await send(message)

    return counted


def _tagged(send: Send, request_id: str, answered: list[int]) -> Send:
    """``send`` for a request with no ``Origin``: the status noted, the request id and
    ``Vary: Origin`` on its answer."""
    header = (REQUEST_ID_HEADER, request_id.encode("latin-1"))

    async def tagged(message: Message) -> None:
        if message["type"] == "http.response.start":
            answered[0] = message["status"]
            headers = [h for h in message.get("headers", []) if h[0] != REQUEST_ID_HEADER]
            headers.append(header)
            vary_origin(headers)
            message = {**message, "headers": headers}
        await send(message)

    return tagged
