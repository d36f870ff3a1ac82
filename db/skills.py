"""Skills: their versions, files (stored once by sha256), uses and lessons."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from operator import itemgetter
from typing import TYPE_CHECKING, Any
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("skills")


@dataclass(frozen=True, slots=True)
class SkillRow:
    """A skill at one version."""

    id: UUID
    name: str
    parent_id: UUID | None
    parent_name: str | None
    latest_version: int
    use_count: int
    last_used_at: datetime | None
    source: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime
    visibility: str
    owner_member_id: UUID | None
    version: int
    description: str
    content: str
    extra_frontmatter: dict[str, Any]
    author_kind: str
    author_name: str
    version_created_at: datetime


@dataclass(frozen=True, slots=True)
class FileRow:
    path: str
    sha256: str
    size: int
    mode: int


@dataclass(frozen=True, slots=True)
class ActivationRow:
    id: UUID
    name: str
    version: int
    content: str
    files: list[FileRow]
    sub_skills: list[str]


@dataclass(frozen=True, slots=True)
class CatalogRow:
    name: str
    description: str
    content: str
    use_count: int
    updated_at: datetime


class CatalogEntryRow(asyncpg.Record):
    """A skill as the catalog lists it: no description when dormant. The statement's own
    record, which asyncpg makes as it makes every row, with its columns as attributes (read in
    C): a catalog is thousands of rows, and a frozen dataclass built from each cost 1.2-1.9 ms
    a request (BENCHMARKS.md)."""

    if TYPE_CHECKING:
        name: str
        description: str | None
        dormant: bool
    else:
        name = property(itemgetter(0))
        description = property(itemgetter(1))
        dormant = property(itemgetter(2))


@dataclass(frozen=True, slots=True)
class VersionRow:
    version: int
    description: str
    author_kind: str
    author_name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class NameRow:
    name: str
    id: UUID
    readable: bool


@dataclass(frozen=True, slots=True)
class LessonRow:
    id: int
    day: date
    text: str


def _skill(row: asyncpg.Record | None) -> SkillRow | None:
    return SkillRow(**dict(row)) if row else None


async def skill_by_name(
    conn: asyncpg.Connection,
    name: str,
    version: int | None,
    readable: Sequence[UUID],
    person: UUID | None,
) -> SkillRow | None:
    """A readable skill at ``version`` (None: the latest)."""
    return _skill(await conn.fetchrow(Q["skill_by_name"], name, version, readable, person))


async def skill_activation(
    conn: asyncpg.Connection,
    name: str,
    version: int | None,
    readable: Sequence[UUID],
    person: UUID | None,
    agent: UUID | None = None,
) -> ActivationRow | None:
    """A readable skill's body and file list at ``version`` (None: the version ``agent``
    attached, else the latest), in one statement."""
    row = await conn.fetchrow(Q["skill_activation"], name, version, readable, person, agent)
    if row is None:
        return None
    return ActivationRow(
        id=row["id"],
        name=row["name"],
        version=row["version"],
        content=row["content"],
        files=[FileRow(**f) for f in row["files"]],
        sub_skills=list(row["sub_skills"]),
    )


async def skill_catalog(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    agent: UUID | None = None,
) -> list[CatalogRow]:
    """Every readable skill offered to a model (the catalog, the skills panel), in one
    statement; for an ``agent`` with attached skills, those only, at their versions."""
    rows = await conn.fetch(Q["skill_catalog"], readable, person, agent)
    return [CatalogRow(**dict(r)) for r in rows]


async def skill_catalog_entries(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    agent: UUID | None,
    dormant_since: datetime,
) -> list[CatalogEntryRow]:
    """The catalog's skills (those of ``skill_catalog``, in name order), a skill never used and
    not updated after ``dormant_since`` dormant and without its description, in one statement."""
    return await conn.fetch(
        Q["skill_catalog_entries"],
        readable,
        person,
        agent,
        dormant_since,
        record_class=CatalogEntryRow,
    )


async def skills_page(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    *,
    after_name: str,
    limit: int,
    name_contains: str | None,
    parent_name: str | None,
) -> list[SkillRow]:
    """Readable skills in name order after ``after_name``."""
    rows = await conn.fetch(
        Q["skills_page"], readable, person, after_name, limit, name_contains, parent_name
    )
    return [SkillRow(**dict(r)) for r in rows]


async def skill_names(
    conn: asyncpg.Connection, names: Sequence[str], readable: Sequence[UUID], person: UUID | None
) -> list[NameRow]:
    """Skills holding these names, readable or not."""
    rows = await conn.fetch(Q["skill_names"], list(names), readable, person)
    return [NameRow(**dict(r)) for r in rows]


async def skill_versions(conn: asyncpg.Connection, skill_id: UUID) -> list[VersionRow]:
    """A skill's versions, newest first."""
    return [VersionRow(**dict(r)) for r in await conn.fetch(Q["skill_versions"], skill_id)]


