"""How many items a page of a list holds: the size asked for, or the default, never past the
cap."""

from __future__ import annotations

from resolvers.common.errors import Problem, invalid

MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20


def check_page_size(first: int | None, field: str = "first") -> int:
    """The page size asked for, within 0..MAX_PAGE_SIZE."""
    if first is None:
        return DEFAULT_PAGE_SIZE
    if not 0 <= first <= MAX_PAGE_SIZE:
        raise invalid([Problem(f"must be between 0 and {MAX_PAGE_SIZE}", field=field)])
    return first
