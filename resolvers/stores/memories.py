"""A store's memories (issue 14, item 3): UTF-8 text at paths, each create, modify and delete
an immutable version by the caller's actor; updates and deletes may name the content they
expect (the sha256 precondition of memory pages: `resolvers/memory/reading.py`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from uuid import UUID, uuid4

import asyncpg

from db import memory_stores
from db.memory_stores import EntryRow, MemoryRow
from resolvers.common import clock
from resolvers.common.errors import Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.reading import check_precondition, sha256, sha256_problems
from resolvers.memory.writing import actor_of
from resolvers.stores.rules import content_problems, path_problems, prefix_problems
from resolvers.stores.stores import store, writable_store
from resolvers.stores.workspace import is_workspace_store, workspace_entries, workspace_memory

MISSING = "memory"
CHANGED = "The memory's content is not the one expected: nothing was changed; read it again."


class PathConflict(Exception):
    """Another memory of the store sits at the path."""

    def __init__(self, path: str) -> None:
        super().__init__(f"Another memory of this store is at {path!r}: nothing was changed.")


@dataclass(frozen=True, slots=True)
class MemoryChange:
    """An update: only the given fields; ``expected_sha256`` the precondition."""

    content: str | None = None
    path: str | None = None
    expected_sha256: str | None = None


def _checked(problems: list[Problem]) -> None:
    if problems:
        raise invalid(problems, "The memory is not valid: nothing was changed.")


async def _write_version(
    conn: asyncpg.Connection, principal: Principal, row: MemoryRow, operation: str
) -> UUID:
    """The version a change adds (a create's id is the one its memory was written with)."""
    version_id = row.version_id if operation == "created" else uuid4()
    await memory_stores.insert_version(
        conn, version_id, row, operation, actor_of(principal), clock.now()
    )
    return version_id


async def create_memory(
    conn: asyncpg.Connection, principal: Principal, store_id: UUID, path: str, content: str
) -> MemoryRow:
    """A new memory at a free path of a live store the caller may update."""
    await writable_store(conn, principal, store_id)
    _checked([*path_problems(path), *content_problems(content)])
    now = clock.now()
    row = MemoryRow(
        uuid4(),
        store_id,
        path,
        content,
        sha256(content),
        len(content.encode()),
        uuid4(),
        now,
        now,
    )
    # The store is locked: the path is free until the memory is written, unless a memory was
    # written at it meanwhile (then nothing is written).
    if not await memory_stores.insert_memory(conn, row):
        raise PathConflict(path)
    await _write_version(conn, principal, row, "created")
    return row


async def memory(
    conn: asyncpg.Connection, principal: Principal, store_id: UUID, memory_id: UUID
) -> MemoryRow:
    """A memory of a store the caller may read."""
    await store(conn, principal, store_id)
    if is_workspace_store(store_id):
        found = await workspace_memory(conn, principal, memory_id)
    else:
        found = await memory_stores.memory_by_id(conn, store_id, memory_id)
    if found is None:
        raise not_found(MISSING)
    return found


async def update_memory(
    conn: asyncpg.Connection,
    principal: Principal,
    store_id: UUID,
    memory_id: UUID,
    change: MemoryChange,
) -> MemoryRow:
    """A memory's new content or path, unless its content is not the one expected."""
    _checked(sha256_problems(change.expected_sha256, "precondition.content_sha256"))
    await writable_store(conn, principal, store_id)
    current = await memory_stores.memory_by_id(conn, store_id, memory_id)
    if current is None:
        raise not_found(MISSING)
    check_precondition(change.expected_sha256, current.content_sha256, CHANGED)
    content = current.content if change.content is None else change.content
    path = current.path if change.path is None else change.path
    assert content is not None  # memory_by_id reads the content
    _checked([*path_problems(path), *content_problems(content)])
    if content == current.content and path == current.path:
        return current
    taken = await memory_stores.memory_id_at(conn, store_id, path)
    if taken is not None and taken != memory_id:
        raise PathConflict(path)
    row = replace(
        current,
        path=path,
        content=content,
        content_sha256=sha256(content),
        content_size_bytes=len(content.encode()),
        updated_at=clock.now(),
    )
    row = replace(row, version_id=await _write_version(conn, principal, row, "modified"))
    await memory_stores.update_memory(conn, row)
    return row


async def delete_memory(
    conn: asyncpg.Connection,
    principal: Principal,
    store_id: UUID,
    memory_id: UUID,
    expected_sha256: str | None = None,
) -> None:
    """Remove a memory (archived stores too), unless its content is not the one expected; its
    versions stay, the last one `deleted`."""
    _checked(sha256_problems(expected_sha256, "expected_content_sha256"))
    await writable_store(conn, principal, store_id, live=False)
    current = await memory_stores.memory_by_id(conn, store_id, memory_id)
    if current is None:
        raise not_found(MISSING)
    check_precondition(expected_sha256, current.content_sha256, CHANGED)
    await _write_version(conn, principal, current, "deleted")
    await memory_stores.delete_memory(conn, store_id, memory_id)


async def listing(
    conn: asyncpg.Connection,
    principal: Principal,
    store_id: UUID,
    *,
    prefix: str | None,
    depth: int,
    after: str,
    limit: int,
    full: bool,
) -> list[EntryRow]:
    """Up to ``limit`` + 1 entries below ``prefix`` (every memory, or with ``depth`` the
    memories that deep and a prefix per folder holding deeper ones), in path order."""
    _checked(prefix_problems(prefix) if prefix is not None else [])
    await store(conn, principal, store_id)
    if is_workspace_store(store_id):
        return await workspace_entries(
            conn,
            principal,
            prefix=prefix or "/",
            depth=depth,
            after=after,
            limit=limit + 1,
            full=full,
        )
    return await memory_stores.memories_page(
        conn, store_id, prefix or "/", depth, after, limit + 1, full
    )
