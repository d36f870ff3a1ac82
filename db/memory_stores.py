"""Memory stores (issue 14, item 3): stores, their memories and the memories' versions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from db.memory import Actor, LineRow, PageRow, line_from_json
from db.sql import queries

Q = queries("memory_stores")


@dataclass(frozen=True, slots=True)
class StoreRow:
    id: UUID
    name: str
    description: str
    metadata: dict[str, str]
    created_at: datetime
    updated_at: datetime
    archived_at: datetime | None
    visibility: str
    owner_member_id: UUID | None
    object_id: UUID


@dataclass(frozen=True, slots=True)
class MemoryRow:
    id: UUID
    store_id: UUID
    path: str
    content: str | None
    content_sha256: str
    content_size_bytes: int
    version_id: UUID
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class EntryRow:
    """An entry of a listing: a memory, or a prefix rolling up deeper ones (``memory`` None)."""

    key: str
    memory: MemoryRow | None


@dataclass(frozen=True, slots=True)
class VersionRow:
    id: UUID
    store_id: UUID
    memory_id: UUID
    operation: str
    path: str | None
    content: str | None
    content_sha256: str | None
    content_size_bytes: int | None
    actor_kind: str
    actor_id: UUID | None  # None: the system (the workspace store's pages)
    actor_name: str
    session_id: UUID | None
    created_at: datetime
    redacted_at: datetime | None
    redactor_kind: str | None
    redactor_id: UUID | None
    redactor_session_id: UUID | None


@dataclass(frozen=True, slots=True)
class VersionFilter:
    """What a version listing keeps (None: any)."""

    memory_id: UUID | None = None
    operation: str | None = None
    actor_kind: str | None = None
    actor_id: UUID | None = None
    session_id: UUID | None = None
    created_gte: datetime | None = None
    created_lte: datetime | None = None


@dataclass(frozen=True, slots=True)
class WorkspaceEntryRow:
    """An entry of the workspace store as one reader sees it: a live page they may read at its
    path (``page`` with its lines and the id of its last version), or a prefix rolling up
    deeper ones (``page`` None)."""

    key: str
    page: PageRow | None
    last_version_id: UUID | None


@dataclass(frozen=True, slots=True)
class WorkspaceVersionRow:
    """A live page's newest version (lines as one reader sees them, None once redacted)."""

    id: UUID
    page_id: UUID
    number: int
    operation: str
    actor_kind: str
    actor_id: UUID | None
    session_id: UUID | None
    created_at: datetime
    redacted_at: datetime | None
    lines: list[LineRow] | None


async def insert_store(
    conn: asyncpg.Connection,
    store_id: UUID,
    name: str,
    description: str,
    metadata: dict[str, str],
    visibility: str,
    owner: UUID | None,
    now: datetime,
) -> None:
    """A new store and its record."""
    await conn.execute(
        Q["insert_store"], store_id, name, description, metadata, visibility, owner, now
    )


async def store_readable(
    conn: asyncpg.Connection,
    store_id: UUID,
    readable: Sequence[UUID],
    person: UUID | None,
    *,
    for_update: bool = False,
) -> StoreRow | None:
    """A store the caller may read; ``for_update`` locks it, once it is known readable (a store
    the caller may not read is never locked by them), and reads it again under the lock."""
    row = await conn.fetchrow(Q["store_readable"], store_id, readable, person)
    if row is None or not for_update:
        return StoreRow(**dict(row)) if row else None
    await conn.execute(Q["lock_store"], store_id)
    row = await conn.fetchrow(Q["store_readable"], store_id, readable, person)
    return StoreRow(**dict(row)) if row else None


async def stores_page(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    limit: int,
    after: tuple[datetime, UUID] | None,
    created: tuple[datetime | None, datetime | None],
    include_archived: bool,
) -> list[StoreRow]:
    """Readable stores in creation order after a position."""
    rows = await conn.fetch(
        Q["stores_page"],
        readable,
        person,
        limit,
        after[0] if after else None,
        after[1] if after else None,
        created[0],
        created[1],
        include_archived,
    )
    return [StoreRow(**dict(row)) for row in rows]


async def update_store(
    conn: asyncpg.Connection,
    store_id: UUID,
    name: str,
    description: str,
    metadata: dict[str, str],
    now: datetime,
) -> None:
    """A store's new name, description and metadata."""
    await conn.execute(Q["update_store"], store_id, name, description, metadata, now)


async def archive_store(conn: asyncpg.Connection, store_id: UUID, now: datetime) -> None:
    """Archive a store unless it is archived already."""
    await conn.execute(Q["archive_store"], store_id, now)


async def delete_store(conn: asyncpg.Connection, store_id: UUID) -> None:
    """Remove a store with its memories and versions."""
    await conn.execute(Q["delete_store"], store_id)


async def memory_by_id(
    conn: asyncpg.Connection, store_id: UUID, memory_id: UUID
) -> MemoryRow | None:
    """One memory of a store."""
    row = await conn.fetchrow(Q["memory_by_id"], store_id, memory_id)
    return MemoryRow(**dict(row)) if row else None


async def memory_id_at(conn: asyncpg.Connection, store_id: UUID, path: str) -> UUID | None:
    """The memory at a path, if any."""
    found: UUID | None = await conn.fetchval(Q["memory_id_at"], store_id, path)
    return found


