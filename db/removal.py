"""The Monday removal's statements (issue 11, item 3): which workspaces are due, the souvenirs
it takes with their reasons, the pages it rewrites, and its runs and changes recorded
(db/queries/removal.sql). Every statement but ``due_workspaces`` runs inside one workspace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from uuid import UUID

import asyncpg

from db.memory import LineRow, line_from_json
from db.sql import queries

Q = queries("removal")


async def due_workspaces(conn: asyncpg.Connection, start: datetime, end: datetime) -> list[UUID]:
    """Every workspace holding a live page with no removal run started in [start, end), read
    as the application role with no workspace (its own transaction)."""
    async with conn.transaction():
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        rows = await conn.fetch(Q["due_workspaces"], start, end)
    return [row["workspace_id"] for row in rows]


async def take_workspace(conn: asyncpg.Connection) -> bool:
    """Take the current workspace's removal lock for the transaction, unless another session
    holds it; True when taken."""
    taken: bool = await conn.fetchval(Q["take_workspace"])
    return taken


async def ran_between(conn: asyncpg.Connection, start: datetime, end: datetime) -> bool:
    """Whether a removal run of the current workspace started in [start, end)."""
    found: bool = await conn.fetchval(Q["ran_between"], start, end)
    return found


@dataclass(frozen=True, slots=True)
class AudienceRow:
    """An audience holding live pages (a member's, or the workspace's: ``member_id`` None),
    its pages, and those the removal reads."""

    member_id: UUID | None
    pages: int
    pages_read: int


async def audiences(conn: asyncpg.Connection) -> list[AudienceRow]:
    """Each audience of the current workspace holding live pages, the workspace's first."""
    rows = await conn.fetch(Q["audiences"])
    return [AudienceRow(row["audience_id"], row["pages"], row["pages_read"]) for row in rows]


@dataclass(frozen=True, slots=True)
class CandidateRow:
    """A souvenir the removal takes, and why."""

    page_id: UUID
    key: str
    text: str
    reason: str


async def candidates(
    conn: asyncpg.Connection, today: date, review_before: date, page_ids: Sequence[UUID] | None
) -> list[CandidateRow]:
    """Every souvenir the removal takes on ``today`` from the current workspace's live pages
    (only ``page_ids`` when given), by page and in line order; a contexte of a day before
    ``review_before`` has passed its review."""
    wanted = list(page_ids) if page_ids is not None else None
    rows = await conn.fetch(Q["candidates"], today, review_before, wanted)
    return [CandidateRow(**dict(row)) for row in rows]


async def lock_pages(conn: asyncpg.Connection, page_ids: Sequence[UUID]) -> None:
    """Lock the pages' rows, in id order, until the transaction ends."""
    await conn.execute(Q["lock_pages"], list(page_ids))


@dataclass(frozen=True, slots=True)
class StoredPage:
    """A live page's lines as stored, and what it is about."""

    id: UUID
    about_kind: str
    member_id: UUID | None
    lines: list[LineRow]


async def stored_pages(conn: asyncpg.Connection, page_ids: Sequence[UUID]) -> list[StoredPage]:
    """The given pages still live, with their lines as stored, in id order."""
    rows = await conn.fetch(Q["stored_pages"], list(page_ids))
    return [
        StoredPage(
            row["id"],
            row["about_kind"],
            row["member_id"],
            [line_from_json(raw) for raw in row["lines"]],
        )
        for row in rows
    ]


async def delete_lines(
    conn: asyncpg.Connection, removed: Sequence[tuple[UUID, str]], emptied: Sequence[UUID]
) -> None:
    """Delete the removed lines (page and key) and every line of the emptied pages; the lines
    left keep their order."""
    await conn.execute(
        Q["delete_lines"],
        [page_id for page_id, _ in removed],
        [key for _, key in removed],
        list(emptied),
    )


@dataclass(frozen=True, slots=True)
class RunRow:
    """One removal run: its audience (a member, or the workspace: None) and its counts."""

    id: UUID
    audience_id: UUID | None
    pages_read: int
    lines_changed: int
    pages_deleted: int


async def insert_runs(
    conn: asyncpg.Connection, runs: Sequence[RunRow], started_at: datetime, finished_at: datetime
) -> None:
    """Record the runs of one Monday's removal of the current workspace, one per audience."""
    await conn.execute(
        Q["insert_runs"],
        [run.id for run in runs],
        [run.audience_id for run in runs],
        [run.pages_read for run in runs],
        [run.lines_changed for run in runs],
        [run.pages_deleted for run in runs],
        started_at,
        finished_at,
    )


@dataclass(frozen=True, slots=True)
class RemovedRow:
    """One change of a run: a line removed, or a page deleted (no key, no text)."""

    cleanup_id: UUID
    page_id: UUID
    change: str  # removed, page_deleted
    reason: str  # ended, review_passed, source_gone, source_closed, page_empty
    line_key: str | None = None
    text: str | None = None


async def insert_changes(
    conn: asyncpg.Connection, changes: Sequence[RemovedRow], at: datetime
) -> None:
    """Record the runs' changes, each run's numbered from 1 in the order given."""
    if not changes:
        return
    await conn.execute(
        Q["insert_changes"],
        [c.cleanup_id for c in changes],
        [c.page_id for c in changes],
        [c.change for c in changes],
        [c.reason for c in changes],
        [c.line_key for c in changes],
        [c.text for c in changes],
        at,
    )
