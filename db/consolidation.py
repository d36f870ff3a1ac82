"""What consolidation reads (issue 11, item 4): the audiences due across workspaces (ids,
times and a trigger: ``consolidation_due`` in migration 0017), one audience's facts, its
pages to reread with their souvenirs, and those pages locked for the writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("consolidation")


@dataclass(frozen=True, slots=True)
class DueAudience:
    """An audience due: the workspace, the audience (a member, or the workspace with no id),
    why (rules, written, week), when its last consolidation started (any outcome) and its last
    one that ran under rules (None: never)."""

    workspace_id: UUID
    audience_kind: str
    audience_id: UUID | None
    trigger: str
    last_run_at: datetime | None
    consolidated_at: datetime | None


@dataclass(frozen=True, slots=True)
class Schedule:
    """What makes an audience due: the rules version, the characters written, the shortest
    interval between two runs, the week, and the default allowances."""

    rules_version: int
    written_chars: int
    min_interval: timedelta
    week: timedelta
    person_limit: Decimal
    tenant_limit: Decimal


async def due_audiences(
    conn: asyncpg.Connection, now: datetime, schedule: Schedule
) -> list[DueAudience]:
    """Every audience due at ``now`` across workspaces, never run first then the longest
    waiting, read as the application role with no workspace (its own transaction)."""
    async with conn.transaction():
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        rows = await conn.fetch(
            Q["due_audiences"],
            now,
            schedule.rules_version,
            schedule.written_chars,
            schedule.min_interval,
            schedule.week,
            schedule.person_limit,
            schedule.tenant_limit,
        )
    return [DueAudience(**dict(row)) for row in rows]


@dataclass(frozen=True, slots=True)
class AudienceFacts:
    """One audience as a run starts: its last run (any outcome), its name, and the workspace
    profile's mission ('' when none)."""

    last_run_at: datetime | None
    name: str | None
    mission: str


async def audience(
    conn: asyncpg.Connection, kind: str, audience_id: UUID | None, now: datetime
) -> AudienceFacts:
    row = await conn.fetchrow(Q["audience"], kind, audience_id, now)
    assert row is not None
    return AudienceFacts(**dict(row))


@dataclass(frozen=True, slots=True)
class StoredLine:
    """A souvenir line as consolidation reads it (its source: kind and id, or none)."""

    key: str
    type: str
    day: date
    human: bool
    text: str
    source_kind: str | None = None
    source_id: UUID | None = None


@dataclass(frozen=True, slots=True)
class PageToConsolidate:
    """A page to reread: its id and version as read, what it is about, its name, whether it
    came first (written since or due for review), and its souvenirs in order."""

    id: UUID
    version: int
    about_kind: str
    name: str
    first: bool
    lines: list[StoredLine]


def _line(raw: dict[str, Any]) -> StoredLine:
    return StoredLine(
        key=raw["key"],
        type=raw["type"],
        day=date.fromisoformat(raw["day"]),
        human=bool(raw["human"]),
        text=raw["text"],
        source_kind=raw.get("source_kind"),
        source_id=UUID(raw["source_id"]) if raw.get("source_id") else None,
    )


async def pages_to_consolidate(
    conn: asyncpg.Connection,
    kind: str,
    audience_id: UUID | None,
    since: datetime | None,
    now: datetime,
    limit: int,
) -> list[PageToConsolidate]:
    """At most ``limit`` pages of the audience to reread, in order: written since ``since``
    (``None``: ever) or due for review on ``now``'s day (in UTC) first, then the most recently
    updated."""
    today = now.astimezone(UTC).date()
    rows = await conn.fetch(Q["pages_to_consolidate"], kind, audience_id, since, now, today, limit)
    return [
        PageToConsolidate(
            id=row["id"],
            version=row["version"],
            about_kind=row["about_kind"],
            name=row["name"],
            first=row["first"],
            lines=[_line(raw) for raw in row["lines"] or []],
        )
        for row in rows
    ]


async def lock_pages(conn: asyncpg.Connection, page_ids: Sequence[UUID]) -> dict[UUID, int | None]:
    """Lock ``page_ids`` until the transaction ends; each one's version, or None when it may
    no longer be consolidated (trashed, a satellite's, about a trashed record)."""
    rows = await conn.fetch(Q["lock_pages"], list(page_ids))
    return {row["id"]: row["version"] if row["consolidable"] else None for row in rows}