async def insert_memory(conn: asyncpg.Connection, row: MemoryRow) -> bool:
    """A new memory; False (nothing written) when its path is taken."""
    created = await conn.fetchval(
        Q["insert_memory"],
        row.store_id,
        row.id,
        row.path,
        row.content,
        row.content_sha256,
        row.version_id,
        row.created_at,
    )
    return created is not None


async def update_memory(conn: asyncpg.Connection, row: MemoryRow) -> None:
    """A memory's new path, content and version."""
    await conn.execute(
        Q["update_memory"],
        row.store_id,
        row.id,
        row.path,
        row.content,
        row.content_sha256,
        row.version_id,
        row.updated_at,
    )


async def delete_memory(conn: asyncpg.Connection, store_id: UUID, memory_id: UUID) -> None:
    """Remove a memory; its versions stay."""
    await conn.execute(Q["delete_memory"], store_id, memory_id)


async def memories_page(
    conn: asyncpg.Connection,
    store_id: UUID,
    prefix: str,
    depth: int,
    after: str,
    limit: int,
    full: bool,
) -> list[EntryRow]:
    """A store's entries below ``prefix`` in path order after ``after``."""
    rows = await conn.fetch(Q["memories_page"], store_id, prefix, depth, after, limit, full)
    return [_entry(row) for row in rows]


def _entry(row: asyncpg.Record) -> EntryRow:
    if row["is_prefix"]:
        return EntryRow(row["key"], None)
    values: dict[str, Any] = dict(row)
    del values["key"], values["is_prefix"]
    return EntryRow(row["key"], MemoryRow(**values))


async def insert_version(
    conn: asyncpg.Connection,
    version_id: UUID,
    memory: MemoryRow,
    operation: str,
    author: Actor,
    now: datetime,
) -> None:
    """One immutable version of a memory (a deleted one keeps no path nor content)."""
    deleted = operation == "deleted"
    await conn.execute(
        Q["insert_version"],
        memory.store_id,
        version_id,
        memory.id,
        operation,
        None if deleted else memory.path,
        None if deleted else memory.content,
        None if deleted else memory.content_sha256,
        None if deleted else memory.content_size_bytes,
        author.kind,
        author.id,
        author.name,
        author.session_id,
        now,
    )


async def version_by_id(
    conn: asyncpg.Connection, store_id: UUID, version_id: UUID
) -> VersionRow | None:
    """One version of a store."""
    row = await conn.fetchrow(Q["version_by_id"], store_id, version_id)
    return VersionRow(**dict(row)) if row else None


async def versions_page(
    conn: asyncpg.Connection,
    store_id: UUID,
    limit: int,
    before: tuple[datetime, UUID] | None,
    kept: VersionFilter,
    full: bool,
) -> list[VersionRow]:
    """A store's versions, newest first, before a position."""
    rows = await conn.fetch(
        Q["versions_page"],
        store_id,
        limit,
        before[0] if before else None,
        before[1] if before else None,
        kept.memory_id,
        kept.operation,
        kept.actor_kind,
        kept.actor_id,
        kept.session_id,
        kept.created_gte,
        kept.created_lte,
        full,
    )
    return [VersionRow(**dict(row)) for row in rows]


async def redact_version(
    conn: asyncpg.Connection, store_id: UUID, version_id: UUID, by: Actor, now: datetime
) -> None:
    """Scrub a version's path and content once, keeping who made it and when."""
    await conn.execute(
        Q["redact_version"], store_id, version_id, now, by.kind, by.id, by.session_id
    )


async def workspace_entries(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    *,
    prefix: str = "/",
    depth: int = 0,
    after: str = "",
    limit: int = 1,
    page_id: UUID | None = None,
) -> list[WorkspaceEntryRow]:
    """The workspace store's entries the reader may read below ``prefix`` in path order after
    ``after`` (with ``depth``, rolled up as memories_page does), at most ``limit``; only the
    page ``page_id`` when given. One statement; lines rendered for the entries answered only."""
    rows = await conn.fetch(
        Q["workspace_memories"], readable, person, prefix, depth, after, page_id, limit
    )
    found = []
    for row in rows:
        values: dict[str, Any] = dict(row)
        key, is_prefix, last_version_id = (
            values.pop("key"),
            values.pop("is_prefix"),
            values.pop("last_version_id"),
        )
        if is_prefix:
            found.append(WorkspaceEntryRow(key, None, None))
            continue
        del values["path"]
        values["lines"] = [line_from_json(raw) for raw in values["lines"]]
        found.append(WorkspaceEntryRow(key, PageRow(**values), last_version_id))
    return found


async def workspace_version(
    conn: asyncpg.Connection, version_id: UUID, readable: Sequence[UUID], person: UUID | None
) -> WorkspaceVersionRow | None:
    """A live page's newest version, if the reader may read the page."""
    row = await conn.fetchrow(Q["workspace_version"], version_id, readable, person)
    if row is None:
        return None
    values: dict[str, Any] = dict(row)
    if values["lines"] is not None:
        values["lines"] = [line_from_json(raw) for raw in values["lines"]]
    return WorkspaceVersionRow(**values)
