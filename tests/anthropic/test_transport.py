"""The `anthropic` SDK's conventions on its routes (gateway/anthropic/transport.py), driven with
the SDK itself: its error body and ``request-id`` for every refusal (the edge's included), a 409
a retry cannot fix sent once, every problem of a body or a query string listed, cursor pages
followed to the last, ids of another type or workspace answered 404 like a missing one, and the
``anthropic-beta`` header read as a list."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import anthropic
import httpx2
import pytest
from pydantic import BaseModel, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.anthropic.transport import (
    ApiError,
    QueryModel,
    anthropic_route,
    betas,
    decode_page,
    encode_page,
    json_body,
    local_id,
    page_of,
    public_id,
    query_params,
)
from resolvers.common.errors import Problem, invalid
from tests.anthropic.conftest import BASE_URL, Sent

WORKSPACE = uuid.uuid4()
DREAM = uuid.uuid4()
ITEMS = [f"drm_{n}" for n in range(7)]


def dream(id: str, **more: Any) -> dict[str, Any]:
    return {
        "id": id,
        "type": "dream",
        "status": "pending",
        "created_at": "2026-12-02T00:00:00Z",
        **more,
    }


class DreamsQuery(QueryModel):
    limit: int = Field(3, ge=1, le=100)
    page: str | None = None
    statuses: list[str] = []
    created_at_gt: datetime | None = None
    include_archived: bool = False


async def list_dreams(request: Request) -> dict[str, Any]:
    query = query_params(request, DreamsQuery)
    start = int(decode_page(query.page, 1)[0]) if query.page else 0
    shown = ITEMS[start : start + query.limit]
    after = start + query.limit
    echo = {"statuses": query.statuses, "archived": query.include_archived}
    if query.created_at_gt is not None:
        echo["gt"] = query.created_at_gt.isoformat()
    return page_of(
        [dream(i, echo=echo) for i in shown],
        encode_page(str(after)) if after < len(ITEMS) else None,
    )


async def get_dream(request: Request) -> dict[str, Any]:
    given = request.path_params["id"]
    if given == "drm_conflict":
        raise ApiError(409, "memory_precondition_failed_error", "It changed.", retry=False)
    if given == "drm_retry":
        raise ApiError(409, "conflict_error", "Busy.")
    if given == "drm_invalid":
        raise invalid([Problem("too long", "instructions"), Problem("required", "model")])
    local = local_id("drm", "Dream", given, WORKSPACE)
    return dream(given, local=str(local), betas=sorted(betas(request)))


class CreateDream(BaseModel):
    model: str
    instructions: str = Field(max_length=10)


async def create_dream(request: Request) -> dict[str, Any]:
    body = await json_body(request, CreateDream)
    return dream("drm_new", instructions=body.instructions)


class RequestId:
    """What the edge does before these routes: a request id in the scope."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["request_id"] = "req_test"
        await self.app(scope, receive, send)


@pytest.fixture
async def client(sent: Sent) -> AsyncIterator[anthropic.AsyncAnthropic]:
    app = Starlette(
        routes=[
            Route("/v1/dreams", anthropic_route(list_dreams), methods=["GET"]),
            Route("/v1/dreams", anthropic_route(create_dream), methods=["POST"]),
            Route("/v1/dreams/{id}", anthropic_route(get_dream), methods=["GET"]),
        ]
    )

    async def count(request: httpx2.Request) -> None:
        sent.requests.append((request.method, request.url.path))

    http = anthropic.DefaultAsyncHttpxClient(
        transport=httpx2.ASGITransport(app=RequestId(app)), event_hooks={"request": [count]}
    )
    yield anthropic.AsyncAnthropic(base_url=BASE_URL, api_key="smk_x", http_client=http)
    await http.aclose()


async def test_a_conflict_no_retry_can_fix_is_sent_once_in_the_sdks_shape(client, sent):
    with pytest.raises(anthropic.ConflictError) as raised:
        await client.beta.dreams.retrieve("drm_conflict")
    error = raised.value
    assert error.status_code == 409
    assert error.body == {
        "type": "error",
        "error": {"type": "memory_precondition_failed_error", "message": "It changed."},
        "request_id": "req_test",
    }
    assert error.request_id == "req_test"
    assert sent.count("GET", "/v1/dreams/drm_conflict") == 1


