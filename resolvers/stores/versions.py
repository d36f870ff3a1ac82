"""A store's versions (issue 14, item 3): listed with filters, read, and redacted (path and
content scrubbed, id, memory, operation, times and actor kept), like a memory page's."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg

from db import memory_stores
from db.memory_stores import VersionFilter, VersionRow
from resolvers.common import clock
from resolvers.common.errors import not_found
from resolvers.common.principals import Principal
from resolvers.memory.writing import actor_of
from resolvers.stores.stores import store, writable_store
from resolvers.stores.workspace import is_workspace_store, workspace_version

MISSING = "memory version"


async def versions(
    conn: asyncpg.Connection,
    principal: Principal,
    store_id: UUID,
    *,
    limit: int,
    before: tuple[datetime, UUID] | None,
    kept: VersionFilter,
    full: bool,
) -> list[VersionRow]:
    """Up to ``limit`` + 1 versions of a store the caller may read, newest first (the
    workspace's memory store keeps its history on its pages: none listed here; GraphQL
    memoryVersions lists a page's, and retrieving the version a memory names answers it)."""
    await store(conn, principal, store_id)
    if is_workspace_store(store_id):
        return []
    return await memory_stores.versions_page(conn, store_id, limit + 1, before, kept, full)


async def version(
    conn: asyncpg.Connection, principal: Principal, store_id: UUID, version_id: UUID
) -> VersionRow:
    """One version of a store the caller may read."""
    await store(conn, principal, store_id)
    if is_workspace_store(store_id):
        found = await workspace_version(conn, principal, version_id)
    else:
        found = await memory_stores.version_by_id(conn, store_id, version_id)
    if found is None:
        raise not_found(MISSING)
    return found


async def redact(
    conn: asyncpg.Connection, principal: Principal, store_id: UUID, version_id: UUID
) -> VersionRow:
    """Scrub a version's path and content (archived stores too; once: a second redaction
    changes nothing), keeping its id, memory, operation, time and actor."""
    await writable_store(conn, principal, store_id, live=False)
    found = await memory_stores.version_by_id(conn, store_id, version_id)
    if found is None:
        raise not_found(MISSING)
    if found.redacted_at is None:
        await memory_stores.redact_version(
            conn, store_id, version_id, actor_of(principal), clock.now()
        )
        found = await memory_stores.version_by_id(conn, store_id, version_id)
        assert found is not None  # versions go only with their store
    return found
