"""Search over memory pages and skills (full-text, accent-folded), filtered in SQL."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("search")
# A search ranks at most this many matching souvenirs: a word found everywhere stays fast.
MEMORY_CANDIDATES = 2_000


@dataclass(frozen=True, slots=True)
class MemoryHit:
    page_id: UUID
    name: str
    about_kind: str
    subject_id: UUID | None
    key: str
    text: str
    type: str
    day: date
    rank: float
    total: int


@dataclass(frozen=True, slots=True)
class SkillHit:
    name: str
    description: str
    content: str
    use_count: int
    updated_at: datetime
    rank: float
    total: int


async def search_memory(
    conn: asyncpg.Connection,
    tsquery: str,
    readable: Sequence[UUID],
    person: UUID | None,
    first: int,
) -> list[MemoryHit]:
    """Readable memory pages matching ``tsquery``, best first (among the first
    MEMORY_CANDIDATES matching souvenirs)."""
    rows = await conn.fetch(Q["search_memory"], tsquery, readable, person, first, MEMORY_CANDIDATES)
    return [MemoryHit(**dict(row)) for row in rows]


async def search_skills(
    conn: asyncpg.Connection,
    tsquery: str,
    readable: Sequence[UUID],
    person: UUID | None,
    first: int,
) -> list[SkillHit]:
    """Readable, offerable skills matching ``tsquery``, best first."""
    rows = await conn.fetch(Q["search_skills"], tsquery, readable, person, first)
    return [SkillHit(**dict(row)) for row in rows]


async def recall_skills(
    conn: asyncpg.Connection, readable: Sequence[UUID], person: UUID | None, first: int
) -> list[SkillHit]:
    """Readable, offerable skills, most used first."""
    rows = await conn.fetch(Q["recall_skills"], readable, person, first)
    return [SkillHit(**dict(row)) for row in rows]
