"""`/v1/memory_stores` for `client.beta.memory_stores`, `.memories` and `.memory_versions`
(issue 14, items 3 and 4; ../shared/ANTHROPIC-WIRE.md §4): each route reads its input with the
models of memory_models.py, calls one resolver of resolvers/stores/ and answers in the SDK's
shape. A path taken by another memory answers 409 `memory_path_conflict_error` and a failed
sha256 precondition 409 `memory_precondition_failed_error`, both with `x-should-retry: false`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from starlette.requests import Request
from starlette.routing import Route

from db.memory_stores import EntryRow, VersionFilter
from gateway.anthropic import memory_models as m
from gateway.anthropic.transport import (
    ApiError,
    anthropic_route,
    decode_page,
    encode_page,
    json_body,
    local_id,
    page_of,
    query_params,
)
from resolvers.common.errors import DomainError, Problem, invalid
from resolvers.common.principals import Principal
from resolvers.stores import memories, stores, versions
from resolvers.stores.workspace import is_workspace_store

PREFIX = "/v1/memory_stores"


def _who(request: Request) -> tuple[Principal, Any]:
    return request.scope["principal"], request.scope["db"]


def _store_id(request: Request, principal: Principal) -> UUID:
    given = request.path_params["store_id"]
    return local_id(*m.STORE, given, principal.workspace_id, "memory store")


def _memory_id(request: Request, principal: Principal) -> UUID:
    given = request.path_params["memory_id"]
    return local_id(*m.MEMORY, given, principal.workspace_id, "memory")


def _version_id(request: Request, principal: Principal) -> UUID:
    given = request.path_params["version_id"]
    return local_id(*m.VERSION, given, principal.workspace_id, "memory version")


def _store(principal: Principal, row: Any) -> m.MemoryStore:
    return m.store_out(principal.workspace_id, row, read_only=is_workspace_store(row.id))


def _full(request: Request, default: str) -> bool:
    return (query_params(request, m.ViewQuery).view or default) == "full"


def _moment(parts: list[str]) -> tuple[datetime, UUID]:
    try:
        moment = datetime.fromisoformat(parts[0])
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC), UUID(hex=parts[1])
    except ValueError:
        raise ApiError(
            400, "invalid_request_error", "page is not a page token this list gave."
        ) from None


# --- stores ------------------------------------------------------------------------------------


@anthropic_route
async def create_store(request: Request) -> m.MemoryStore:
    principal, conn = _who(request)
    body = await json_body(request, m.CreateStore)
    given = stores.StoreInput(body.name, body.description, dict(body.metadata), body.visibility)
    return _store(principal, await stores.create_store(conn, principal, given))


@anthropic_route
async def retrieve_store(request: Request) -> m.MemoryStore:
    principal, conn = _who(request)
    return _store(principal, await stores.store(conn, principal, _store_id(request, principal)))


@anthropic_route
async def update_store(request: Request) -> m.MemoryStore:
    principal, conn = _who(request)
    store_id = _store_id(request, principal)
    body = await json_body(request, m.UpdateStore)
    change = stores.StoreChange(body.name, body.description, body.metadata)
    return _store(principal, await stores.update_store(conn, principal, store_id, change))


@anthropic_route
async def archive_store(request: Request) -> m.MemoryStore:
    principal, conn = _who(request)
    store_id = _store_id(request, principal)
    return _store(principal, await stores.archive_store(conn, principal, store_id))


@anthropic_route
async def delete_store(request: Request) -> m.Deleted:
    principal, conn = _who(request)
    store_id = _store_id(request, principal)
    await stores.delete_store(conn, principal, store_id)
    return m.Deleted(id=request.path_params["store_id"], type="memory_store_deleted")


@anthropic_route
async def list_stores(request: Request) -> dict[str, Any]:
    principal, conn = _who(request)
    query = query_params(request, m.StoresQuery)
    after: stores.StoresAfter = None
    if query.page is not None:
        parts = decode_page(query.page, 2)
        after = stores.AFTER_WORKSPACE_STORE if parts[0] == "" else _moment(parts)
    found = await stores.stores(
        conn,
        principal,
        query.limit,
        after,
        (query.created_at_gte, query.created_at_lte),
        query.include_archived,
    )
    items, last = m.listed(found, query.limit)
    token = None
    if last is not None:
        first = is_workspace_store(last.id)
        token = (
            encode_page("", "") if first else encode_page(last.created_at.isoformat(), last.id.hex)
        )
    return page_of([_store(principal, row) for row in items], token)


# --- memories ----------------------------------------------------------------------------------


def _path_conflict(error: memories.PathConflict) -> ApiError:
    return ApiError(409, "memory_path_conflict_error", str(error), retry=False)


@anthropic_route
async def create_memory(request: Request) -> m.Memory:
    principal, conn = _who(request)
    store_id = _store_id(request, principal)
    full = _full(request, "basic")
    body = await json_body(request, m.CreateMemory)
    if body.content is None:
        raise invalid([Problem('content is required ("" for an empty memory)', "content")])
    try:
        row = await memories.create_memory(conn, principal, store_id, body.path, body.content)
    except memories.PathConflict as error:
        raise _path_conflict(error) from None
    return m.memory_out(principal.workspace_id, row, full)


@anthropic_route
async def retrieve_memory(request: Request) -> m.Memory:
    principal, conn = _who(request)
    store_id, memory_id = _store_id(request, principal), _memory_id(request, principal)
    full = _full(request, "full")
    row = await memories.memory(conn, principal, store_id, memory_id)
    return m.memory_out(principal.workspace_id, row, full)


@anthropic_route
async def update_memory(request: Request) -> m.Memory:
    principal, conn = _who(request)
    store_id, memory_id = _store_id(request, principal), _memory_id(request, principal)
    full = _full(request, "basic")
    body = await json_body(request, m.UpdateMemory)
    expected = body.precondition.content_sha256 if body.precondition else None
    change = memories.MemoryChange(body.content, body.path, expected)
    try:
        row = await memories.update_memory(conn, principal, store_id, memory_id, change)
    except memories.PathConflict as error:
        raise _path_conflict(error) from None
    return m.memory_out(principal.workspace_id, row, full)


@anthropic_route
async def delete_memory(request: Request) -> m.Deleted:
    principal, conn = _who(request)
    store_id, memory_id = _store_id(request, principal), _memory_id(request, principal)
    query = query_params(request, m.DeleteMemoryQuery)
    await memories.delete_memory(
        conn, principal, store_id, memory_id, query.expected_content_sha256
    )
    return m.Deleted(id=request.path_params["memory_id"], type="memory_deleted")


def _entry(principal: Principal, entry: EntryRow, full: bool) -> m.Memory | m.MemoryPrefix:
    if entry.memory is None:
        return m.MemoryPrefix(path=entry.key)
    return m.memory_out(principal.workspace_id, entry.memory, full)


@anthropic_route
async def list_memories(request: Request) -> dict[str, Any]:
    principal, conn = _who(request)
    store_id = _store_id(request, principal)
    query = query_params(request, m.MemoriesQuery)
    size, full = m.page_size(query.limit, query.view), query.view == "full"
    after = decode_page(query.page, 1)[0] if query.page is not None else ""
    found = await memories.listing(
        conn,
        principal,
        store_id,
        prefix=query.path_prefix,
        depth=query.depth,
        after=after,
        limit=size,
        full=full,
    )
    items, last = m.listed(found, size)
    token = encode_page(last.key) if last is not None else None
    return page_of([_entry(principal, entry, full) for entry in items], token)


# --- versions ----------------------------------------------------------------------------------


def _filter(principal: Principal, query: m.VersionsQuery) -> VersionFilter | None:
    """The listing's filter; None when an id names nothing this workspace holds (nothing
    matches)."""
    ws = principal.workspace_id
    try:
        memory_id = local_id(*m.MEMORY, query.memory_id, ws) if query.memory_id else None
        kind, actor_id = None, None
        if query.api_key_id is not None:
            kind, actor_id = "api_key", local_id("apikey", "ApiKey", query.api_key_id, ws)
        if query.service_account_id is not None:
            if kind is not None:
                return None  # one actor cannot be both
            kind = "mcp_client"
            actor_id = local_id("svac", "McpClient", query.service_account_id, ws)
        session = local_id("sesn", "Session", query.session_id, ws) if query.session_id else None
    except DomainError:
        return None
    return VersionFilter(
        memory_id,
        query.operation,
        kind,
        actor_id,
        session,
        query.created_at_gte,
        query.created_at_lte,
    )


@anthropic_route
async def list_versions(request: Request) -> dict[str, Any]:
    principal, conn = _who(request)
    store_id = _store_id(request, principal)
    query = query_params(request, m.VersionsQuery)
    size, full = m.page_size(query.limit, query.view), query.view == "full"
    before = _moment(decode_page(query.page, 2)) if query.page is not None else None
    kept = _filter(principal, query)
    if kept is None:
        await stores.store(conn, principal, store_id)
        return page_of([], None)
    found = await versions.versions(
        conn, principal, store_id, limit=size, before=before, kept=kept, full=full
    )
    items, last = m.listed(found, size)
    token = encode_page(last.created_at.isoformat(), last.id.hex) if last is not None else None
    return page_of([m.version_out(principal.workspace_id, row, full) for row in items], token)


@anthropic_route
async def retrieve_version(request: Request) -> m.MemoryVersion:
    principal, conn = _who(request)
    store_id, version_id = _store_id(request, principal), _version_id(request, principal)
    full = _full(request, "full")
    row = await versions.version(conn, principal, store_id, version_id)
    return m.version_out(principal.workspace_id, row, full)


@anthropic_route
async def redact_version(request: Request) -> m.MemoryVersion:
    principal, conn = _who(request)
    store_id, version_id = _store_id(request, principal), _version_id(request, principal)
    row = await versions.redact(conn, principal, store_id, version_id)
    return m.version_out(principal.workspace_id, row, True)


STORE_PATH = PREFIX + "/{store_id}"
ROUTES = [
    Route(PREFIX, create_store, methods=["POST"]),
    Route(PREFIX, list_stores, methods=["GET"]),
    Route(STORE_PATH, retrieve_store, methods=["GET"]),
    Route(STORE_PATH, update_store, methods=["POST"]),
    Route(STORE_PATH, delete_store, methods=["DELETE"]),
    Route(STORE_PATH + "/archive", archive_store, methods=["POST"]),
    Route(STORE_PATH + "/memories", create_memory, methods=["POST"]),
    Route(STORE_PATH + "/memories", list_memories, methods=["GET"]),
    Route(STORE_PATH + "/memories/{memory_id}", retrieve_memory, methods=["GET"]),
    Route(STORE_PATH + "/memories/{memory_id}", update_memory, methods=["POST"]),
    Route(STORE_PATH + "/memories/{memory_id}", delete_memory, methods=["DELETE"]),
    Route(STORE_PATH + "/memory_versions", list_versions, methods=["GET"]),
    Route(STORE_PATH + "/memory_versions/{version_id}", retrieve_version, methods=["GET"]),
    Route(STORE_PATH + "/memory_versions/{version_id}/redact", redact_version, methods=["POST"]),
]
