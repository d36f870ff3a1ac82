"""GraphQL over HTTP: POST and GET on /graphql, following the GraphQL-over-HTTP spec.

Documents are parsed and validated once and cached by their text; each request then coerces
its variables and executes with graphql-core directly, serialising with orjson.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    NoSchemaIntrospectionCustomRule,
    OperationDefinitionNode,
    OperationType,
    execute,
    parse,
    specified_rules,
    validate,
)
from graphql.execution.values import get_variable_values
from graphql.utilities import get_operation_ast
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from gateway.http.routes import read_capped
from gateway.settings import Settings
from resolvers.common.errors import Code
from schema.context import Context
from schema.errors import error_body, format_error
from schema.limits import alias_limit_rule, depth_limit_rule

log = logging.getLogger("skillmem.graphql")

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
MAX_SOURCE_LENGTH = 100_000
MAX_BODY_BYTES = 1024 * 1024
MAX_CACHED_LENGTH = 20_000
# The parser's own limit errors; a plain syntax error may quote the client's text, so only
# the start of the message (which is always the parser's) is matched.
PARSER_LIMIT = re.compile(r"^Syntax Error: (Document|Source) contains more than \d+ ")
# Methods that must never run a mutation (Starlette answers HEAD on a GET route).
SAFE_METHODS = ("GET", "HEAD")


@dataclass(frozen=True, slots=True)
class Prepared:
    """A document parsed and validated once: either ready to run or its request errors."""

    document: DocumentNode | None
    errors: tuple[dict[str, Any], ...] = ()


class DocumentCache:
    """Parse-and-validate results by document text, least recently used out first."""

    def __init__(self, schema: GraphQLSchema, settings: Settings) -> None:
        self.schema = schema
        self.size = settings.document_cache_size
        self.max_tokens = settings.max_tokens
        self.rules = [
            *specified_rules,
            depth_limit_rule(settings.max_depth),
            alias_limit_rule(settings.max_aliases),
        ]
        if not settings.introspection:
            self.rules.append(NoSchemaIntrospectionCustomRule)
        self.entries: OrderedDict[str, Prepared] = OrderedDict()

    def get(self, query: str) -> Prepared:
        found = self.entries.get(query)
        if found is not None:
            self.entries.move_to_end(query)
            return found
        found = self._prepare(query)
        # Only documents that run are kept, and only short ones, so that no client can fill
        # the cache with refusals or with huge texts.
        if found.document is not None and len(query) <= MAX_CACHED_LENGTH:
            self.entries[query] = found
            if len(self.entries) > self.size:
                self.entries.popitem(last=False)
        return found

    def _prepare(self, query: str) -> Prepared:
        try:
            document = parse(
                query, max_lexical_tokens=self.max_tokens, max_source_length=MAX_SOURCE_LENGTH
            )
        except GraphQLError as error:
            limit = PARSER_LIMIT.match(error.message)
            if limit is not None:
                error.extensions = {"limit": "tokens" if limit[1] == "Document" else "length"}
                return Prepared(
                    None, (format_error(error, "", request_code=Code.GRAPHQL_VALIDATION_FAILED),)
                )
            return Prepared(
                None, (format_error(error, "", request_code=Code.GRAPHQL_PARSE_FAILED),)
            )
        errors = validate(self.schema, document, self.rules, hide_suggestions=True)
        if errors:
            formatted = tuple(
                format_error(e, "", request_code=Code.GRAPHQL_VALIDATION_FAILED) for e in errors
            )
            return Prepared(None, formatted)
        return Prepared(document)


def media_type(accept: str | None) -> str | None:
    """The response media type for an Accept header, or None when neither JSON type fits."""
    if not accept:
        return GRAPHQL_RESPONSE
    types = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    for kind in types:
        if kind in (GRAPHQL_RESPONSE, "application/*", "*/*"):
            return GRAPHQL_RESPONSE
        if kind == JSON:
            return JSON
    return None


def wants_graphiql(request: Request) -> bool:
    """A browser asking for the page: GET with HTML accepted and no query given."""
    if request.method != "GET" or "query" in request.query_params:
        return False
    accept = request.headers.get("accept", "")
    return "text/html" in accept


class GraphQLEndpoint:
    def __init__(self, schema: GraphQLSchema, settings: Settings, graphiql_html: str | None):
        self.schema = schema
        self.settings = settings
        self.cache = DocumentCache(schema, settings)
        self.graphiql_html = graphiql_html

    async def handle(self, request: Request) -> Response:
        if self.graphiql_html is not None and wants_graphiql(request):
            return HTMLResponse(self.graphiql_html)
        kind = media_type(request.headers.get("accept"))
        if kind is None:
            return self.reply(
                406,
                GRAPHQL_RESPONSE,
                error_body(Code.GRAPHQL_PARSE_FAILED, f"Accept {GRAPHQL_RESPONSE} or {JSON}."),
            )
        params = await self.params(request)
        if isinstance(params, Response):
            return params
        query, variables, operation_name = params
        prepared = self.cache.get(query)
        if prepared.document is None:
            return self.reply(400, kind, {"errors": list(prepared.errors)})
        operation = get_operation_ast(prepared.document, operation_name)
        if operation is None:
            message = (
                f"Unknown operation named '{operation_name}'."
                if operation_name
                else "Must provide operation name if query contains multiple operations."
            )
            return self.reply(400, kind, error_body(Code.GRAPHQL_VALIDATION_FAILED, message))
        if request.method in SAFE_METHODS and operation.operation is not OperationType.QUERY:
            body = error_body(
                Code.GRAPHQL_VALIDATION_FAILED,
                f"Only queries may be sent with GET; send {operation.operation.value}s with POST.",
            )
            return self.reply(405, kind, body, headers={"Allow": "POST"})
        coerced = self.coerce(operation, variables)
        if isinstance(coerced, list):
            return self.reply(400, kind, {"errors": coerced})
        if "principal" not in request.scope:  # a second guard behind the middleware's
            return self.reply(401, kind, error_body(Code.UNAUTHENTICATED, "A token is required."))
        context = Context(
            principal=request.scope["principal"],
            conn=request.scope["db"],
            request_id=request.scope["request_id"],
        )
        result = execute(
            self.schema,
            prepared.document,
            context_value=context,
            variable_values=variables,
            operation_name=operation_name,
            hide_suggestions=True,
        )
        if not isinstance(result, dict) and hasattr(result, "__await__"):
            result = await result  # type: ignore[misc]
        body: dict[str, Any] = {}
        status = 200
        if result.errors:
            body["errors"] = [format_error(e, context.request_id) for e in result.errors]
            if result.data is None:
                codes = [e["extensions"]["code"] for e in body["errors"]]
                if Code.DB_UNAVAILABLE.value in codes:
                    status = 503
                elif Code.INTERNAL.value in codes:
                    status = 500
        body["data"] = result.data
        return self.reply(status, kind, body)

    def coerce(
        self, operation: OperationDefinitionNode, variables: dict[str, Any] | None
    ) -> list[dict[str, Any]] | None:
        if not operation.variable_definitions:
            return None
        coerced = get_variable_values(
            self.schema,
            operation.variable_definitions,
            variables or {},
            max_errors=50,
            hide_suggestions=True,
        )
        if isinstance(coerced, list):
            return [
                format_error(e, "", request_code=Code.GRAPHQL_VALIDATION_FAILED) for e in coerced
            ]
        return None

    async def params(
        self, request: Request
    ) -> tuple[str, dict[str, Any] | None, str | None] | Response:
        kind = media_type(request.headers.get("accept")) or GRAPHQL_RESPONSE
        if request.method in SAFE_METHODS:
            raw: dict[str, Any] = dict(request.query_params)
            if "variables" in raw:
                try:
                    raw["variables"] = orjson.loads(raw["variables"]) if raw["variables"] else None
                except orjson.JSONDecodeError:
                    return self.bad(kind, "The variables parameter is not JSON.")
            if "extensions" in raw:
                try:
                    raw["extensions"] = (
                        orjson.loads(raw["extensions"]) if raw["extensions"] else None
                    )
                except orjson.JSONDecodeError:
                    return self.bad(kind, "The extensions parameter is not JSON.")
        else:
            content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type != JSON:
                return self.reply(
                    415,
                    kind,
                    error_body(Code.GRAPHQL_PARSE_FAILED, f"Send the request body as {JSON}."),
                )
            body = await read_capped(request, MAX_BODY_BYTES)
            if body is None:
                return self.reply(
                    413,
                    kind,
                    error_body(
                        Code.GRAPHQL_PARSE_FAILED,
                        f"The request body is larger than {MAX_BODY_BYTES} bytes.",
                    ),
                )
            try:
                raw = orjson.loads(body)
            except orjson.JSONDecodeError:
                return self.bad(kind, "The request body is not JSON.")
            if not isinstance(raw, dict):
                return self.bad(kind, "The request body must be a JSON object.")
        query = raw.get("query")
        variables = raw.get("variables")
        operation_name = raw.get("operationName")
        if not isinstance(query, str) or not query.strip():
            return self.bad(kind, "The request must carry a query string.")
        if variables is not None and not isinstance(variables, dict):
            return self.bad(kind, "variables must be a JSON object.")
        if operation_name is not None and not isinstance(operation_name, str):
            return self.bad(kind, "operationName must be a string.")
        extensions = raw.get("extensions")
        if extensions is not None and not isinstance(extensions, dict):
            return self.bad(kind, "extensions must be a JSON object.")
        return query, variables, operation_name or None

    def bad(self, kind: str, message: str) -> Response:
        return self.reply(400, kind, error_body(Code.GRAPHQL_PARSE_FAILED, message))

    @staticmethod
    def reply(
        status: int, kind: str, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> Response:
        return Response(
            orjson.dumps(body),
            status_code=status,
            media_type=f"{kind}; charset=utf-8",
            headers=headers,
        )
