"""What `client.beta.memory_stores` (and its `memories`, `memory_versions`) sends and gets
(../shared/ANTHROPIC-WIRE.md §4): the pydantic models of the bodies, query strings and answers,
the SDK-style ids, and our actors as the SDK's actor kinds.

Actors (who made or redacted a version), our token's principal as the SDK names it:

- an API key → ``api_actor`` with ``api_key_id`` ``apikey_…``;
- a person's own session → ``user_actor`` with ``user_id`` ``user_…`` (the member);
- an agent → ``session_actor`` with ``session_id`` ``sesn_…`` (the token the agent acted
  through: an agent's session);
- an MCP client → ``service_account_actor`` with ``service_account_id`` ``svac_…``.

Each id is the prefix and our global id (``user_`` + a Member's GraphQL id), so a version
listing's ``api_key_id``, ``session_id`` and ``service_account_id`` filters take them back."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from db.memory_stores import MemoryRow, StoreRow, VersionRow
from gateway.anthropic.transport import QueryModel, public_id

STORE = ("memstore", "MemoryStore")
MEMORY = ("mem", "StoreMemory")
VERSION = ("memver", "StoreMemoryVersion")
# Our principal's kind -> the SDK's actor type, its id field, the id's prefix and type.
ACTORS = {
    "api_key": ("api_actor", "api_key_id", "apikey", "ApiKey"),
    "member": ("user_actor", "user_id", "user", "Member"),
    "agent": ("session_actor", "session_id", "sesn", "Session"),
    "mcp_client": ("service_account_actor", "service_account_id", "svac", "McpClient"),
}
View = Literal["basic", "full"]
FULL_PAGE_MAX = 20


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateStore(Body):
    name: str
    description: str = ""
    metadata: dict[str, str] = {}
    # Ours (the SDK's extra_body): who reads the store, like any record.
    visibility: Literal["workspace", "private"] = "workspace"


class UpdateStore(Body):
    name: str | None = None
    description: str | None = None
    metadata: dict[str, str | None] | None = None


class CreateMemory(Body):
    path: str
    content: str | None


class Precondition(Body):
    type: Literal["content_sha256"]
    content_sha256: str


class UpdateMemory(Body):
    content: str | None = None
    path: str | None = None
    precondition: Precondition | None = None


class ViewQuery(QueryModel):
    view: View | None = None


class PageQuery(QueryModel):
    limit: int = Field(20, ge=1, le=100)
    page: str | None = None


class StoresQuery(PageQuery):
    created_at_gte: datetime | None = None
    created_at_lte: datetime | None = None
    include_archived: bool = False


class MemoriesQuery(PageQuery):
    path_prefix: str | None = None
    depth: int = Field(0, ge=0, le=20)
    view: View = "basic"


class DeleteMemoryQuery(QueryModel):
    expected_content_sha256: str | None = None


class VersionsQuery(PageQuery):
    memory_id: str | None = None
    operation: Literal["created", "modified", "deleted"] | None = None
    api_key_id: str | None = None
    service_account_id: str | None = None
    session_id: str | None = None
    created_at_gte: datetime | None = None
    created_at_lte: datetime | None = None
    view: View = "basic"


class MemoryStore(BaseModel):
    id: str
    type: Literal["memory_store"] = "memory_store"
    name: str
    description: str
    metadata: dict[str, str]
    created_at: datetime
    updated_at: datetime
    archived_at: datetime | None
    visibility: str
    read_only: bool


class Memory(BaseModel):
    id: str
    type: Literal["memory"] = "memory"
    memory_store_id: str
    path: str
    content: str | None
    content_sha256: str
    content_size_bytes: int
    memory_version_id: str
    created_at: datetime
    updated_at: datetime


class MemoryPrefix(BaseModel):
    type: Literal["memory_prefix"] = "memory_prefix"
    path: str


class MemoryVersion(BaseModel):
    id: str
    type: Literal["memory_version"] = "memory_version"
    memory_id: str
    memory_store_id: str
    operation: str
    path: str | None
    content: str | None
    content_sha256: str | None
    content_size_bytes: int | None
    created_at: datetime
    created_by: dict[str, str] | None
    redacted_at: datetime | None
    redacted_by: dict[str, str] | None


class Deleted(BaseModel):
    id: str
    type: str


def actor(
    workspace_id: UUID, kind: str | None, actor_id: UUID | None, session: UUID | None
) -> dict[str, str] | None:
    """Our actor as the SDK's (None when there is none)."""
    if kind is None or actor_id is None or kind not in ACTORS:
        return None
    type_, field, prefix, type_name = ACTORS[kind]
    local = session if kind == "agent" and session is not None else actor_id
    return {"type": type_, field: public_id(prefix, type_name, workspace_id, local)}


def store_out(workspace_id: UUID, row: StoreRow, read_only: bool = False) -> MemoryStore:
    return MemoryStore(
        id=public_id(*STORE, workspace_id, row.id),
        name=row.name,
        description=row.description,
        metadata=row.metadata,
        created_at=row.created_at,
        updated_at=row.updated_at,
        archived_at=row.archived_at,
        visibility=row.visibility,
        read_only=read_only,
    )


def memory_out(workspace_id: UUID, row: MemoryRow, full: bool) -> Memory:
    return Memory(
        id=public_id(*MEMORY, workspace_id, row.id),
        memory_store_id=public_id(*STORE, workspace_id, row.store_id),
        path=row.path,
        content=row.content if full else None,
        content_sha256=row.content_sha256,
        content_size_bytes=row.content_size_bytes,
        memory_version_id=public_id(*VERSION, workspace_id, row.version_id),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def version_out(workspace_id: UUID, row: VersionRow, full: bool) -> MemoryVersion:
    return MemoryVersion(
        id=public_id(*VERSION, workspace_id, row.id),
        memory_id=public_id(*MEMORY, workspace_id, row.memory_id),
        memory_store_id=public_id(*STORE, workspace_id, row.store_id),
        operation=row.operation,
        path=row.path,
        content=row.content if full else None,
        content_sha256=row.content_sha256,
        content_size_bytes=row.content_size_bytes,
        created_at=row.created_at,
        created_by=actor(workspace_id, row.actor_kind, row.actor_id, row.session_id),
        redacted_at=row.redacted_at,
        redacted_by=actor(
            workspace_id, row.redactor_kind, row.redactor_id, row.redactor_session_id
        ),
    )


def page_size(limit: int, view: str) -> int:
    """A page's size: the limit asked, at most 20 with the full view."""
    return min(limit, FULL_PAGE_MAX) if view == "full" else limit


def listed(items: list[Any], size: int) -> tuple[list[Any], Any]:
    """The page's items and the last one when another page follows (the resolvers read one
    more than the page holds)."""
    return (items[:size], items[size - 1]) if len(items) > size else (items, None)
