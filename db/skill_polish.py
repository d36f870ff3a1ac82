"""Automatic polish (issue 12, item 4): the skills to look at across workspaces, one skill as
polish reads and locks it, and the looks recorded (``skill_polishes``, migration 0021)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from uuid import UUID

import asyncpg

from db.skills import SkillRow
from db.sql import queries

Q = queries("skill_polish")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A skill state to look at: the workspace, the skill, its latest version, the ids of its
    waiting lessons ('3,5,9'; '' none) and how many they are."""

    workspace_id: UUID
    skill_id: UUID
    version: int
    lessons: str
    waiting: int


@dataclass(frozen=True, slots=True)
class PolishRow:
    """One look at a skill's state (version, lessons) and what came of it."""

    id: UUID
    version: int
    lessons: str
    trigger: str
    outcome: str
    new_version: int | None
    reason: str
    reader: str
    payer_kind: str
    payer_id: UUID | None
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal
    created_at: datetime


async def candidates(
    conn: asyncpg.Connection,
    min_lessons: int,
    limit: int,
    workspaces: Sequence[UUID] | None = None,
) -> list[Candidate]:
    """The skill states to look at across workspaces (only ``workspaces`` when given), read
    as the application role with no workspace (its own transaction)."""
    chosen = None if workspaces is None else list(workspaces)
    async with conn.transaction():
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        rows = await conn.fetch(Q["candidates"], min_lessons, limit, chosen)
    return [Candidate(**dict(row)) for row in rows]


async def latest(conn: asyncpg.Connection, skill_id: UUID) -> SkillRow | None:
    row = await conn.fetchrow(Q["latest"], skill_id)
    return SkillRow(**dict(row)) if row else None


async def lock(conn: asyncpg.Connection, skill_id: UUID) -> int | None:
    """Lock the skill's row; its latest version, None when it is gone."""
    value: int | None = await conn.fetchval(Q["lock"], skill_id)
    return value


async def changed_by_person(conn: asyncpg.Connection, skill_id: UUID) -> bool:
    return bool(await conn.fetchval(Q["changed_by_person"], skill_id))


async def insert_polish(conn: asyncpg.Connection, skill_id: UUID, row: PolishRow) -> bool:
    """Record ``row``; False when that state was recorded already (by another worker)."""
    found = await conn.fetchval(
        Q["insert_polish"],
        skill_id,
        row.id,
        row.version,
        row.lessons,
        row.trigger,
        row.outcome,
        row.new_version,
        row.reason,
        row.reader,
        row.payer_kind,
        row.payer_id,
        row.input_tokens,
        row.output_tokens,
        str(row.cost_usd),
        row.created_at,
    )
    return found is not None


async def polishes(conn: asyncpg.Connection, skill_id: UUID) -> list[PolishRow]:
    """A skill's looks, newest first."""
    return [PolishRow(**dict(row)) for row in await conn.fetch(Q["polishes"], skill_id)]
