"""Memory's upkeep runs as recorded (issue 11): one row per removal or consolidation run, and
one per line it changed (migration 0014)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("cleanups")


@dataclass(frozen=True, slots=True)
class CleanupRow:
    """One run: its kind (removal, consolidation), its audience (a member's private pages, or
    the workspace's: audience_id None), why it ran, what it read, changed and cost."""

    id: UUID
    kind: str
    audience_kind: str
    audience_id: UUID | None
    trigger: str
    reader: str
    started_at: datetime
    finished_at: datetime
    rules_version: int = 0
    payer_kind: str | None = None
    payer_id: UUID | None = None
    pages_read: int = 0
    lines_changed: int = 0
    pages_deleted: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: Decimal = Decimal(0)
    note: str = ""


@dataclass(frozen=True, slots=True)
class ChangeRow:
    """One line a run changed (or a page it deleted: no key, no text), and why."""

    page_id: UUID
    change: str  # removed, retyped, rewritten, merged, page_deleted
    reason: str  # ended, review_passed, source_gone, source_closed, page_empty, retyped, ...
    line_key: str | None = None
    text: str | None = None
    new_text: str | None = None
    new_type: str | None = None


async def insert_cleanup(conn: asyncpg.Connection, row: CleanupRow) -> None:
    await conn.execute(
        Q["insert_cleanup"],
        row.id,
        row.kind,
        row.audience_kind,
        row.audience_id,
        row.trigger,
        row.rules_version,
        row.payer_kind,
        row.payer_id,
        row.reader,
        row.pages_read,
        row.lines_changed,
        row.pages_deleted,
        row.input_tokens,
        row.output_tokens,
        row.cost_usd,
        row.note,
        row.started_at,
        row.finished_at,
    )


async def insert_changes(
    conn: asyncpg.Connection, cleanup_id: UUID, changes: Sequence[ChangeRow], at: datetime
) -> None:
    """Record ``changes`` of the run ``cleanup_id`` (its row inserted first), numbered from 1."""
    if not changes:
        return
    await conn.execute(
        Q["insert_changes"],
        cleanup_id,
        at,
        [c.page_id for c in changes],
        [c.change for c in changes],
        [c.reason for c in changes],
        [c.line_key for c in changes],
        [c.text for c in changes],
        [c.new_text for c in changes],
        [c.new_type for c in changes],
    )
