"""`/v1/dreams` for `client.beta.dreams` (issue 14, item 5; ../shared/ANTHROPIC-WIRE.md §5): a
dream consolidates a memory store with the Dreamer's reader as a job of the worker
(resolvers/stores/dreams.py asks, resolvers/stores/dreaming.py runs). Each route reads its input
with the pydantic models below, calls one resolver and answers the SDK's Dream.

Ids: a dream is ``drm_…``, a store ``memstore_…``, a session one of our conversations,
``sesn_`` and its global id (a ``Conversation``); any id the caller may not read answers 404."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.requests import Request
from starlette.routing import Route

from db.dreams import DreamFilter, DreamRow
from gateway.anthropic.memory_models import STORE
from gateway.anthropic.transport import (
    ApiError,
    QueryModel,
    anthropic_route,
    decode_page,
    encode_page,
    json_body,
    local_id,
    local_or_absent,
    page_of,
    public_id,
    query_params,
)
from resolvers.common.principals import Principal
from resolvers.stores import dreams
from resolvers.stores.dreams import CREATE_NEW, DreamInput

PREFIX = "/v1/dreams"
DREAM = ("drm", "Dream")
SESSION = ("sesn", "Conversation")


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StoreInput(Body):
    type: Literal["memory_store"]
    memory_store_id: str


class SessionsInput(Body):
    type: Literal["sessions"]
    session_ids: list[str] = Field(min_length=1, max_length=dreams.MAX_SESSIONS)


class ModelConfig(Body):
    id: str = Field(min_length=1, max_length=256)
    speed: Literal["standard"] | None = None


class CreateNew(Body):
    type: Literal["create_new"]


class UpdateExisting(Body):
    type: Literal["update_existing"]
    memory_store_id: str


class CreateDream(Body):
    inputs: list[Annotated[StoreInput | SessionsInput, Field(discriminator="type")]] = Field(
        min_length=1, max_length=2
    )
    model: Annotated[str, Field(min_length=1, max_length=256)] | ModelConfig
    instructions: str | None = Field(None, min_length=1, max_length=dreams.MAX_INSTRUCTIONS_CHARS)
    output_behavior: Annotated[CreateNew | UpdateExisting, Field(discriminator="type")] = CreateNew(
        type="create_new"
    )

    @field_validator("inputs")
    @classmethod
    def one_of_each(cls, inputs: list[StoreInput | SessionsInput]) -> list[Any]:
        kinds = [given.type for given in inputs]
        if kinds.count("memory_store") != 1 or kinds.count("sessions") > 1:
            raise ValueError("one memory_store input, and at most one sessions input")
        return inputs


class DreamsQuery(QueryModel):
    created_at_gt: datetime | None = None
    created_at_lt: datetime | None = None
    include_archived: bool = False
    limit: int = Field(20, ge=1, le=100)
    page: str | None = None
    statuses: list[str] | None = None


class Usage(BaseModel):
    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


class ErrorOut(BaseModel):
    type: str
    message: str


class Dream(BaseModel):
    id: str
    type: Literal["dream"] = "dream"
    status: str
    created_at: datetime
    inputs: list[dict[str, Any]]
    model: ModelConfig
    output_behavior: dict[str, str]
    outputs: list[dict[str, str]]
    usage: Usage
    archived_at: datetime | None
    ended_at: datetime | None
    error: ErrorOut | None
    instructions: str | None
    session_id: str | None = None


def dream_out(workspace_id: UUID, row: DreamRow) -> Dream:
    """A dream as the SDK reads it (its output store once it has started)."""
    store_id = public_id(*STORE, workspace_id, row.input_store_id)
    inputs: list[dict[str, Any]] = [{"type": "memory_store", "memory_store_id": store_id}]
    if row.session_ids:
        sessions = [public_id(*SESSION, workspace_id, s) for s in row.session_ids]
        inputs.append({"type": "sessions", "session_ids": sorted(sessions)})
    behavior = {"type": row.behavior}
    if row.behavior != CREATE_NEW:
        behavior["memory_store_id"] = store_id
    outputs = []
    if row.output_store_id is not None and row.started_at is not None:
        output = public_id(*STORE, workspace_id, row.output_store_id)
        outputs.append({"type": "memory_store", "memory_store_id": output})
    error = None
    if row.error_type is not None:
        error = ErrorOut(type=row.error_type, message=row.error_message or "")
    return Dream(
        id=public_id(*DREAM, workspace_id, row.id),
        status=row.status,
        created_at=row.created_at,
        inputs=inputs,
        model=ModelConfig(id=row.model, speed="standard" if row.speed == "standard" else None),
        output_behavior=behavior,
        outputs=outputs,
        usage=Usage(input_tokens=row.input_tokens, output_tokens=row.output_tokens),
        archived_at=row.archived_at,
        ended_at=row.ended_at,
        error=error,
        instructions=row.instructions,
    )


def _who(request: Request) -> tuple[Principal, Any]:
    return request.scope["principal"], request.scope["db"]


def _dream_id(request: Request, principal: Principal) -> UUID:
    return local_id(*DREAM, request.path_params["dream_id"], principal.workspace_id, "dream")


def _input(body: CreateDream, workspace_id: UUID) -> DreamInput:
    """The body as the resolver takes it (every id read back: a foreign one is 404)."""
    store_id = sessions = None
    for given in body.inputs:
        if isinstance(given, StoreInput):
            store_id = local_id(*STORE, given.memory_store_id, workspace_id, "memory store")
        else:
            sessions = [local_or_absent(*SESSION, s, workspace_id) for s in given.session_ids]
    assert store_id is not None  # one_of_each
    model = body.model if isinstance(body.model, ModelConfig) else ModelConfig(id=body.model)
    behavior = body.output_behavior
    output = None
    if isinstance(behavior, UpdateExisting):
        output = local_or_absent(*STORE, behavior.memory_store_id, workspace_id)
    return DreamInput(
        store_id=store_id,
        model=model.id,
        session_ids=sessions or [],
        speed=model.speed,
        instructions=body.instructions,
        behavior=behavior.type,
        output_store_id=output,
    )


@anthropic_route
async def create_dream(request: Request) -> Dream:
    principal, conn = _who(request)
    body = await json_body(request, CreateDream)
    given = _input(body, principal.workspace_id)
    return dream_out(principal.workspace_id, await dreams.create_dream(conn, principal, given))


@anthropic_route
async def retrieve_dream(request: Request) -> Dream:
    principal, conn = _who(request)
    found = await dreams.dream(conn, principal, _dream_id(request, principal))
    return dream_out(principal.workspace_id, found)


@anthropic_route
async def cancel_dream(request: Request) -> Dream:
    principal, conn = _who(request)
    found = await dreams.cancel(conn, principal, _dream_id(request, principal))
    return dream_out(principal.workspace_id, found)


@anthropic_route
async def archive_dream(request: Request) -> Dream:
    principal, conn = _who(request)
    found = await dreams.archive(conn, principal, _dream_id(request, principal))
    return dream_out(principal.workspace_id, found)


def _before(token: str) -> tuple[datetime, UUID]:
    parts = decode_page(token, 2)
    try:
        return datetime.fromisoformat(parts[0]), UUID(hex=parts[1])
    except ValueError:
        raise ApiError(
            400, "invalid_request_error", "page is not a page token this list gave."
        ) from None


@anthropic_route
async def list_dreams(request: Request) -> dict[str, Any]:
    principal, conn = _who(request)
    query = query_params(request, DreamsQuery)
    kept = DreamFilter(
        created_gt=query.created_at_gt,
        created_lt=query.created_at_lt,
        statuses=query.statuses,
        include_archived=query.include_archived,
    )
    before = _before(query.page) if query.page else None
    rows = await dreams.listing(conn, principal, query.limit, before, kept)
    shown, more = rows[: query.limit], len(rows) > query.limit
    last = shown[-1] if shown else None
    token = encode_page(last.created_at.isoformat(), last.id.hex) if more and last else None
    return page_of([dream_out(principal.workspace_id, row) for row in shown], token)


DREAM_PATH = PREFIX + "/{dream_id}"
ROUTES = [
    Route(PREFIX, create_dream, methods=["POST"]),
    Route(PREFIX, list_dreams, methods=["GET"]),
    Route(DREAM_PATH, retrieve_dream, methods=["GET"]),
    Route(DREAM_PATH + "/cancel", cancel_dream, methods=["POST"]),
    Route(DREAM_PATH + "/archive", archive_dream, methods=["POST"]),
]
