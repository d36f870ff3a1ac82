"""The workspace's memory as one read-only store (issue 14, item 4): every memory page the
caller may read, as a markdown file — profiles under `/profiles/`, record pages under
`/records/<object>/` — its content as the caller sees it, its sha256 the one an edit's
baseSha256 names. Writes are refused: memory is written through proposals."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from uuid import UUID, uuid5

import asyncpg

from db import identity, memory_stores, records
from db.memory_stores import EntryRow, MemoryRow, StoreRow, VersionRow, WorkspaceEntryRow
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import Principal
from resolvers.memory.access import view
from resolvers.memory.reading import page_content, sha256, shown_souvenirs
from resolvers.skills.paths import BAD_PATH_CHAR, SURROGATE

# The store's local id, the same in every workspace (its public id names the workspace).
WORKSPACE_STORE_ID = uuid5(UUID("6d656d6f-7279-4000-8000-73746f726573"), "workspace-memory")
WORKSPACE_STORE_NAME = "Workspace memory"
WORKSPACE_STORE_DESCRIPTION = (
    "The memory pages you may read, as markdown files (read-only: propose memories with"
    " propose_memory)."
)
READ_ONLY = (
    "The workspace memory store is read-only: memory is written through proposals, use"
    " propose_memory (GraphQL proposeMemory)."
)
MAX_NAME_CHARS = 200
_PROFILE_FOLDERS = {"member": "members", "agent": "agents", "routine": "routines"}


def is_workspace_store(store_id: UUID) -> bool:
    return store_id == WORKSPACE_STORE_ID


def refuse_write() -> DomainError:
    """The answer to any write to the workspace store."""
    return DomainError(Code.FORBIDDEN, READ_ONLY)


async def workspace_store(conn: asyncpg.Connection, principal: Principal) -> StoreRow | None:
    """The store, for a caller whose role reads memory; None otherwise."""
    memory_object = await records.object_id(conn, "memory")
    workspace = await identity.workspace(conn)
    if memory_object is None or workspace is None or not principal.may("read", memory_object):
        return None
    return StoreRow(
        id=WORKSPACE_STORE_ID,
        name=WORKSPACE_STORE_NAME,
        description=WORKSPACE_STORE_DESCRIPTION,
        metadata={"read_only": "true"},
        created_at=workspace.created_at,
        updated_at=workspace.created_at,
        archived_at=None,
        visibility="workspace",
        owner_member_id=None,
        object_id=memory_object,
    )


def file_name(name: str) -> str:
    """A page's name as one path segment a memory path accepts: in NFC, no slash, control or
    formatting character, at most 200 characters, with `.md`."""
    cleaned = unicodedata.normalize("NFC", SURROGATE.sub("-", name))
    cleaned = BAD_PATH_CHAR.sub("-", cleaned.replace("/", "-"))
    return f"{cleaned.strip()[:MAX_NAME_CHARS] or 'page'}.md"


def _memory(principal: Principal, entry: WorkspaceEntryRow, full: bool = True) -> MemoryRow:
    """A page of the store as the caller sees it (``full``: with its content)."""
    page = entry.page
    assert page is not None
    shown = view(principal, page)
    return MemoryRow(
        id=page.id,
        store_id=WORKSPACE_STORE_ID,
        path=entry.key,
        content=shown.content if full else None,
        content_sha256=shown.content_sha256,
        content_size_bytes=len(shown.content.encode()),
        version_id=entry.last_version_id or page.id,
        created_at=page.created_at,
        updated_at=page.updated_at,
    )


async def workspace_memory(
    conn: asyncpg.Connection, principal: Principal, memory_id: UUID
) -> MemoryRow | None:
    """One page the caller may read, as a memory; None otherwise (one statement)."""
    found = await memory_stores.workspace_entries(
        conn, principal.readable_objects, principal.person_id, page_id=memory_id
    )
    return _memory(principal, found[0]) if found else None


async def workspace_entries(
    conn: asyncpg.Connection,
    principal: Principal,
    *,
    prefix: str,
    depth: int,
    after: str,
    limit: int,
    full: bool,
) -> list[EntryRow]:
    """The store's entries as memories_page lists a stored one's (the same roll-up rule),
    paged in SQL: one statement, whatever the number of pages."""
    found = await memory_stores.workspace_entries(
        conn,
        principal.readable_objects,
        principal.person_id,
        prefix=prefix,
        depth=depth,
        after=after,
        limit=limit,
    )
    return [EntryRow(e.key, None if e.page is None else _memory(principal, e, full)) for e in found]


async def workspace_version(
    conn: asyncpg.Connection, principal: Principal, version_id: UUID
) -> VersionRow | None:
    """The version a memory of the store names (its page's newest, or the page itself for a
    page without versions), as a store version: `created` for the page's first, `modified`
    otherwise, its content as the caller sees it; None for any other id."""
    readable, person = principal.readable_objects, principal.person_id
    found = await memory_stores.workspace_version(conn, version_id, readable, person)
    page_id = found.page_id if found is not None else version_id
    memory = await workspace_memory(conn, principal, page_id)
    if memory is None or memory.version_id != version_id:
        return None
    if found is None:  # a page without versions: its memory_version_id is its own id
        return _version(memory, "created", memory.content, memory.created_at)
    content = None
    if found.lines is not None:
        content = page_content(found.lines, shown_souvenirs(found.lines, principal.workspace_id))
    operation = "created" if found.number == 1 or found.operation == "created" else "modified"
    return _version(
        memory,
        operation,
        content,
        found.created_at,
        found.redacted_at,
        (found.actor_kind, found.actor_id, found.session_id),
    )


def _version(
    memory: MemoryRow,
    operation: str,
    content: str | None,
    at: datetime,
    redacted_at: datetime | None = None,
    actor: tuple[str, UUID | None, UUID | None] = ("system", None, None),
) -> VersionRow:
    kind, actor_id, session = actor
    return VersionRow(
        id=memory.version_id,
        store_id=WORKSPACE_STORE_ID,
        memory_id=memory.id,
        operation=operation,
        path=None if content is None else memory.path,
        content=content,
        content_sha256=None if content is None else sha256(content),
        content_size_bytes=None if content is None else len(content.encode()),
        actor_kind=kind,
        actor_id=actor_id,
        actor_name="",
        session_id=session,
        created_at=at,
        redacted_at=redacted_at,
        redactor_kind=None,
        redactor_id=None,
        redactor_session_id=None,
    )


def created_between(store: StoreRow, gte: datetime | None, lte: datetime | None) -> bool:
    """Whether the store was created within a listing's bounds."""
    return (gte is None or store.created_at >= gte) and (lte is None or store.created_at <= lte)
