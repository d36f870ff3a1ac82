"""Subscriptions over WebSocket on /graphql (issue 13, item 2), with Strawberry's
graphql-transport-ws implementation; nothing else of Strawberry's serving is used.

The token travels in the connection_init payload (``{"authorization": "Bearer <token>"}``): a
connection without a valid one is closed with 4403 Forbidden, and one that subscribes before
connection_init with 4401 (the protocol's codes). Strawberry's handler asks its ``schema`` to
``stream`` each operation; it is given ``SubscriptionStream`` instead of the Strawberry schema,
which runs subscriptions as HTTP runs queries (gateway/http/graphql.py): the same document
cache and limits, graphql-core directly, our error format. Queries and mutations go over HTTP.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import aclosing
from inspect import isawaitable
from typing import Any, cast

import asyncpg
from graphql import DocumentNode, GraphQLError, OperationType, subscribe
from graphql import ExecutionResult as CoreResult
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.schema import BaseSchema
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.execution import PreExecutionError
from strawberry.types.unset import UnsetType

from gateway.http.cors import origin_allowed
from gateway.http.graphql import GraphQLEndpoint
from gateway.http.graphql_params import Params, Refusal, checked_params
from gateway.settings import Settings
from resolvers.common.errors import Code
from resolvers.common.principals import principal_for_token, well_formed
from schema.context import SubscriptionContext
from schema.errors import DB_DOWN, error_body, format_error

log = logging.getLogger("skillmem.subscriptions")

AUTHORIZATION_KEYS = ("authorization", "Authorization")


class Formatted(GraphQLError):
    """An error already in our JSON form (what Strawberry sends is ``formatted``)."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(str(body.get("message", "")))
        self.body = body

    @property
    def formatted(self) -> Any:
        return self.body


def connection_token(params: dict[str, object]) -> str | None:
    """The bearer token of a connection_init payload."""
    value = next((params[k] for k in AUTHORIZATION_KEYS if k in params), None)
    if not isinstance(value, str):
        return None
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class SubscriptionStream:
    """What Strawberry's graphql-transport-ws handler streams each operation with."""

    def __init__(self, endpoint: GraphQLEndpoint) -> None:
        self.endpoint = endpoint

    async def stream(
        self,
        query: str | None,
        variable_values: dict[str, Any] | None = None,
        context_value: Any = None,
        root_value: Any = None,
        operation_name: str | None = None,
        **_: Any,
    ) -> AsyncIterator[ExecutionResult]:
        raw = {"query": query, "variables": variable_values, "operationName": operation_name}
        return self.results(raw, context_value)

    async def results(
        self, raw: dict[str, Any], context: SubscriptionContext
    ) -> AsyncIterator[ExecutionResult]:
        try:
            # In the trusted-documents mode, only the manifest's subscriptions run here too.
            params = self.endpoint.admitted(checked_params(raw), context.principal)
            document = self.document(params)
        except Refusal as refusal:
            yield PreExecutionError(None, [Formatted(e) for e in refusal.body["errors"]])
            return
        started = subscribe(
            self.endpoint.schema,
            document,
            context_value=context,
            variable_values=params.variables,
            operation_name=params.operation_name,
            hide_suggestions=True,
        )
        source = await started if isawaitable(started) else started
        if isinstance(source, CoreResult):
            yield PreExecutionError(None, self.errors(source, context))
            return
        try:
            async with aclosing(source):  # type: ignore[type-var]
                async for each in source:
                    yield ExecutionResult(each.data, self.errors(each, context) or None)
        except Exception as error:  # noqa: BLE001 - the stream ends with its (masked) error
            failed = GraphQLError(str(error), original_error=error)
            yield ExecutionResult(None, [Formatted(format_error(failed, context.request_id))])

    def document(self, params: Params) -> DocumentNode:
        """The subscription to run (parsed, validated and checked as over HTTP), or Refusal."""
        prepared, operation = self.endpoint.prepared(params)
        if operation.operation is not OperationType.SUBSCRIPTION:
            message = "Only subscriptions are served over WebSocket; send queries and mutations"
            body = error_body(Code.GRAPHQL_VALIDATION_FAILED, f"{message} over HTTP.")
            raise Refusal(400, body)
        self.endpoint.check_values(prepared, operation, params)
        assert prepared.document is not None  # prepared() refuses a document that is none
        return prepared.document

    @staticmethod
    def errors(result: CoreResult, context: SubscriptionContext) -> list[GraphQLError]:
        return [Formatted(format_error(e, context.request_id)) for e in result.errors or []]


class SubscriptionView(GraphQL[SubscriptionContext, None]):
    """Strawberry's ASGI view, for WebSocket connections to /graphql only."""

    def __init__(self, endpoint: GraphQLEndpoint, settings: Settings) -> None:
        super().__init__(
            cast(BaseSchema, SubscriptionStream(endpoint)),
            graphql_ide=None,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
        )
        self.settings = settings

    def is_websocket_origin_allowed(self, request: WebSocket, origin: str) -> bool:
        """A browser app may connect from the origins CORS lets in (gateway/http/cors.py)."""
        return origin_allowed(self.settings, origin)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> SubscriptionContext:
        state = request.app.state
        return SubscriptionContext(state.pool, state.events, uuid.uuid4().hex)

    async def on_ws_connect(
        self, context: SubscriptionContext
    ) -> UnsetType | dict[str, object] | None:
        """Resolve the connection_init payload's token, or refuse the connection (4403)."""
        token = connection_token(context.connection_params)
        # A token of no issued shape is refused before a connection is taken.
        if token is None or not well_formed(token) or context.events is None:
            raise ConnectionRejectionError()
        try:
            async with context.pool.acquire() as proxy, proxy.transaction():
                principal = await principal_for_token(cast(asyncpg.Connection, proxy), token)
        except DB_DOWN as error:
            log.warning("subscription %s: database unavailable: %r", context.request_id, error)
            raise ConnectionRejectionError() from None
        if principal is None:
            raise ConnectionRejectionError()
        context.token, context.principal = token, principal
        return await super().on_ws_connect(context)