async def test_a_conflict_a_retry_may_fix_is_retried_by_the_sdk(client, sent):
    with pytest.raises(anthropic.ConflictError):
        await client.with_options(max_retries=1).beta.dreams.retrieve("drm_retry")
    assert sent.count("GET", "/v1/dreams/drm_retry") == 2


async def test_every_problem_is_listed_in_the_message(client):
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.beta.dreams.retrieve("drm_invalid")
    error = raised.value.body["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"] == "The input is not valid. instructions: too long; model: required"
    assert error["details"]["error_code"] == "SCHEMA_VALIDATION_FAILED"
    assert [p["field"] for p in error["details"]["problems"]] == ["instructions", "model"]


async def test_a_json_body_is_read_by_its_model(client):
    made = await client.beta.dreams.create(
        inputs=[{"type": "memory_store", "memory_store_id": "memstore_1"}],
        model="m",
        instructions="short",
    )
    assert made.id == "drm_new"
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.beta.dreams.create(
            inputs=[], model={"id": "m"}, instructions="far too long for it"
        )
    fields = [p["field"] for p in raised.value.body["error"]["details"]["problems"]]
    assert fields == ["model", "instructions"]


async def test_pages_are_followed_to_the_last(client, sent):
    seen = [d.id async for d in client.beta.dreams.list(limit=3)]
    assert seen == ITEMS
    assert sent.count("GET", "/v1/dreams") == 3  # 3 + 3 + 1, the last says next_page null


async def test_query_lists_brackets_and_booleans_are_read(client):
    when = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    first = await client.beta.dreams.list(
        statuses=["pending", "running"], created_at_gt=when, include_archived=True
    )
    echo = first.data[0].model_extra["echo"]  # type: ignore[index]
    assert echo == {"statuses": ["pending", "running"], "archived": True, "gt": when.isoformat()}


async def test_a_bad_query_value_is_listed(client):
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.beta.dreams.list(limit=500)
    assert raised.value.body["error"]["details"]["problems"][0]["field"] == "limit"


@pytest.mark.parametrize(
    "given",
    [
        public_id("drm", "Dream", uuid.uuid4(), DREAM),  # another workspace's
        public_id("drm", "Skill", WORKSPACE, DREAM),  # another type's
        public_id("skill", "Dream", WORKSPACE, DREAM),  # another prefix
        "drm_notanid",
        "nothing",
    ],
)
async def test_an_id_the_caller_may_not_read_is_not_found_like_a_missing_one(client, given):
    with pytest.raises(anthropic.NotFoundError) as raised:
        await client.beta.dreams.retrieve(given)
    # The resolvers' own answer for a missing dream (tests/isolation/test_sweep.py).
    assert raised.value.body["error"] == {
        "type": "not_found_error",
        "message": "No dream with this id.",
        "details": {"error_code": "NOT_FOUND"},
    }


async def test_an_id_of_this_workspace_is_read_and_betas_are_a_list(client):
    given = public_id("drm", "Dream", WORKSPACE, DREAM)
    found = await client.beta.dreams.retrieve(given, betas=["extra-2026-01-01"])
    extra = found.model_extra or {}
    assert extra["local"] == str(DREAM)
    assert extra["betas"] == ["dreaming-2026-04-21", "extra-2026-01-01"]


def test_a_page_token_this_server_did_not_write_is_refused():
    assert decode_page(encode_page("a", "b"), 2) == ["a", "b"]
    for token in ("!!", encode_page("a"), "e30"):
        with pytest.raises(ApiError) as raised:
            decode_page(token, 2)
        assert raised.value.status == 400


# --- the edge, on the app itself ---------------------------------------------------------------


async def test_the_edge_refuses_a_bad_token_in_the_sdks_shape(
    sdk: Callable[[str], anthropic.AsyncAnthropic], sent: Sent
):
    with pytest.raises(anthropic.AuthenticationError) as raised:
        await sdk("smk_not_a_token").beta.skills.list()
    error = raised.value
    assert error.body["type"] == "error"
    assert error.body["error"]["type"] == "authentication_error"
    assert error.request_id and error.request_id == error.body["request_id"]
    assert sent.count("GET", "/v1/skills") == 1
