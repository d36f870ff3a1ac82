"""POST /v1/records: partners create or update records in bulk (JSON array or JSON lines)."""

from __future__ import annotations

import orjson
from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from gateway.http.fields import Answer
from gateway.http.responses import (
    JSON_LINES,
    domain_error_response,
    error_response,
    json_response,
    read_capped,
    too_large,
)
from resolvers.common.errors import Code, DomainError, Problem
from resolvers.records.write import summary, write_records

MAX_RECORDS_BODY_BYTES = 10 * 1024 * 1024
UNSUPPORTED = 'Send application/json (a list, or {"records": [...]}) or application/x-ndjson.'


class RecordWritten(Answer):
    line: int = Field(description="The line of the body (from 1).")
    id: str
    operation: str = Field(description="create, update or unchanged.")


class RecordsAnswer(Answer):
    created: int
    updated: int
    unchanged: int
    records: list[RecordWritten]


async def post_records(request: Request) -> Response:
    """Create or update records: a JSON array, `{"records": [...]}`, or JSON lines."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in (*JSON_LINES, "application/json"):
        return error_response(Code.SCHEMA_VALIDATION_FAILED, UNSUPPORTED, 415)
    body = await read_capped(request, MAX_RECORDS_BODY_BYTES)
    if body is None:
        return too_large(MAX_RECORDS_BODY_BYTES)
    try:
        lines = _json_lines(body) if content_type in JSON_LINES else _json_list(body)
        results = await write_records(request.scope["db"], request.scope["principal"], lines)
    except DomainError as error:
        return domain_error_response(error)
    return json_response(summary(results))


def _json_list(body: bytes) -> list[object]:
    """The records of a JSON body: a list, or an object's "records" list."""
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise _not_valid(str(error)) from None
    lines = parsed.get("records") if isinstance(parsed, dict) else parsed
    if not isinstance(lines, list):
        raise _not_valid("expected a list of records")
    return lines


def _not_valid(reason: str) -> DomainError:
    return DomainError(Code.SCHEMA_VALIDATION_FAILED, f"The body is not valid: {reason}")


def _json_lines(body: bytes) -> list[object]:
    """Each non-blank line of a JSON-lines body; DomainError listing every line that is not
    JSON (numbered by its line in the body)."""
    lines: list[object] = []
    refused: list[Problem] = []
    for number, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            lines.append(orjson.loads(line))
        except orjson.JSONDecodeError as error:
            refused.append(Problem(f"not JSON: {error.msg}", line=number))
    if refused:
        message = f"Nothing was written: {len(refused)} line(s) are not JSON."
        raise DomainError(Code.SCHEMA_VALIDATION_FAILED, message, refused)
    return lines
