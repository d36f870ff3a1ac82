"""Stores (issue 14, item 3): created, read, updated, archived, listed and deleted. A store is
a record of the native `memory_store` object: who reads it is `record_readable`'s rule (a
private store is its owner's and those it is shared with); the role's create, update and delete
rights on the object decide who writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from db import memory_stores, records
from db.memory_stores import StoreRow
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.stores.access import refuse_read_only
from resolvers.stores.rules import (
    VISIBILITIES,
    description_problems,
    merge_metadata,
    name_problems,
)
from resolvers.stores.workspace import (
    created_between,
    is_workspace_store,
    refuse_write,
    workspace_store,
)

STORE_OBJECT = "memory_store"
MISSING = "memory store"
# A listing's position: after a stored store (its creation time and id), or right after the
# workspace's memory store (which comes first).
AFTER_WORKSPACE_STORE = "workspace"
StoresAfter = tuple[datetime, UUID] | str | None


@dataclass(frozen=True, slots=True)
class StoreInput:
    name: str
    description: str = ""
    metadata: dict[str, str | None] = field(default_factory=dict)
    visibility: str = "workspace"


@dataclass(frozen=True, slots=True)
class StoreChange:
    """An update: only the given fields (None: left as they are)."""

    name: str | None = None
    description: str | None = None
    metadata: dict[str, str | None] | None = None


async def _object_id(conn: asyncpg.Connection) -> UUID:
    found = await records.object_id(conn, STORE_OBJECT)
    assert found is not None  # every workspace has the native memory_store object
    return found


def _forbidden(principal: Principal, action: str, object_id: UUID) -> None:
    if not principal.may(action, object_id):
        raise DomainError(Code.FORBIDDEN, f"Your role may not {action} memory stores.")


async def create_store(
    conn: asyncpg.Connection, principal: Principal, given: StoreInput
) -> StoreRow:
    """A new store, workspace-visible or private to the caller's person."""
    object_id = await _object_id(conn)
    _forbidden(principal, "create", object_id)
    metadata, problems = merge_metadata({}, given.metadata)
    problems = [*name_problems(given.name), *description_problems(given.description), *problems]
    if given.visibility not in VISIBILITIES:
        problems.append(Problem("visibility is 'workspace' or 'private'", "visibility"))
    elif given.visibility == "private" and principal.person_id is None:
        problems.append(Problem("only a person's token creates a private store", "visibility"))
    if problems:
        raise invalid(problems)
    store_id = uuid4()
    owner = principal.person_id if given.visibility == "private" else None
    await memory_stores.insert_store(
        conn,
        store_id,
        given.name,
        given.description,
        metadata,
        given.visibility,
        owner,
        clock.now(),
    )
    return await store(conn, principal, store_id)


async def store(
    conn: asyncpg.Connection, principal: Principal, store_id: UUID, *, for_update: bool = False
) -> StoreRow:
    """A store the caller may read (the workspace's memory store included); NOT_FOUND
    otherwise, exactly like a missing one."""
    if is_workspace_store(store_id):
        found = await workspace_store(conn, principal)
    else:
        found = await memory_stores.store_readable(
            conn,
            store_id,
            principal.readable_objects,
            principal.person_id,
            for_update=for_update,
        )
    if found is None:
        raise not_found(MISSING)
    return found


async def writable_store(
    conn: asyncpg.Connection, principal: Principal, store_id: UUID, *, live: bool = True
) -> StoreRow:
    """A store the caller may change, locked until the transaction ends: not the workspace's
    memory store, with the update right, and (``live``) not archived."""
    if is_workspace_store(store_id):
        await store(conn, principal, store_id)
        raise refuse_write()
    found = await store(conn, principal, store_id, for_update=True)
    _forbidden(principal, "update", found.object_id)
    await refuse_read_only(conn, principal, store_id)
    if live and found.archived_at is not None:
        raise invalid(
            [Problem("the store is archived: its memories and settings are read-only", "id")],
            "The memory store is archived: nothing was changed.",
        )
    return found


async def update_store(
    conn: asyncpg.Connection, principal: Principal, store_id: UUID, change: StoreChange
) -> StoreRow:
    """A store's new name, description or metadata (merged: None removes a key)."""
    found = await writable_store(conn, principal, store_id)
    metadata, problems = merge_metadata(found.metadata, change.metadata or {})
    name = found.name if change.name is None else change.name
    description = found.description if change.description is None else change.description
    problems = [*name_problems(name), *description_problems(description), *problems]
    if problems:
        raise invalid(problems)
    await memory_stores.update_store(conn, store_id, name, description, metadata, clock.now())
    return await store(conn, principal, store_id)


async def archive_store(conn: asyncpg.Connection, principal: Principal, store_id: UUID) -> StoreRow:
    """Archive a store for good (archiving again changes nothing)."""
    await writable_store(conn, principal, store_id, live=False)
    await memory_stores.archive_store(conn, store_id, clock.now())
    return await store(conn, principal, store_id)


async def delete_store(conn: asyncpg.Connection, principal: Principal, store_id: UUID) -> None:
    """Remove a store with its memories and their versions."""
    if is_workspace_store(store_id):
        await store(conn, principal, store_id)
        raise refuse_write()
    found = await store(conn, principal, store_id, for_update=True)
    _forbidden(principal, "delete", found.object_id)
    await refuse_read_only(conn, principal, store_id)
    await memory_stores.delete_store(conn, store_id)


async def stores(
    conn: asyncpg.Connection,
    principal: Principal,
    limit: int,
    after: StoresAfter,
    created: tuple[datetime | None, datetime | None] = (None, None),
    include_archived: bool = False,
) -> list[StoreRow]:
    """Up to ``limit`` + 1 readable stores after ``after``: the workspace's memory store first,
    then the others in creation order."""
    found: list[StoreRow] = []
    if after is None:
        own = await workspace_store(conn, principal)
        if own is not None and created_between(own, *created):
            found.append(own)
    position = None if isinstance(after, str) or after is None else after
    found += await memory_stores.stores_page(
        conn,
        principal.readable_objects,
        principal.person_id,
        limit + 1 - len(found),
        position,
        created,
        include_archived,
    )
    return found
