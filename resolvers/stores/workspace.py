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
from db.memory_stores import EntryRow, MemoryRow, StoreRow, WorkspacePageRow
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import Principal
from resolvers.memory.access import may_read, view
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


def page_path(row: WorkspacePageRow) -> str:
    """Where a page sits in the store."""
    page = row.page
    if page.about_kind == "workspace":
        return "/profiles/workspace.md"
    if page.about_kind in _PROFILE_FOLDERS:
        return f"/profiles/{_PROFILE_FOLDERS[page.about_kind]}/{file_name(page.name)}"
    return f"/records/{row.subject_object or 'record'}/{file_name(page.name)}"


async def workspace_memories(conn: asyncpg.Connection, principal: Principal) -> list[MemoryRow]:
    """Every page the caller may read as a memory, in path order (a second page at one path
    takes its id's first characters)."""
    rows = await memory_stores.workspace_pages(
        conn, principal.readable_objects, principal.person_id
    )
    found: dict[str, MemoryRow] = {}
    for row in rows:
        if not may_read(principal, row.page):
            continue
        path = page_path(row)
        if path in found:
            path = f"{path[:-3]}-{row.page.id.hex[:8]}.md"
        shown = view(principal, row.page)
        found[path] = MemoryRow(
            id=row.page.id,
            store_id=WORKSPACE_STORE_ID,
            path=path,
            content=shown.content,
            content_sha256=shown.content_sha256,
            content_size_bytes=len(shown.content.encode()),
            version_id=row.last_version_id or row.page.id,
            created_at=row.page.created_at,
            updated_at=row.page.updated_at,
        )
    return [found[path] for path in sorted(found)]


def entries(
    memories: list[MemoryRow], prefix: str, depth: int, after: str, limit: int, full: bool
) -> list[EntryRow]:
    """The store's entries as memories_page lists a stored one's (the same roll-up rule)."""
    keyed: dict[str, MemoryRow | None] = {}
    for memory in memories:
        if not memory.path.startswith(prefix):
            continue
        rest = memory.path[len(prefix) :].split("/")
        if depth > 0 and len(rest) > depth:
            keyed.setdefault(prefix + "/".join(rest[:depth]) + "/", None)
        else:
            keyed[memory.path] = memory if full else _basic(memory)
    keys = sorted(k for k in keyed if k.encode() > after.encode())[:limit]
    return [EntryRow(key, keyed[key]) for key in keys]


def _basic(memory: MemoryRow) -> MemoryRow:
    return MemoryRow(
        memory.id,
        memory.store_id,
        memory.path,
        None,
        memory.content_sha256,
        memory.content_size_bytes,
        memory.version_id,
        memory.created_at,
        memory.updated_at,
    )


def created_between(store: StoreRow, gte: datetime | None, lte: datetime | None) -> bool:
    """Whether the store was created within a listing's bounds."""
    return (gte is None or store.created_at >= gte) and (lte is None or store.created_at <= lte)