async def skill_files(conn: asyncpg.Connection, skill_id: UUID, version: int) -> list[FileRow]:
    """The files of a version."""
    return [FileRow(**dict(r)) for r in await conn.fetch(Q["skill_files"], skill_id, version)]


async def skill_file(
    conn: asyncpg.Connection, skill_id: UUID, version: int, path: str
) -> tuple[FileRow, bytes] | None:
    """One file of a version with its content."""
    row = await conn.fetchrow(Q["skill_file"], skill_id, version, path)
    if row is None:
        return None
    return FileRow(row["path"], row["sha256"], row["size"], row["mode"]), bytes(row["content"])


async def skill_file_contents(
    conn: asyncpg.Connection, versions: Sequence[tuple[UUID, int]]
) -> dict[UUID, list[tuple[str, int, bytes]]]:
    """Every file (path, mode, content) of several skills' versions, by skill."""
    rows = await conn.fetch(
        Q["skill_file_contents"], [s for s, _ in versions], [v for _, v in versions]
    )
    found: dict[UUID, list[tuple[str, int, bytes]]] = {}
    for row in rows:
        found.setdefault(row["skill_id"], []).append(
            (row["path"], row["mode"], bytes(row["content"]))
        )
    return found


async def sub_skill_names(
    conn: asyncpg.Connection, skill_id: UUID, readable: Sequence[UUID], person: UUID | None
) -> list[str]:
    """The names of a skill's readable sub-skills."""
    return [r["name"] for r in await conn.fetch(Q["sub_skill_names"], skill_id, readable, person)]


async def insert_skill(
    conn: asyncpg.Connection,
    skill_id: UUID,
    name: str,
    parent_id: UUID | None,
    source: dict[str, Any] | None,
    at: datetime,
) -> None:
    """Create a skill for the record ``skill_id``, created and updated ``at``."""
    await conn.execute(Q["insert_skill"], skill_id, name, parent_id, source, at)


async def insert_version(
    conn: asyncpg.Connection,
    skill_id: UUID,
    version: int,
    description: str,
    content: str,
    extra_frontmatter: dict[str, Any],
    author: tuple[str, UUID | None, str],
    at: datetime,
) -> None:
    """Add version ``version`` and make it the latest, the skill updated ``at``; ``author`` is
    (kind, id, name)."""
    kind, author_id, author_name = author
    await conn.execute(
        Q["insert_version"],
        skill_id,
        version,
        description,
        content,
        extra_frontmatter,
        kind,
        author_id,
        author_name,
        at,
    )


async def insert_blobs(conn: asyncpg.Connection, blobs: dict[str, bytes]) -> None:
    """Store contents by sha256, each once per workspace (one statement for all)."""
    if blobs:
        await conn.execute(Q["insert_blobs"], list(blobs), list(blobs.values()))


async def insert_files(
    conn: asyncpg.Connection, skill_id: UUID, version: int, files: Sequence[FileRow]
) -> None:
    """Give a version its files (one statement for all)."""
    if files:
        await conn.execute(
            Q["insert_files"],
            skill_id,
            version,
            [f.path for f in files],
            [f.sha256 for f in files],
            [f.size for f in files],
            [f.mode for f in files],
        )


