"""Reading records as the caller: one record, pages of an object, a record's change log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

import asyncpg
import orjson

from db import records
from db.records import RecordRow
from resolvers.common import ids
from resolvers.common.errors import Problem, invalid, not_found
from resolvers.common.pages import check_page_size
from resolvers.common.principals import Principal

MAX_CHANGES = 100
MAX_LABEL_FILTER_CHARS = 200
MAX_VALUE_FILTERS = 20


@dataclass(frozen=True, slots=True)
class RecordFilter:
    label_contains: str | None = None
    values_contain: dict[str, Any] | None = None
    related_to: UUID | None = None


@dataclass(frozen=True, slots=True)
class RecordPage:
    records: list[RecordRow]
    has_next_page: bool


async def record(conn: asyncpg.Connection, principal: Principal, record_id: UUID) -> RecordRow:
    """One record the caller may read; NOT_FOUND whether it is absent or unreadable."""
    found = await records.records_by_ids(
        conn, [record_id], principal.readable_objects, principal.person_id
    )
    if not found:
        raise not_found()
    return found[0]


async def record_page(
    conn: asyncpg.Connection,
    principal: Principal,
    object_slug: str,
    *,
    first: int | None,
    after: str | None,
    where: RecordFilter,
) -> RecordPage:
    """A page of the records of ``object_slug`` the caller may read (filtered in SQL)."""
    size = check_page_size(first)
    cursor = ids.decode_cursor(after) if after else None
    problems = []
    if where.label_contains is not None and len(where.label_contains) > MAX_LABEL_FILTER_CHARS:
        message = f"must be at most {MAX_LABEL_FILTER_CHARS} characters"
        problems.append(Problem(message, field="filter.labelContains"))
    if where.values_contain is not None and len(where.values_contain) > MAX_VALUE_FILTERS:
        message = f"at most {MAX_VALUE_FILTERS} attributes"
        problems.append(Problem(message, field="filter.values"))
    if problems:
        raise invalid(problems)
    if where.values_contain is not None:
        try:
            orjson.dumps(where.values_contain)
        except orjson.JSONEncodeError:
            # An integer past 64 bits (only a GraphQL literal can carry one): no stored value.
            raise invalid(
                [Problem("not a JSON value that can be stored", field="filter.values")]
            ) from None
    rows = await records.records_page(
        conn,
        object_slug,
        principal.readable_objects,
        principal.person_id,
        after=cursor.key if cursor else None,
        after_created_at=cursor.created_at if cursor else None,
        limit=size + 1,
        label_contains=where.label_contains,
        values_contain=where.values_contain,
        related_to=where.related_to,
    )
    return RecordPage(rows[:size], len(rows) > size)


def check_changes_size(first: int) -> int:
    """How many change-log entries to read, within 0..MAX_CHANGES."""
    if not 0 <= first <= MAX_CHANGES:
        raise invalid([Problem(f"must be between 0 and {MAX_CHANGES}", field="first")])
    return first
