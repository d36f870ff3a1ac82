"""The official `anthropic` SDK's error body, for the routes that answer it (issue 14):
``{"type": "error", "error": {"type", "message", "details": {"error_code"}}, "request_id"}``
with the ``request-id`` header, each of our codes (DESIGN §8) as the SDK's error type and
status (../shared/ANTHROPIC-WIRE.md §1). A refusal a retry cannot change carries
``x-should-retry: false``: the SDK otherwise sends a 409 three times."""

from __future__ import annotations

from typing import Any

from resolvers.common.errors import HTTP_STATUS, Code, DomainError

# The paths that speak the SDK's conventions (and only these).
ANTHROPIC_PREFIXES = ("/v1/skills", "/v1/memory_stores", "/v1/dreams")

# Our code -> the SDK's error type (the status is our code's, resolvers/common/errors.py).
ERROR_TYPES: dict[Code, str] = {
    Code.SCHEMA_VALIDATION_FAILED: "invalid_request_error",
    Code.GRAPHQL_PARSE_FAILED: "invalid_request_error",
    Code.GRAPHQL_VALIDATION_FAILED: "invalid_request_error",
    Code.UNAUTHENTICATED: "authentication_error",
    Code.FORBIDDEN: "permission_error",
    Code.SCHEMA_SYSTEM_ENTITY_IMMUTABLE: "permission_error",
    Code.NOT_FOUND: "not_found_error",
    Code.MEMORY_PRECONDITION_FAILED: "memory_precondition_failed_error",
    Code.SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED: "rate_limit_error",
    Code.DB_UNAVAILABLE: "api_error",
    Code.INTERNAL: "api_error",
}
# Statuses the SDK retries by itself (408, 409, 429, >= 500) that a retry cannot change.
NOT_RETRIED = {Code.MEMORY_PRECONDITION_FAILED}


def is_anthropic_path(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in ANTHROPIC_PREFIXES)


class ApiError(Exception):
    """A refusal in the SDK's terms: its status, error type and message; ``error_code`` picks a
    narrower SDK exception (e.g. 409 ``skill_name_taken``); ``retry`` False stops the SDK's
    retries."""

    def __init__(
        self,
        status: int,
        type: str,
        message: str,
        *,
        error_code: str | None = None,
        retry: bool | None = None,
        problems: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.type = type
        self.message = message
        self.error_code = error_code
        self.retry = retry
        self.problems = problems or []

    @classmethod
    def of(cls, error: DomainError) -> ApiError:
        """A DomainError in the SDK's terms; its problems, each ``field: message``, in the
        message too (the SDK shows the message)."""
        problems = [p.as_dict() for p in error.problems]
        listed = "; ".join(
            f"{p['field']}: {p['message']}" if "field" in p else str(p["message"]) for p in problems
        )
        message = f"{error.message} {listed}" if listed else error.message
        return cls(
            HTTP_STATUS[error.code],
            ERROR_TYPES[error.code],
            message,
            error_code=error.code.value,
            retry=False if error.code in NOT_RETRIED else None,
            problems=problems,
        )


def error_body(error: ApiError, request_id: str | None) -> dict[str, Any]:
    details: dict[str, Any] = {}
    if error.error_code is not None:
        details["error_code"] = error.error_code
    if error.problems:
        details["problems"] = error.problems
    inner: dict[str, Any] = {"type": error.type, "message": error.message}
    if details:
        inner["details"] = details
    return {"type": "error", "error": inner, "request_id": request_id}


def error_headers(error: ApiError, request_id: str | None) -> dict[str, str]:
    headers = {"request-id": request_id} if request_id else {}
    if error.retry is not None:
        headers["x-should-retry"] = "true" if error.retry else "false"
    return headers


def refusal(
    status: int, code: Code, message: str, problems: list[dict[str, Any]] | None = None
) -> ApiError:
    """The edge's refusal (no token, a body too large or too slow, NUL) in the SDK's terms."""
    return ApiError(status, ERROR_TYPES[code], message, error_code=code.value, problems=problems)
