"""Expected failures as values: a code from DESIGN §8, a message, and every problem found."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Code(StrEnum):
    SCHEMA_VALIDATION_FAILED = "SCHEMA_VALIDATION_FAILED"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    SCHEMA_SYSTEM_ENTITY_IMMUTABLE = "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"
    NOT_FOUND = "NOT_FOUND"
    MEMORY_PRECONDITION_FAILED = "MEMORY_PRECONDITION_FAILED"
    SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED = "SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED"
    GRAPHQL_PARSE_FAILED = "GRAPHQL_PARSE_FAILED"
    GRAPHQL_VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED"
    DB_UNAVAILABLE = "DB_UNAVAILABLE"
    INTERNAL = "INTERNAL"


# The HTTP status each code answers with on the plain routes (and on GraphQL request errors).
HTTP_STATUS: dict[Code, int] = {
    Code.SCHEMA_VALIDATION_FAILED: 400,
    Code.UNAUTHENTICATED: 401,
    Code.FORBIDDEN: 403,
    Code.SCHEMA_SYSTEM_ENTITY_IMMUTABLE: 403,
    Code.NOT_FOUND: 404,
    Code.MEMORY_PRECONDITION_FAILED: 409,
    Code.SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED: 429,
    Code.GRAPHQL_PARSE_FAILED: 400,
    Code.GRAPHQL_VALIDATION_FAILED: 400,
    Code.DB_UNAVAILABLE: 503,
    Code.INTERNAL: 500,
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: where (a field or path, a line) and why."""

    message: str
    field: str | None = None
    line: int | None = None
    code: Code | None = None

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"message": self.message}
        if self.field is not None:
            found["field"] = self.field
        if self.line is not None:
            found["line"] = self.line
        if self.code is not None:
            found["code"] = self.code.value
        return found


@dataclass(slots=True)
class DomainError(Exception):
    """An expected failure, reported to the client with its code and problems."""

    code: Code
    message: str
    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        Exception.__init__(self, self.message)

    @property
    def status(self) -> int:
        return HTTP_STATUS[self.code]


def not_found(what: str = "record") -> DomainError:
    """The one answer for a thing that is absent or that the caller may not read."""
    return DomainError(Code.NOT_FOUND, f"No {what} with this id.")


def invalid(problems: list[Problem], message: str = "The input is not valid.") -> DomainError:
    """A validation failure listing every problem."""
    return DomainError(Code.SCHEMA_VALIDATION_FAILED, message, problems)
