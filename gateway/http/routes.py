"""The plain HTTP routes: health, readiness, and the bulk record route for partners."""

from __future__ import annotations

import logging
import re

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gateway.http.auth import plain_error
from resolvers.common.errors import Code, DomainError, Problem
from resolvers.records.write import write_records
from schema.errors import DB_DOWN

log = logging.getLogger("skillmem.routes")


MAX_RECORDS_BODY_BYTES = 10 * 1024 * 1024


async def read_capped(request: Request, limit: int) -> bytes | None:
    """The request body, or None once it passes ``limit`` bytes (never read further)."""
    declared = request.headers.get("content-length")
    if declared is not None and re.fullmatch(r"[0-9]{1,18}", declared) and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def too_large(limit: int) -> Response:
    message = f"The request body is larger than {limit} bytes."
    return json_response(plain_error(Code.SCHEMA_VALIDATION_FAILED, message), 413)


def json_response(body: object, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


async def healthz(request: Request) -> Response:
    """The process answers."""
    return json_response({"status": "ok"})


async def readyz(request: Request) -> Response:
    """The database answers."""
    pool = request.app.state.pool
    try:
        if pool is None:
            raise ConnectionRefusedError("no pool")
        async with pool.acquire(timeout=2) as conn:
            await conn.fetchval("SELECT 1")
    except DB_DOWN:
        return json_response(
            plain_error(
                Code.DB_UNAVAILABLE, "The database is unavailable.", request.scope["request_id"]
            ),
            503,
        )
    return json_response({"status": "ready"})


def domain_error_response(error: DomainError) -> Response:
    return json_response(
        plain_error(error.code, error.message, problems=[p.as_dict() for p in error.problems]),
        error.status,
    )


async def post_records(request: Request) -> Response:
    """Create or update records: a JSON array, `{"records": [...]}`, or JSON lines."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await read_capped(request, MAX_RECORDS_BODY_BYTES)
    if body is None:
        return too_large(MAX_RECORDS_BODY_BYTES)
    try:
        if content_type in ("application/x-ndjson", "application/jsonl", "application/json-lines"):
            lines, refused = _json_lines(body)
            if refused:
                return domain_error_response(
                    DomainError(
                        Code.SCHEMA_VALIDATION_FAILED,
                        f"Nothing was written: {len(refused)} line(s) are not JSON.",
                        refused,
                    )
                )
        elif content_type == "application/json":
            parsed = orjson.loads(body)
            lines = parsed.get("records") if isinstance(parsed, dict) else parsed
            if not isinstance(lines, list):
                raise ValueError("expected a list of records")
        else:
            return json_response(
                plain_error(
                    Code.SCHEMA_VALIDATION_FAILED,
                    'Send application/json (a list, or {"records": [...]})'
                    " or application/x-ndjson.",
                ),
                415,
            )
    except (orjson.JSONDecodeError, ValueError) as error:
        return json_response(
            plain_error(Code.SCHEMA_VALIDATION_FAILED, f"The body is not valid: {error}"), 400
        )
    try:
        results = await write_records(request.scope["db"], request.scope["principal"], lines)
    except DomainError as error:
        return domain_error_response(error)
    counts = {"create": 0, "update": 0, "unchanged": 0}
    for result in results:
        counts[result.operation] += 1
    return json_response(
        {
            "created": counts["create"],
            "updated": counts["update"],
            "unchanged": counts["unchanged"],
            "records": [{"line": r.line, "id": r.id, "operation": r.operation} for r in results],
        }
    )


def _json_lines(body: bytes) -> tuple[list[object], list[Problem]]:
    """Each non-blank line of a JSON-lines body, and a problem for each that is not JSON
    (numbered by its line in the body)."""
    lines: list[object] = []
    refused: list[Problem] = []
    for number, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            lines.append(orjson.loads(line))
        except orjson.JSONDecodeError as error:
            refused.append(Problem(f"not JSON: {error.msg}", line=number))
    return lines, refused


async def not_found(request: Request, exc: Exception) -> Response:
    return json_response(plain_error(Code.NOT_FOUND, "No such route."), 404)


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    message = "This route does not answer this method."
    return JSONResponse(plain_error(Code.SCHEMA_VALIDATION_FAILED, message), 405)
