"""Memory's cleanup runs as operators see them (issue 11, item 5): removals and
consolidations with their changes, and what says whether a reader may read each change's page
(db/queries/cleanup_runs.sql; the runs are written through db/cleanups.py and db/removal.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("cleanup_runs")


@dataclass(frozen=True, slots=True)
class RunRow:
    """One run with its audience's and payer's names and how many changes it made."""

    id: UUID
    kind: str
    audience_kind: str
    audience_id: UUID | None
    audience_name: str | None
    trigger: str
    rules_version: int
    payer_kind: str | None
    payer_id: UUID | None
    payer_name: str | None
    reader: str
    pages_read: int
    lines_changed: int
    pages_deleted: int
    input_tokens: int
    output_tokens: int
    cost_usd: str
    note: str
    started_at: datetime
    finished_at: datetime
    change_count: int


async def runs(
    conn: asyncpg.Connection,
    person: UUID | None,
    every: bool,
    kind: str | None,
    first: int,
    after: tuple[datetime, UUID] | None,
) -> list[RunRow]:
    """The runs of a person's own audience (every run when ``every``), newest first."""
    at, last = after if after else (None, None)
    rows = await conn.fetch(Q["runs"], person, every, kind, first, at, last)
    return [RunRow(**dict(row)) for row in rows]


@dataclass(frozen=True, slots=True)
class ChangeRow:
    """One change of a run, with the facts of its page's read rule (None: no such page)."""

    cleanup_id: UUID
    number: int
    page_id: UUID
    change: str
    reason: str
    line_key: str | None
    text: str | None
    new_text: str | None
    new_type: str | None
    about_kind: str | None
    member_id: UUID | None
    memory_object_id: UUID | None
    subject_readable: bool


async def changes(
    conn: asyncpg.Connection,
    cleanup_ids: Sequence[UUID],
    after: int,
    first: int,
    readable: Sequence[UUID],
    person: UUID | None,
) -> list[ChangeRow]:
    """The changes of each run numbered after ``after``, at most ``first`` a run, in order."""
    rows = await conn.fetch(Q["changes"], list(cleanup_ids), after, first, list(readable), person)
    return [ChangeRow(**dict(row)) for row in rows]
