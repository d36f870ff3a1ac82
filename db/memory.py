"""Memory pages: their lines (as stored and as one reader sees them) and their versions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

import asyncpg
import orjson

from db.sql import queries

Q = queries("memory")


@dataclass(frozen=True, slots=True)
class LineRow:
    """One stored line of a page, with what the reader may see of its source and reference."""

    kind: str
    text: str
    key: str | None = None
    type: str | None = None
    author: str | None = None
    day: date | None = None
    until: date | None = None
    human: bool = False
    source_kind: str | None = None
    source_id: UUID | None = None
    about_id: UUID | None = None
    # As one reader sees them (not stored):
    source_open: bool = False
    source_exists: bool = False
    source_object: str | None = None
    source_owner: str | None = None
    about_label: str | None = None
    about_open: bool = False

    def stored(self) -> dict[str, Any]:
        """The line as a version keeps it (JSON)."""
        return {
            "kind": self.kind,
            "text": self.text,
            "key": self.key,
            "type": self.type,
            "author": self.author,
            "day": self.day.isoformat() if self.day else None,
            "until": self.until.isoformat() if self.until else None,
            "human": self.human,
            "source_kind": self.source_kind,
            "source_id": str(self.source_id) if self.source_id else None,
            "about_id": str(self.about_id) if self.about_id else None,
        }


def line_from_json(raw: dict[str, Any]) -> LineRow:
    """A line from its JSON form (a version's, or a page's as shown)."""
    day, until = raw.get("day"), raw.get("until")
    source_id, about_id = raw.get("source_id"), raw.get("about_id")
    return LineRow(
        kind=raw["kind"],
        text=raw["text"],
        key=raw.get("key"),
        type=raw.get("type"),
        author=raw.get("author"),
        day=date.fromisoformat(day) if day else None,
        until=date.fromisoformat(until) if until else None,
        human=bool(raw.get("human")),
        source_kind=raw.get("source_kind"),
        source_id=UUID(source_id) if source_id else None,
        about_id=UUID(about_id) if about_id else None,
        source_open=bool(raw.get("source_open")),
        source_exists=bool(raw.get("source_exists")),
        source_object=raw.get("source_object"),
        source_owner=raw.get("source_owner"),
        about_label=raw.get("about_label"),
        about_open=bool(raw.get("about_open")),
    )


@dataclass(frozen=True, slots=True)
class PageRow:
    """A page with its lines as one reader sees them, and the facts its rules need."""

    id: UUID
    about_kind: str
    member_id: UUID | None
    agent_id: UUID | None
    routine_id: UUID | None
    subject_id: UUID | None
    name: str
    description: str
    version: int
    trashed_at: datetime | None
    created_at: datetime
    updated_at: datetime
    memory_object_id: UUID
    subject_object_id: UUID | None
    subject_readable: bool
    carries_pages: bool
    actor_owner_id: UUID | None
    lines: list[LineRow]


def _page(row: asyncpg.Record) -> PageRow:
    values = dict(row)
    values["lines"] = [line_from_json(raw) for raw in row["lines"]]
    return PageRow(**values)


async def page_shown(
    conn: asyncpg.Connection,
    page_id: UUID,
    readable: Sequence[UUID],
    person: UUID | None,
    *,
    stored_form: bool = False,
    for_update: bool = False,
) -> PageRow | None:
    """A page with its lines as ``person`` (whose role reads ``readable``) sees them, or in
    the stored form; ``for_update`` locks it first, until the transaction ends."""
    if for_update:
        await conn.execute(Q["lock_page"], page_id)
    row = await conn.fetchrow(Q["page_shown"], page_id, readable, person, stored_form)
    return _page(row) if row else None


async def live_page_id(
    conn: asyncpg.Connection, about_kind: str, about_id: UUID | None
) -> UUID | None:
    """The live page about an actor or a record (None for the workspace profile's id)."""
    found: UUID | None = await conn.fetchval(Q["live_page_id"], about_kind, about_id)
    return found


async def insert_page(
    conn: asyncpg.Connection,
    page_id: UUID,
    about_kind: str,
    *,
    member_id: UUID | None,
    agent_id: UUID | None,
    routine_id: UUID | None,
    subject_id: UUID | None,
    name: str,
    description: str,
    at: datetime,
) -> None:
    """Insert a page (at version 0, to be written) and its memory record."""
    await conn.execute(
        Q["insert_page"],
        page_id,
        about_kind,
        member_id,
        agent_id,
        routine_id,
        subject_id,
        name,
        description,
        at,
    )


async def replace_lines(conn: asyncpg.Connection, page_id: UUID, lines: Sequence[LineRow]) -> None:
    """Write a page's lines in order, replacing the ones it had."""
    await conn.execute(Q["delete_lines"], page_id)
    if not lines:
        return
    await conn.execute(
        Q["insert_lines"],
        page_id,
        [line.kind for line in lines],
        [line.key for line in lines],
        [line.text for line in lines],
        [line.type for line in lines],
        [line.author for line in lines],
        [line.day for line in lines],
        [line.until for line in lines],
        [line.human for line in lines],
        [line.source_kind for line in lines],
        [line.source_id for line in lines],
        [line.about_id for line in lines],
    )


@dataclass(frozen=True, slots=True)
class Actor:
    """Who makes a change: kind, id, name, and the session (token) it came from."""

    kind: str
    id: UUID | None
    name: str
    session_id: UUID | None = None


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A page's next version: who made it and how, its lines and the stored form its hash is
    taken of, whether it leaves the page in the trash, and the version it rolls back to."""

    page_id: UUID
    version_id: UUID
    operation: str
    actor: Actor
    lines: Sequence[LineRow]
    content: str
    trashed: bool
    at: datetime
    rolled_back_from: int | None = None


async def add_version(conn: asyncpg.Connection, version: NewVersion) -> int:
    """Move a page to its next version (in or out of the trash) and record it; return its
    number."""
    number: int = await conn.fetchval(
        Q["add_version"],
        version.page_id,
        version.version_id,
        version.trashed,
        version.operation,
        version.actor.kind,
        version.actor.id,
        version.actor.name,
        version.actor.session_id,
        version.rolled_back_from,
        [line.stored() for line in version.lines],
        version.at,
        version.content,
    )
    return number


async def add_versions(conn: asyncpg.Connection, versions: Sequence[NewVersion]) -> None:
    """Move many pages to their next version in one statement (``add_version`` for each,
    without the numbers); every version is by one actor at one time."""
    if not versions:
        return
    first = versions[0]
    if any(v.actor != first.actor or v.at != first.at for v in versions):
        raise ValueError("versions stored together share their actor and time")
    await conn.execute(
        Q["add_versions"],
        [v.page_id for v in versions],
        [v.version_id for v in versions],
        [v.trashed for v in versions],
        [v.operation for v in versions],
        [orjson.dumps([line.stored() for line in v.lines]).decode() for v in versions],
        [v.content for v in versions],
        first.actor.kind,
        first.actor.id,
        first.actor.name,
        first.actor.session_id,
        first.at,
    )


@dataclass(frozen=True, slots=True)
class VersionRow:
    id: UUID
    page_id: UUID
    number: int
    operation: str
    actor_kind: str
    actor_name: str
    session_id: UUID | None
    rolled_back_from: int | None
    created_at: datetime
    redacted_at: datetime | None
    redacted_by: str | None
    content_sha256: str | None
    lines: list[LineRow] | None


def _version(row: asyncpg.Record) -> VersionRow:
    values = dict(row)
    if row["lines"] is not None:
        values["lines"] = [line_from_json(raw) for raw in row["lines"]]
    return VersionRow(**values)


async def versions_of_page(
    conn: asyncpg.Connection,
    page_id: UUID,
    before: int | None,
    first: int,
    readable: Sequence[UUID],
    person: UUID | None,
) -> list[VersionRow]:
    """A page's versions, newest first, with their lines as ``person`` sees them (all shown in
    one more statement)."""
    rows = await conn.fetch(Q["versions_of_page"], page_id, before, first)
    stored = [row["lines"] or [] for row in rows]
    shown = await lines_shown(conn, [line for lines in stored for line in lines], readable, person)
    found, start = [], 0
    for row, lines in zip(rows, stored, strict=True):
        values = dict(row)
        if row["lines"] is not None:
            values["lines"] = shown[start : start + len(lines)]
        start += len(lines)
        found.append(VersionRow(**values))
    return found


async def version_by_id(conn: asyncpg.Connection, version_id: UUID) -> VersionRow | None:
    """One version with its lines in the stored form."""
    row = await conn.fetchrow(Q["version_by_id"], version_id)
    return _version(row) if row else None


async def last_lines_before_trash(conn: asyncpg.Connection, page_id: UUID) -> list[LineRow]:
    """The lines of the page's newest unredacted version that held any."""
    raw = await conn.fetchval(Q["last_lines_before_trash"], page_id)
    return [line_from_json(item) for item in raw] if raw else []


async def lines_shown(
    conn: asyncpg.Connection,
    lines: Sequence[dict[str, Any]],
    readable: Sequence[UUID],
    person: UUID | None,
) -> list[LineRow]:
    """Stored lines as ``person`` sees them."""
    if not lines:
        return []
    raw = await conn.fetchval(Q["lines_shown"], list(lines), readable, person, False)
    return [line_from_json(item) for item in raw]


async def redact_version(
    conn: asyncpg.Connection, version_id: UUID, at: datetime, by: str
) -> int | None:
    """Scrub a version's lines; its number, or None when it was redacted already."""
    number: int | None = await conn.fetchval(Q["redact_version"], version_id, at, by)
    return number
