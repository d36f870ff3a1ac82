"""Search over memory pages and skills (full-text, accent-folded), filtered in SQL."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("search")
# A search counts pages among at most this many readable matching souvenirs, and `total` is
# then a lower bound: the best ranked when at most 2,500 souvenirs match; past that (a common
# word), the first readable ones in the index's order, ranked (memory_line_matches, migration
# 0033), so that a word found everywhere stays fast. The hits are the best of every readable
# match unless capped.
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
    # How many souvenirs matched, MEMORY_CANDIDATES at most.
    matched: int


@dataclass(frozen=True, slots=True)
class SouvenirHit:
    page_id: UUID
    name: str
    key: str
    text: str
    type: str
    day: date
    rank: float


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
    text: str,
    readable: Sequence[UUID],
    person: UUID | None,
    first: int,
    agent: UUID | None = None,
) -> list[MemoryHit]:
    """Readable memory pages holding every word of ``text``, best first (counted among
    MEMORY_CANDIDATES readable souvenirs); none for an ``agent`` with memory off."""
    rows = await conn.fetch(
        Q["search_memory"], text, readable, person, first, MEMORY_CANDIDATES, agent
    )
    return [MemoryHit(**dict(row)) for row in rows]


async def recall_memory(
    conn: asyncpg.Connection,
    text: str,
    readable: Sequence[UUID],
    person: UUID | None,
    first: int,
    agent: UUID | None = None,
) -> list[SouvenirHit]:
    """Readable souvenirs holding every word of ``text``, best first; none for an ``agent``
    with memory off."""
    rows = await conn.fetch(Q["recall_memory"], text, readable, person, first, agent)
    return [SouvenirHit(**dict(row)) for row in rows]


async def search_skills(
    conn: asyncpg.Connection,
    text: str,
    readable: Sequence[UUID],
    person: UUID | None,
    first: int,
    agent: UUID | None = None,
) -> list[SkillHit]:
    """Readable, offerable skills holding every word of ``text``, best first; for an
    ``agent`` with attached skills, those only, at their versions."""
    rows = await conn.fetch(Q["search_skills"], text, readable, person, first, agent)
    return [SkillHit(**dict(row)) for row in rows]


async def recall_skills(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    first: int,
    agent: UUID | None = None,
) -> list[SkillHit]:
    """Readable, offerable skills, most used first (for an ``agent``, as search_skills)."""
    rows = await conn.fetch(Q["recall_skills"], readable, person, first, agent)
    return [SkillHit(**dict(row)) for row in rows]
