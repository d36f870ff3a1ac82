"""What every plain route shares: JSON responses, error bodies, and a capped body read."""

from __future__ import annotations

import re
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from resolvers.common.errors import Code, DomainError
from schema.errors import error_body

# The cap on a plain route's small JSON body (settings, preferences, export options).
MAX_JSON_BODY_BYTES = 64 * 1024
# The media types of a JSON-lines body.
JSON_LINES = ("application/x-ndjson", "application/jsonl", "application/json-lines")
CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")


# A JSON answer's content type, as a raw header.
JSON_CONTENT_TYPE = (b"content-type", b"application/json")


class RawResponse(Response):
    """An answer whose raw headers are given prebuilt, in the order Starlette's own
    ``Response`` lists them (no header mapping built and encoded for each answer)."""

    def __init__(self, body: bytes, status: int, raw_headers: list[tuple[bytes, bytes]]) -> None:
        self.body = body
        self.status_code = status
        self.raw_headers = raw_headers
        self.background = None


def raw_json_response(payload: bytes, status: int, content_type: tuple[bytes, bytes]) -> Response:
    """``payload`` answered with ``status``, its length and ``content_type`` (a raw header),
    as ``Response(payload, status, media_type=...)`` answers it."""
    if status < 200 or status in (204, 304):
        return Response(payload, status, media_type=content_type[1].decode("latin-1"))
    return RawResponse(payload, status, [(b"content-length", b"%d" % len(payload)), content_type])


def json_response(body: object, status: int = 200) -> Response:
    return raw_json_response(orjson.dumps(body), status, JSON_CONTENT_TYPE)


def error_response(
    code: Code, message: str, status: int | None = None, request_id: str | None = None
) -> Response:
    """A plain route's error: ``{"error": {"code", "message"}}`` with the code's status."""
    body = error_body(code, message, request_id, plain=True)
    return json_response(body, status or DomainError(code, message).status)


def domain_error_response(error: DomainError) -> Response:
    problems = [p.as_dict() for p in error.problems]
    return json_response(
        error_body(error.code, error.message, problems=problems, plain=True), error.status
    )


def too_large(limit: int) -> Response:
    message = f"The request body is larger than {limit} bytes."
    return error_response(Code.SCHEMA_VALIDATION_FAILED, message, 413)


def declared_too_large(request: Request, limit: int) -> bool:
    """The request's Content-Length already says it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    return (
        declared is not None
        and bool(CONTENT_LENGTH.fullmatch(declared))
        and (int(declared) > limit)
    )


async def read_capped(request: Request, limit: int) -> bytes | None:
    """The request body, or None once it passes ``limit`` bytes (never read further)."""
    if declared_too_large(request, limit):
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def json_object_body(
    request: Request,
    *,
    empty: dict[str, Any] | None = None,
    usage: str | None = None,
    limit: int = MAX_JSON_BODY_BYTES,
) -> dict[str, Any] | Response:
    """A small JSON object body (at most ``limit`` bytes), or the response refusing it: 413
    past the cap, else 400 (``usage`` when given). An empty body is ``empty`` when given."""
    body = await read_capped(request, limit)
    if body is None:
        return too_large(limit)
    if empty is not None and not body.strip():
        return dict(empty)
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        message = usage or f"The body is not JSON: {error.msg}"
        return error_response(Code.SCHEMA_VALIDATION_FAILED, message)
    if not isinstance(parsed, dict):
        return error_response(Code.SCHEMA_VALIDATION_FAILED, usage or "The body is a JSON object.")
    return parsed


async def not_found(request: Request, exc: Exception) -> Response:
    """The answer for a path no route serves."""
    return error_response(Code.NOT_FOUND, "No such route.")


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    """The answer for a route asked with a method it does not serve."""
    message = "This route does not answer this method."
    return error_response(Code.SCHEMA_VALIDATION_FAILED, message, 405)
