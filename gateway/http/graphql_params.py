"""GraphQL over HTTP, the request's side: the media type answered, GraphiQL's page or an
operation, and the parameters of a GET or POST (query, variables, operationName, extensions)
read and checked to the types the GraphQL-over-HTTP spec gives them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from starlette.requests import Request
from starlette.types import Scope

from gateway.http.persisted import asks_by_hash
from gateway.http.responses import read_capped
from resolvers.common.errors import Code
from schema.errors import error_body

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
MAX_BODY_BYTES = 1024 * 1024
# Methods that must never run a mutation (Starlette answers HEAD on a GET route).
SAFE_METHODS = ("GET", "HEAD")
# The URL parameters that make a GET an operation, never GraphiQL's page (text or hash).
OPERATION_PARAMS = frozenset(("query", "extensions"))
# Where a request's JSON body is kept once parsed (the edge reads it before the endpoint does).
BODY_KEY = "skillmem.body"


class NotJson:
    """A body that is not JSON (what ``parsed_body`` keeps for it)."""


NOT_JSON = NotJson()


def parsed_body(scope: Scope, body: bytes) -> Any:
    """``body`` (the request's whole body) as JSON, or NOT_JSON: parsed once a request, kept
    in the scope for the layers after the first to ask."""
    found = scope.get(BODY_KEY)
    if found is None:
        try:
            found = orjson.loads(body)
        except orjson.JSONDecodeError:
            found = NOT_JSON
        scope[BODY_KEY] = found
    return found


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
    if request.method != "GET" or OPERATION_PARAMS.intersection(request.query_params):
        return False
    accept = request.headers.get("accept", "")
    return "text/html" in accept


@dataclass(frozen=True, slots=True)
class Params:
    """What a request asks: the document's text, its variables and the operation to run."""

    query: str
    variables: dict[str, Any] | None
    operation_name: str | None
    extensions: dict[str, Any] | None = None
    # The persisted-query hash to register the text under once it validates.
    register: str | None = None


class Refusal(Exception):
    """A request refused before it runs: the status, the error body and any headers."""

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None):
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers


def bad_request(message: str) -> Refusal:
    return Refusal(400, error_body(Code.GRAPHQL_PARSE_FAILED, message))


def _json_param(raw: dict[str, Any], name: str) -> None:
    """Decode the URL parameter ``name`` (JSON text) in place."""
    if name in raw:
        try:
            raw[name] = orjson.loads(raw[name]) if raw[name] else None
        except orjson.JSONDecodeError:
            raise bad_request(f"The {name} parameter is not JSON.") from None


def url_params(request: Request) -> dict[str, Any]:
    """The parameters of a GET request, variables and extensions decoded."""
    raw: dict[str, Any] = dict(request.query_params)
    _json_param(raw, "variables")
    _json_param(raw, "extensions")
    return raw


async def body_params(request: Request) -> dict[str, Any]:
    """The parameters of a POST request: its JSON body, capped (as the edge parsed it, when
    it did)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != JSON:
        message = f"Send the request body as {JSON}."
        raise Refusal(415, error_body(Code.GRAPHQL_PARSE_FAILED, message))
    raw = request.scope.get(BODY_KEY)
    if raw is None:
        body = await read_capped(request, MAX_BODY_BYTES)
        if body is None:
            message = f"The request body is larger than {MAX_BODY_BYTES} bytes."
            raise Refusal(413, error_body(Code.GRAPHQL_PARSE_FAILED, message))
        raw = parsed_body(request.scope, body)
    if raw is NOT_JSON:
        raise bad_request("The request body is not JSON.")
    if not isinstance(raw, dict):
        raise bad_request("The request body must be a JSON object.")
    return raw


def checked_params(raw: dict[str, Any]) -> Params:
    """The request's parameters, each of the type the spec gives it, or Refusal."""
    query = raw.get("query")
    variables = raw.get("variables")
    operation_name = raw.get("operationName")
    extensions = raw.get("extensions")
    by_hash = query in (None, "") and asks_by_hash(extensions)
    if not by_hash and (not isinstance(query, str) or not query.strip()):
        raise bad_request("The request must carry a query string (or a persisted query's hash).")
    if variables is not None and not isinstance(variables, dict):
        raise bad_request("variables must be a JSON object.")
    if operation_name is not None and not isinstance(operation_name, str):
        raise bad_request("operationName must be a string.")
    if extensions is not None and not isinstance(extensions, dict):
        raise bad_request("extensions must be a JSON object.")
    return Params(query or "", variables, operation_name or None, extensions)
