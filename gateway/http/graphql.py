"""GraphQL over HTTP: POST and GET on /graphql, following the GraphQL-over-HTTP spec.

Documents are parsed and validated once and cached by their text; each request then coerces
its variables and executes with graphql-core directly, serialising with orjson. Persisted
queries and trusted documents: gateway/http/persisted.py; caching GET: gateway/http/cacheable.py.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from inspect import isawaitable
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    ExecutionResult,
    FragmentDefinitionNode,
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
from graphql.execution.values import VariableValues, get_variable_values
from graphql.utilities import get_operation_ast
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from gateway.http.cacheable import cacheable_reply
from gateway.http.graphql_params import (
    GRAPHQL_RESPONSE,
    JSON,
    SAFE_METHODS,
    Params,
    Refusal,
    body_params,
    checked_params,
    media_type,
    url_params,
    wants_graphiql,
)
from gateway.http.graphql_params import MAX_BODY_BYTES as MAX_BODY_BYTES
from gateway.http.graphql_params import OPERATION_PARAMS as OPERATION_PARAMS
from gateway.http.nul import document_nul_paths, nul_paths, nul_problems, refuse_nul
from gateway.http.persisted import Denial, persisted_documents
from gateway.http.responses import raw_json_response
from gateway.observe.metrics import operation_label
from gateway.settings import Settings
from resolvers.common.errors import Code
from resolvers.common.principals import Principal
from schema.context import Context
from schema.errors import error_body, format_error
from schema.fast import NO_VARIABLES, FastOperation, Replay, fast_operation, run_fast
from schema.limits import limit_errors, unparsed_refusal
from schema.planned import PlannedExecutor, Plans

log = logging.getLogger("skillmem.graphql")

MAX_SOURCE_LENGTH = 100_000
MAX_CACHED_LENGTH = 20_000
# Where the edge leaves a document it prepared before the request's transaction: (text, result).
PREPARED_KEY = "skillmem.prepared"
# Each answer's media type as a raw content-type header.
CONTENT_TYPES = {
    kind: (b"content-type", f"{kind}; charset=utf-8".encode("latin-1"))
    for kind in (GRAPHQL_RESPONSE, JSON)
}
# At most this many variable errors are listed.
MAX_VARIABLE_ERRORS = 50
# The parser's own limit errors; a plain syntax error may quote the client's text, so only
# the start of the message (which is always the parser's) is matched.
PARSER_LIMIT = re.compile(r"^Syntax Error: (Document|Source) contains more than \d+ ")


@dataclass(frozen=True, slots=True)
class Prepared:
    """A document parsed and validated once: either ready to run or its request errors."""

    document: DocumentNode | None
    errors: tuple[dict[str, Any], ...] = ()
    # Where the document's string literals hold NUL (refused when it is run).
    nul_paths: tuple[str, ...] = ()
    # The planned executor's plans of this document (schema/planned.py), made as it runs.
    plans: Plans = field(default_factory=dict)
    # The fast path's form of each operation (schema/fast.py) by the operation node's id,
    # None where graphql-core runs it.
    fast: dict[int, FastOperation | None] = field(default_factory=dict)


class DocumentCache:
    """Parse-and-validate results by document text, least recently used out first."""

    def __init__(self, schema: GraphQLSchema, settings: Settings) -> None:
        self.schema = schema
        self.size = settings.document_cache_size
        self.max_tokens = settings.max_tokens
        self.max_depth = settings.max_depth
        self.max_aliases = settings.max_aliases
        self.rules = list(specified_rules)
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
        """Parse (the token and length limits), then the depth and alias limits on the parsed
        document, and only then graphql-core's validation: an abusive document is refused
        without paying for the standard rules."""
        if early := unparsed_refusal(query, MAX_SOURCE_LENGTH, self):
            return Prepared(None, early)
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
        try:
            errors = limit_errors(document, self.max_depth, self.max_aliases)
        except RecursionError:
            errors = []  # validate aborts such a document, as it always has
        if not errors:
            errors = validate(self.schema, document, self.rules, hide_suggestions=True)
        if errors:
            formatted = tuple(
                format_error(e, "", request_code=Code.GRAPHQL_VALIDATION_FAILED) for e in errors
            )
            return Prepared(None, formatted)
        return Prepared(document, nul_paths=tuple(document_nul_paths(document)))


def result_status_and_body(result: ExecutionResult, request_id: str) -> tuple[int, dict[str, Any]]:
    """The body of an executed operation, and its status: 200, or when no data came back, 503
    (database down) or 500 (an internal error)."""
    body: dict[str, Any] = {}
    status = 200
    if result.errors:
        body["errors"] = [format_error(e, request_id) for e in result.errors]
        if result.data is None:
            codes = [e["extensions"]["code"] for e in body["errors"]]
            if Code.DB_UNAVAILABLE.value in codes:
                status = 503
            elif Code.INTERNAL.value in codes:
                status = 500
    body["data"] = result.data
    return status, body


class GraphQLEndpoint:
    def __init__(self, schema: GraphQLSchema, settings: Settings, graphiql_html: str | None):
        self.schema = schema
        self.settings = settings
        self.catalog = settings.catalog()
        self.cache = DocumentCache(schema, settings)
        self.persisted = persisted_documents(settings)
        self.graphiql_html = graphiql_html
        self.planned = settings.planned_execution
        # The fast path runs the plans the planned executor made: only with it.
        self.fast = settings.fast_path and settings.planned_execution

    async def handle(self, request: Request) -> Response:
        if self.graphiql_html is not None and wants_graphiql(request):
            return HTMLResponse(self.graphiql_html)
        kind = media_type(request.headers.get("accept"))
        if kind is None:
            message = f"Accept {GRAPHQL_RESPONSE} or {JSON}."
            return self.reply(406, GRAPHQL_RESPONSE, error_body(Code.GRAPHQL_PARSE_FAILED, message))
        try:
            params = self.admitted(await self.params(request), request.scope.get("principal"))
            operation, variables = self.operation(request, params)
        except Refusal as refusal:
            return self.reply(refusal.status, kind, refusal.body, refusal.headers)
        if "principal" not in request.scope:  # a second guard behind the middleware's
            return self.reply(401, kind, error_body(Code.UNAUTHENTICATED, "A token is required."))
        if params.register is not None:
            workspace = request.scope["principal"].workspace_id
            self.persisted.register(workspace, params.register, params.query)
        status, body = await self.run(request, params, operation, variables)
        if status == 200 and request.method in SAFE_METHODS:
            return cacheable_reply(request, f"{kind}; charset=utf-8", orjson.dumps(body))
        return self.reply(status, kind, body)

    def admitted(self, params: Params, principal: Principal | None) -> Params:
        """The request with the text it runs (its own, registered, or trusted), or Refusal."""
        workspace = principal.workspace_id if principal is not None else None
        found = self.persisted.resolve(params.query or None, params.extensions, workspace)
        if isinstance(found, Denial):
            raise Refusal(found.status, found.body, found.headers)
        if found.query == params.query and found.register == params.register:
            return params  # its own text (most requests): no copy to make
        return replace(params, query=found.query, register=found.register)

    def operation(
        self, request: Request, params: Params
    ) -> tuple[Prepared, tuple[OperationDefinitionNode, VariableValues]]:
        """The document to run, its operation and coerced variables, or Refusal: not parsed or
        valid, no such operation, a mutation over GET, a subscription (served over WebSocket),
        variables that do not coerce, or text holding NUL."""
        prepared, operation = self.prepared(params, request.scope.get(PREPARED_KEY))
        request.scope["operation_label"] = operation_label(
            operation.name.value if operation.name else None
        )
        if operation.operation is OperationType.SUBSCRIPTION:
            message = "Subscriptions are served over WebSocket (graphql-transport-ws) on /graphql."
            raise Refusal(400, error_body(Code.GRAPHQL_VALIDATION_FAILED, message))
        if request.method in SAFE_METHODS and operation.operation is not OperationType.QUERY:
            kind = operation.operation.value
            message = f"Only queries may be sent with GET; send {kind}s with POST."
            body = error_body(Code.GRAPHQL_VALIDATION_FAILED, message)
            raise Refusal(405, body, {"Allow": "POST"})
        variables = self.check_values(prepared, operation, params)
        return prepared, (operation, variables)

    def prepared(
        self, params: Params, early: tuple[str, Prepared] | None = None
    ) -> tuple[Prepared, OperationDefinitionNode]:
        """The parsed and validated document and the operation asked for, or Refusal;
        ``early`` is the text and result the edge prepared already (gateway/http/early.py)."""
        if early is not None and early[0] == params.query:
            prepared = early[1]
        else:
            prepared = self.cache.get(params.query)
        if prepared.document is None:
            raise Refusal(400, {"errors": list(prepared.errors)})
        operation = get_operation_ast(prepared.document, params.operation_name)
        if operation is None:
            message = (
                f"Unknown operation named '{params.operation_name}'."
                if params.operation_name
                else "Must provide operation name if query contains multiple operations."
            )
            raise Refusal(400, error_body(Code.GRAPHQL_VALIDATION_FAILED, message))
        return prepared, operation

    def check_values(
        self, prepared: Prepared, operation: OperationDefinitionNode, params: Params
    ) -> VariableValues:
        """The coerced variables; Refusal when they do not coerce or the text holds NUL."""
        coerced = self.coerce(operation, params.variables)
        if isinstance(coerced, list):
            raise Refusal(400, {"errors": coerced})
        variable_paths = (f"${path}" for path in nul_paths(params.variables or {}))
        refused = refuse_nul(nul_problems([*prepared.nul_paths, *variable_paths]), "argument")
        if refused is not None:
            problems = [p.as_dict() for p in refused.problems]
            raise Refusal(400, error_body(refused.code, refused.message, problems=problems))
        return coerced

    async def run(
        self,
        request: Request,
        params: Params,
        prepared: Prepared,
        operation: tuple[OperationDefinitionNode, VariableValues] | None = None,
    ) -> tuple[int, dict[str, Any]]:
        """Execute the operation (by the fast path when it can, schema/fast.py); the status
        and body of its result."""
        context = Context(
            principal=request.scope["principal"],
            conn=request.scope["db"],
            request_id=request.scope["request_id"],
            catalog=self.catalog,
        )
        assert prepared.document is not None  # prepared() refuses a document that is none
        middleware = None
        if self.fast and operation is not None:
            fast = await self.run_fast(prepared, operation, context)
            if isinstance(fast, dict):
                return 200, {"data": fast}
            middleware = [fast] if fast is not None else None
        # graphql-core's own executor when planned execution is off (the differential test).
        planned: dict[str, Any] = {}
        if self.planned:
            planned = {"executor_class": PlannedExecutor, "plans": prepared.plans}
        result = execute(
            self.schema,
            prepared.document,
            context_value=context,
            variable_values=params.variables,
            operation_name=params.operation_name,
            hide_suggestions=True,
            middleware=middleware,
            **planned,
        )
        if isawaitable(result):
            result = await result
        return result_status_and_body(result, context.request_id)

    async def run_fast(
        self,
        prepared: Prepared,
        operation: tuple[OperationDefinitionNode, VariableValues],
        context: Context,
    ) -> dict[str, Any] | Replay | None:
        """The fast path's data, or what graphql-core runs (schema/fast.py)."""
        node, variables = operation
        key = id(node)
        if key in prepared.fast:
            fast = prepared.fast[key]
        else:
            assert prepared.document is not None
            fragments = {
                d.name.value: d
                for d in prepared.document.definitions
                if isinstance(d, FragmentDefinitionNode)
            }
            fast = prepared.fast[key] = fast_operation(self.schema, node, fragments)
        if fast is None:
            return None
        return await run_fast(fast, prepared.plans, context, variables)

    def coerce(
        self, operation: OperationDefinitionNode, variables: dict[str, Any] | None
    ) -> list[dict[str, Any]] | VariableValues:
        if not operation.variable_definitions:
            return NO_VARIABLES
        coerced = get_variable_values(
            self.schema,
            operation.variable_definitions,
            variables or {},
            max_errors=MAX_VARIABLE_ERRORS,
            hide_suggestions=True,
        )
        if isinstance(coerced, list):
            return [
                format_error(e, "", request_code=Code.GRAPHQL_VALIDATION_FAILED) for e in coerced
            ]
        return coerced

    async def params(self, request: Request) -> Params:
        """The query, variables and operation name of a GET or POST request, or Refusal."""
        if request.method in SAFE_METHODS:
            raw = url_params(request)
        else:
            raw = await body_params(request)
        return checked_params(raw)

    @staticmethod
    def reply(
        status: int, kind: str, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> Response:
        if headers is None:
            return raw_json_response(orjson.dumps(body), status, CONTENT_TYPES[kind])
        return Response(
            orjson.dumps(body),
            status_code=status,
            media_type=f"{kind}; charset=utf-8",
            headers=headers,
        )
