"""What every route of the `anthropic` SDK's groups shares (issue 14; ../shared/ANTHROPIC-WIRE.md
§1-2): the handler wrapper that answers errors in the SDK's shape and tags each answer with its
``request-id``, JSON bodies and query strings read with pydantic models, cursor pages
(``data``, ``next_page``), the SDK-style ids (``skill_…``) over our global ids, and the
``anthropic-beta`` header as a comma-separated list.

The edge (gateway/http/auth.py) runs first, as for every route: the token, the body's size and
NUL, one connection and transaction (``request.scope["principal"]``, ``["db"]``); its refusals on
these paths are in the SDK's shape too (errors.py)."""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import parse_qsl
from uuid import UUID, uuid4

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from starlette.requests import Request
from starlette.responses import Response

from gateway.anthropic.errors import (
    ANTHROPIC_PREFIXES,
    ApiError,
    error_body,
    error_headers,
)
from resolvers.common import ids
from resolvers.common.errors import DomainError, not_found

__all__ = [
    "ANTHROPIC_PREFIXES",
    "ApiError",
    "QueryModel",
    "anthropic_route",
    "betas",
    "decode_page",
    "encode_page",
    "json_body",
    "local_id",
    "page_of",
    "public_id",
    "query_params",
]

M = TypeVar("M", bound=BaseModel)
Handler = Callable[[Request], Awaitable[Response | BaseModel | dict[str, Any]]]


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        orjson.dumps(body), status_code=status, media_type="application/json", headers=headers
    )


def error_response(error: ApiError, request_id: str | None) -> Response:
    return _json(error_body(error, request_id), error.status, error_headers(error, request_id))


def anthropic_route(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """The route for ``handler``: what it returns as JSON (a model by its JSON form), every
    ApiError and DomainError in the SDK's shape, and ``request-id`` on every answer."""

    @functools.wraps(handler)
    async def route(request: Request) -> Response:
        request_id = request.scope.get("request_id")
        try:
            found = await handler(request)
        except ApiError as error:
            return error_response(error, request_id)
        except DomainError as error:
            return error_response(ApiError.of(error), request_id)
        if isinstance(found, BaseModel):
            found = _json(found.model_dump(mode="json"))
        elif not isinstance(found, Response):
            found = _json(found)
        if request_id:
            found.headers["request-id"] = request_id
        return found

    return route


def _problems(error: ValidationError, where: str) -> ApiError:
    problems = []
    for e in error.errors(include_url=False, include_input=False):
        field = ".".join(str(part) for part in e["loc"])
        problems.append(
            {"field": f"{where}{field}" if field else where or "body", "message": e["msg"]}
        )
    listed = "; ".join(f"{p['field']}: {p['message']}" for p in problems)
    return ApiError(
        400,
        "invalid_request_error",
        f"The input is not valid. {listed}",
        error_code="SCHEMA_VALIDATION_FAILED",
        problems=problems,
    )


async def json_body(request: Request, model: type[M]) -> M:
    """The request's JSON object read by ``model`` (an empty body, as the SDK sends for a
    bodyless POST, is ``{}``); ApiError 400 listing every problem."""
    raw = await request.body()
    try:
        parsed = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError as error:
        raise ApiError(400, "invalid_request_error", f"The body is not JSON: {error}") from None
    if not isinstance(parsed, dict):
        raise ApiError(400, "invalid_request_error", "The body is not a JSON object.")
    try:
        return model.model_validate(parsed)
    except ValidationError as error:
        raise _problems(error, "") from None


class QueryModel(BaseModel):
    """A query string's parameters: read from text (``limit=20`` is 20, ``true`` is True);
    parameters the route does not know are left alone. A time without its offset (the SDK
    sends a naive datetime so) is UTC."""

    model_config = ConfigDict(extra="ignore")

    @field_validator("*", mode="after")
    @classmethod
    def _utc(cls, value: Any) -> Any:
        if isinstance(value, datetime) and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


def _query_name(key: str) -> str:
    """``statuses[]`` -> ``statuses``; ``created_at[gte]`` -> ``created_at_gte``."""
    if key.endswith("[]"):
        return key[:-2]
    if key.endswith("]") and "[" in key:
        base, _, rest = key.partition("[")
        return f"{base}_{rest[:-1]}"
    return key


def query_params(request: Request, model: type[M]) -> M:
    """The query string read by ``model``: ``key[]`` repeated is a list, a bracketed key is
    ``key_part``; ApiError 400 listing every problem."""
    found: dict[str, Any] = {}
    for key, value in parse_qsl(request.url.query, keep_blank_values=True):
        if key.endswith("[]"):
            found.setdefault(_query_name(key), []).append(value)
        else:
            found[_query_name(key)] = value
    try:
        return model.model_validate(found)
    except ValidationError as error:
        raise _problems(error, "") from None


def page_of(items: Sequence[BaseModel | dict[str, Any]], next_page: str | None) -> dict[str, Any]:
    """A cursor page as the SDK reads it: the last page says ``next_page: null``."""
    data = [i.model_dump(mode="json") if isinstance(i, BaseModel) else i for i in items]
    return {"data": data, "next_page": next_page or None}


def encode_page(*parts: str) -> str:
    """An opaque page token holding ``parts`` (e.g. the last item's time and id)."""
    return base64.urlsafe_b64encode(orjson.dumps(list(parts))).decode().rstrip("=")


def decode_page(token: str, count: int) -> list[str]:
    """The ``count`` parts of a page token; ApiError 400 for one this server did not write."""
    try:
        padded = token + "=" * (-len(token) % 4)
        parts = orjson.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, binascii.Error, orjson.JSONDecodeError):
        parts = None
    if not (
        isinstance(parts, list)
        and len(parts) == count
        and all(isinstance(p, str) and "\x00" not in p for p in parts)
    ):
        raise ApiError(400, "invalid_request_error", "page is not a page token this list gave.")
    return parts


def public_id(prefix: str, type_name: str, workspace_id: UUID, local: UUID) -> str:
    """The SDK-style id of a node: ``<prefix>_`` and its global id."""
    return f"{prefix}_{ids.encode(type_name, workspace_id, local)}"


def local_id(prefix: str, type_name: str, given: str, workspace_id: UUID, what: str = "") -> UUID:
    """The local id behind an SDK-style id; a malformed id, another type's or another
    workspace's is answered 404 exactly like a missing one: the resolvers' own not-found."""
    missing = not_found(what or type_name.lower())
    head, sep, rest = given.partition("_")
    if not sep or head != prefix:
        raise missing
    try:
        return ids.decode(rest, type_name, workspace_id)
    except DomainError:
        raise missing from None


def local_or_absent(
    prefix: str, type_name: str, given: str, workspace_id: UUID, what: str = ""
) -> UUID:
    """The local id behind an SDK-style id, or for a malformed id, another type's or another
    workspace's one that names nothing: where the resolver has its own answer for a missing
    id (one of several, or one that must equal another), that answer is the one given."""
    try:
        return local_id(prefix, type_name, given, workspace_id, what)
    except DomainError:
        return uuid4()


def betas(request: Request) -> frozenset[str]:
    """The ``anthropic-beta`` values: every header, each a comma-separated list."""
    values = request.headers.getlist("anthropic-beta")
    return frozenset(v.strip() for header in values for v in header.split(",") if v.strip())
