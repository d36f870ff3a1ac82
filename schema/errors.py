"""Every GraphQL error leaves with `extensions.code`; unexpected ones are masked."""

from __future__ import annotations

import logging
from typing import Any

import asyncpg
from graphql import GraphQLError

from resolvers.common.errors import Code, DomainError

log = logging.getLogger("skillmem.errors")

# Failures that mean the database cannot be reached or cannot serve now. InternalClientError:
# a pooled connection whose server died as it sent its last error ("cannot switch to state …;
# another operation (2) is in progress": still consuming that error) fails its next statement
# with it, before asyncpg has seen the socket close.
DB_DOWN = (
    OSError,
    asyncpg.CannotConnectNowError,
    asyncpg.ConnectionDoesNotExistError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    asyncpg.TooManyConnectionsError,
    TimeoutError,
)


# graphql-core's own refusal of an argument's value at execution time (a null variable given
# to a non-null argument that has a default): the client's input, not a failure of ours.
ARGUMENT_REFUSED = "Argument '"


def classify(error: BaseException | None, message: str = "") -> Code:
    """The code an exception raised inside a resolver answers with (``message``: the
    GraphQL error's, for graphql-core's own errors, which carry no exception)."""
    own = error is None or (isinstance(error, GraphQLError) and error.original_error is None)
    if own and message.startswith(ARGUMENT_REFUSED):
        return Code.GRAPHQL_VALIDATION_FAILED
    if isinstance(error, DomainError):
        return error.code
    if isinstance(error, DB_DOWN):
        return Code.DB_UNAVAILABLE
    return Code.INTERNAL


def format_error(
    error: GraphQLError, request_id: str, *, request_code: Code | None = None
) -> dict[str, Any]:
    """The JSON form of one error. Request errors (parse, validation, variables) pass
    ``request_code``; field errors are classified by their original exception."""
    if request_code is not None:
        found: dict[str, Any] = {"message": error.message}
        if error.locations:
            found["locations"] = [
                {"line": loc.line, "column": loc.column} for loc in error.locations
            ]
        found["extensions"] = {**(error.extensions or {}), "code": request_code.value}
        return found
    original = error.original_error
    code = classify(original, error.message)
    if code is Code.INTERNAL and isinstance(original, DomainError):
        # Raised on purpose with a message written to be shown (an outside source that did
        # not answer): kept, with the request id.
        log.warning("request %s: %s", request_id, original.message)
        message = original.message
    elif code is Code.INTERNAL:
        log.error("request %s: unexpected error at %s", request_id, error.path, exc_info=original)
        message = "Internal error."
    elif code is Code.DB_UNAVAILABLE:
        log.warning("request %s: database unavailable: %r", request_id, original)
        message = "The database is unavailable."
    else:
        message = error.message
    found = {"message": message}
    if error.locations:
        found["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    if error.path is not None:
        found["path"] = error.path
    extensions: dict[str, Any] = {"code": code.value}
    if isinstance(original, DomainError) and original.problems:
        extensions["problems"] = [p.as_dict() for p in original.problems]
    if code in (Code.INTERNAL, Code.DB_UNAVAILABLE):
        extensions["requestId"] = request_id
    found["extensions"] = extensions
    return found


def error_body(
    code: Code,
    message: str,
    request_id: str | None = None,
    problems: list[dict[str, Any]] | None = None,
    *,
    plain: bool = False,
) -> dict[str, Any]:
    """The body of a response holding one request-level error: GraphQL's
    ``{"errors": [{"message", "extensions": {"code", ...}}]}``, or with ``plain`` the plain
    routes' ``{"error": {"code", "message", ...}}``. Both carry the same fields: the code, the
    problems if any, and the request id for the masked codes."""
    fields: dict[str, Any] = {"code": code.value}
    if problems:
        fields["problems"] = problems
    if request_id is not None and code in (Code.INTERNAL, Code.DB_UNAVAILABLE):
        fields["requestId"] = request_id
    if plain:
        return {"error": {"code": fields.pop("code"), "message": message, **fields}}
    return {"errors": [{"message": message, "extensions": fields}]}