async def copy_files(
    conn: asyncpg.Connection, skill_id: UUID, from_version: int, to_version: int, but: Sequence[str]
) -> None:
    """Carry a version's files into a new version, but for the paths in ``but``."""
    await conn.execute(Q["copy_files"], skill_id, from_version, to_version, list(but))


async def record_use(conn: asyncpg.Connection, skill_id: UUID, at: datetime) -> int:
    """Count a use ``at``; return the new count."""
    count: int = await conn.fetchval(Q["record_use"], skill_id, at)
    return count


async def insert_lesson(conn: asyncpg.Connection, skill_id: UUID, day: date, text: str) -> None:
    """Keep a dated lesson."""
    await conn.execute(Q["insert_lesson"], skill_id, day, text)


async def waiting_lessons(conn: asyncpg.Connection, skill_id: UUID) -> list[LessonRow]:
    """Lessons not yet folded into the body."""
    return [LessonRow(**dict(r)) for r in await conn.fetch(Q["waiting_lessons"], skill_id)]


async def waiting_lessons_of_skills(
    conn: asyncpg.Connection, skill_ids: Sequence[UUID]
) -> dict[UUID, list[tuple[date, str]]]:
    """The waiting lessons of several skills by skill, oldest day first, in one statement."""
    found: dict[UUID, list[tuple[date, str]]] = {}
    for r in await conn.fetch(Q["waiting_lessons_of_skills"], list(skill_ids)):
        found.setdefault(r["skill_id"], []).append((r["day"], r["text"]))
    return found


async def lessons_of_skill(conn: asyncpg.Connection, skill_id: UUID) -> list[tuple[date, str]]:
    """Every lesson of a skill, folded or waiting: its day and text."""
    return [(r["day"], r["text"]) for r in await conn.fetch(Q["lessons_of_skill"], skill_id)]


async def insert_lessons(
    conn: asyncpg.Connection, skill_id: UUID, lessons: Sequence[tuple[date, str]]
) -> None:
    """Keep several dated lessons of a skill in one statement."""
    await conn.execute(
        Q["insert_lessons"], skill_id, [day for day, _ in lessons], [text for _, text in lessons]
    )


async def fold_lessons(
    conn: asyncpg.Connection, skill_id: UUID, version: int, lesson_ids: Sequence[int]
) -> None:
    """Mark lessons as folded into ``version``."""
    await conn.execute(Q["fold_lessons"], skill_id, version, list(lesson_ids))


async def delete_skill_record(conn: asyncpg.Connection, skill_id: UUID) -> None:
    """Delete a skill with its record."""
    await conn.execute(Q["delete_skill_record"], skill_id)


async def has_sub_skills(conn: asyncpg.Connection, skill_id: UUID) -> bool:
    """Whether any skill is filed under ``skill_id``."""
    value: bool = await conn.fetchval(Q["has_sub_skills"], skill_id)
    return value


async def lock_skill(conn: asyncpg.Connection, name: str) -> None:
    """Hold the skill's row until the transaction ends (versions are written one at a time)."""
    await conn.execute(Q["lock_skill"], name)


async def set_skill_parent(
    conn: asyncpg.Connection, skill_id: UUID, parent_id: UUID | None, at: datetime
) -> None:
    """File a skill under ``parent_id`` (None: under none) ``at``, taking the parent's access."""
    await conn.execute(Q["set_skill_parent"], skill_id, parent_id, at)


async def community_skills(
    conn: asyncpg.Connection, readable: Sequence[UUID], person: UUID
) -> list[SkillRow]:
    """The skills ``person`` added from a repository, at their latest version."""
    return [SkillRow(**dict(r)) for r in await conn.fetch(Q["community_skills"], readable, person)]


async def set_skill_source(
    conn: asyncpg.Connection, skill_id: UUID, source: dict[str, Any]
) -> None:
    """Keep where a skill now comes from."""
    await conn.execute(Q["set_skill_source"], skill_id, source)
