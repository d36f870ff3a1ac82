"""Search over memory pages and skills (full-text, accent-folded), filtered in SQL."""

from __future__ import annotations

import re
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


def memory_and_skills_statement(memory: str, skills: str) -> str:
    """search_memory and search_skills as one statement, one round trip for a search of both:
    the memory rows, then the skill rows (each part in its own statement's order: a UNION ALL
    of two CTE scans runs them one after the other), told apart by ``object``. search_memory's
    parameters $1-$6 as they are; search_skills' agent ($5) becomes $7."""
    skills = re.sub(r"\$5\b", "$7", skills)
    # Both texts are blocks of db/queries/search.sql, composed once at import: no input in it.
    return f"""WITH memory AS ({memory.rstrip(";")}),
skills AS ({skills.rstrip(";")})
SELECT 'memory' AS object, m.page_id, m.name, m.about_kind, m.subject_id, m.key, m.text, m.type,
       m.day, m.rank, m.total, m.matched, NULL::text AS description, NULL::text AS content,
       NULL::integer AS use_count, NULL::timestamptz AS updated_at
  FROM memory m
UNION ALL
SELECT 'skill', NULL, s.name, NULL, NULL, NULL, NULL, NULL, NULL, s.rank, s.total, NULL,
       s.description, s.content, s.use_count, s.updated_at
  FROM skills s"""  # noqa: S608


MEMORY_AND_SKILLS = memory_and_skills_statement(Q["search_memory"], Q["search_skills"])
_MEMORY_FIELDS = tuple(MemoryHit.__dataclass_fields__)
_SKILL_FIELDS = tuple(SkillHit.__dataclass_fields__)


async def search_memory_and_skills(
    conn: asyncpg.Connection,
    text: str,
    readable: Sequence[UUID],
    person: UUID | None,
    first: int,
    agent: UUID | None = None,
    skills_agent: UUID | None = None,
) -> tuple[list[MemoryHit], list[SkillHit]]:
    """``search_memory`` (for ``agent``) and ``search_skills`` (for ``skills_agent``) in one
    round trip: the same rows in the same order."""
    rows = await conn.fetch(
        MEMORY_AND_SKILLS,
        text,
        readable,
        person,
        first,
        MEMORY_CANDIDATES,
        agent,
        skills_agent,
    )
    memory = [
        MemoryHit(**{name: row[name] for name in _MEMORY_FIELDS})
        for row in rows
        if row["object"] == "memory"
    ]
    skills = [
        SkillHit(**{name: row[name] for name in _SKILL_FIELDS})
        for row in rows
        if row["object"] == "skill"
    ]
    return memory, skills


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
