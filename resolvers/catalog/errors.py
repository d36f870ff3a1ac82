"""How a catalogue call fails (pure): the source is unavailable (down, slow, 5xx after the
retries), the thing asked for is not found (404), or what came back is refused (malformed, over
a cap, a hostile archive, a folder the product's rules refuse), with every problem."""

from __future__ import annotations

from typing import Literal

from resolvers.common.errors import Code, DomainError, Problem

Reason = Literal["unavailable", "not_found", "refused"]

_CODES: dict[Reason, Code] = {
    "unavailable": Code.INTERNAL,
    "not_found": Code.NOT_FOUND,
    "refused": Code.SCHEMA_VALIDATION_FAILED,
}


class CatalogError(Exception):
    """A catalogue call that failed: ``reason``, a message safe to show, every problem."""

    def __init__(self, reason: Reason, message: str, problems: list[Problem] | None = None):
        super().__init__(message)
        self.reason: Reason = reason
        self.message = message
        self.problems = list(problems or [])

    def domain_error(self) -> DomainError:
        """The error a client sees (``unavailable`` has no code of its own in DESIGN §8: the
        caller decides; INTERNAL here)."""
        return DomainError(_CODES[self.reason], self.message, self.problems)


def unavailable(message: str) -> CatalogError:
    return CatalogError("unavailable", message)


def not_found(message: str) -> CatalogError:
    return CatalogError("not_found", message)


def refused(message: str, problems: list[Problem] | None = None) -> CatalogError:
    return CatalogError("refused", message, problems or [Problem(message)])
