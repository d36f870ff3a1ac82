"""The chat model reader (resolvers/memory/dreamer/chat.py) against a fake OpenAI-compatible
server of our own on the loopback (pytest-httpserver): never the internet."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from resolvers.memory.dreamer.chat import ChatReader
from resolvers.memory.dreamer.chat_settings import ChatSettings
from resolvers.memory.dreamer.prompt import ANSWER_SCHEMA_NAME, answer_schema
from resolvers.memory.dreamer.reader import (
    Batch,
    Item,
    LinkedRecord,
    PageOwner,
    ReaderError,
    Voice,
)
from resolvers.memory.dreamer.spend import cost_usd

PATH = "/v1/chat/completions"
CLAIRE = Voice(kind="person", id="u1", name="Claire")
# The server asks the client to wait a millisecond before a retry: the SDK's own backoff
# (half a second and up) would only slow the suite.
RETRY_SOON = {"retry-after-ms": "1"}
MISSION = "Keep what our customers expect from us."


def batch() -> Batch:
    at = datetime(2026, 10, 2, 9, 0)
    first = "Remember: @[Acme](record:r1) wants every message in French"
    return Batch(
        owner=PageOwner(kind="person", id="u1", name="Claire"),
        items=(
            Item(
                id="i1", kind="conversation", at=at, speaker=CLAIRE, text=first, record_ids=("r1",)
            ),
            Item(id="i2", kind="conversation", at=at, speaker=CLAIRE, text="Thanks!"),
        ),
        records=(LinkedRecord(id="r1", object="companies", label="Acme"),),
        mission=MISSION,
        today=date(2026, 10, 2),
    )


LEARNED = {
    "item_id": "i1",
    "candidates": [
        {
            "text": "Acme wants every message in French",
            "type": "préférence",
            "about": {"kind": "record", "id": "r1"},
            "stated_by": {"kind": "person", "id": "u1", "name": "Claire"},
            "log": False,
            "task": False,
            "one_off": False,
            "transient": False,
            "already_in_record": False,
            "sensitive": None,
            "until": None,
            "confirms": None,
            "contradicts": None,
            "changes_over_time": False,
        }
    ],
}


def completion(content: str | None, **overrides: Any) -> dict[str, Any]:
    """A chat completion body as an OpenAI-compatible server sends it."""
    message = {"role": "assistant", "content": content, "refusal": None}
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_790_000_000,
        "model": "small-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280},
    }
    return body | overrides


def answer(*entries: dict[str, Any]) -> dict[str, Any]:
    return completion(json.dumps({"learnings": list(entries)}))


def settings(server: HTTPServer, **overrides: Any) -> ChatSettings:
    values: dict[str, Any] = {
        "base_url": server.url_for("/v1"),
        "model": "small-model",
        "api_key": "sk-test",
        "timeout": 5.0,
        "max_retries": 0,
    }
    return ChatSettings(**(values | overrides))


async def test_a_good_answer_is_read(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(answer(LEARNED))
    found = await ChatReader(settings(httpserver)).read(batch())
    assert [entry.item_id for entry in found.learnings] == ["i1", "i2"]
    (candidate,) = found.learnings[0].candidates
    assert candidate.type == "préférence" and candidate.about.id == "r1"
    assert candidate.stated_by == CLAIRE
    assert found.learnings[1].candidates == ()  # left out: it teaches nothing
    assert (found.usage.input_tokens, found.usage.output_tokens) == (1200, 80)


async def test_the_request_carries_the_model_the_schema_and_the_batch(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(answer())
    await ChatReader(settings(httpserver)).read(batch())
    (request, _response), *_ = httpserver.log
    assert request.headers["Authorization"] == "Bearer sk-test"
    body = request.get_json()
    assert body["model"] == "small-model"
    assert "reasoning_effort" not in body  # only when configured
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": ANSWER_SCHEMA_NAME, "schema": answer_schema(), "strict": True},
    }
    system, user = body["messages"]
    assert system["role"] == "system" and system["content"].startswith("## Mission mémoire")
    assert system["content"].index(MISSION) < system["content"].index("Only stated facts count")
    sent = json.loads(user["content"])
    assert [item["id"] for item in sent["items"]] == ["i1", "i2"]
    assert "mission" not in sent


async def test_the_reasoning_effort_is_sent_when_configured(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(answer())
    await ChatReader(settings(httpserver, reasoning_effort="low")).read(batch())
    assert httpserver.log[0][0].get_json()["reasoning_effort"] == "low"


def _entry(**changes: Any) -> dict[str, Any]:
    candidate = LEARNED["candidates"][0] | changes
    return {"item_id": "i1", "candidates": [candidate]}


MALFORMED = {
    "not JSON": completion("Acme wants French."),
    "no learnings": completion(json.dumps({"answer": []})),
    "an unknown item": answer(LEARNED | {"item_id": "i9"}),
    "an item twice": answer(LEARNED, LEARNED),
    "an unknown type": answer(_entry(type="fact")),
    "an about without its id": answer(_entry(about={"kind": "record", "id": None})),
    "an empty text": answer(_entry(text="")),
    "a refusal": completion(None, choices=[{"message": {"refusal": "no"}}]),
    "cut at its limit": completion(
        "{", choices=[{"message": {"content": "{"}, "finish_reason": "length"}]
    ),
    "an empty message": completion(""),
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
async def test_a_malformed_answer_is_a_reader_error_that_still_counts_its_tokens(
    httpserver: HTTPServer, body: dict[str, Any]
):
    httpserver.expect_request(PATH, method="POST").respond_with_json(body)
    with pytest.raises(ReaderError) as raised:
        await ChatReader(settings(httpserver)).read(batch())
    assert raised.value.usage.input_tokens == 1200


@pytest.mark.parametrize(
    "response",
    [
        Response("<html>gateway</html>", status=200, content_type="text/html"),
        Response(json.dumps({"choices": []}), status=200, content_type="application/json"),
        Response(json.dumps({"error": "x"}), status=200, content_type="application/json"),
    ],
    ids=["not JSON", "no choice", "not a completion"],
)
async def test_a_body_that_is_no_completion_is_a_reader_error(
    httpserver: HTTPServer, response: Response
):
    httpserver.expect_request(PATH, method="POST").respond_with_response(response)
    with pytest.raises(ReaderError, match="no chat completion"):
        await ChatReader(settings(httpserver)).read(batch())


async def test_a_timeout_is_a_reader_error_and_comes_fast(httpserver: HTTPServer):
    released = threading.Event()

    def slow(request: Request) -> Response:
        released.wait(timeout=5)
        return Response(json.dumps(answer()), content_type="application/json")

    httpserver.expect_request(PATH, method="POST").respond_with_handler(slow)
    started = time.monotonic()
    with pytest.raises(ReaderError, match="did not answer within 0.1 s"):
        await ChatReader(settings(httpserver, timeout=0.1)).read(batch())
    assert time.monotonic() - started < 2
    # Let the server finish the abandoned request now, not in the next test's log.
    released.set()
    await asyncio.to_thread(_until_logged, httpserver)


def _until_logged(server: HTTPServer, seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not server.log and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_a_busy_server_is_asked_again(httpserver: HTTPServer, status: int):
    httpserver.expect_oneshot_request(PATH, method="POST").respond_with_json(
        {"error": {"message": "slow down"}}, status=status, headers=RETRY_SOON
    )
    httpserver.expect_oneshot_request(PATH, method="POST").respond_with_json(answer(LEARNED))
    found = await ChatReader(settings(httpserver, max_retries=2)).read(batch())
    assert len(httpserver.log) == 2
    assert found.learnings[0].candidates


async def test_retries_end_in_a_reader_error(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(
        {"error": {"message": "slow down"}}, status=429, headers=RETRY_SOON
    )
    with pytest.raises(ReaderError, match="HTTP 429"):
        await ChatReader(settings(httpserver, max_retries=2)).read(batch())
    assert len(httpserver.log) == 3


async def test_a_refused_key_is_not_retried(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(
        {"error": {"message": "bad key"}}, status=401
    )
    with pytest.raises(ReaderError, match="HTTP 401"):
        await ChatReader(settings(httpserver, max_retries=2)).read(batch())
    assert len(httpserver.log) == 1


async def test_a_server_that_is_not_there_is_a_reader_error():
    with socket.socket() as probe:  # a loopback port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chat = ChatSettings(
        base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key="k", max_retries=0
    )
    with pytest.raises(ReaderError, match="could not be asked"):
        await ChatReader(chat).read(batch())


def test_a_reader_needs_its_settings():
    with pytest.raises(ValueError, match="needs model, api_key"):
        ChatReader(ChatSettings(base_url="http://x"))


async def test_the_usage_costs_the_configured_prices(httpserver: HTTPServer):
    usage = {"prompt_tokens": 1_000_000, "completion_tokens": 2_000, "total_tokens": 1_002_000}
    httpserver.expect_request(PATH, method="POST").respond_with_json(
        completion(json.dumps({"learnings": []}), usage=usage)
    )
    chat = settings(
        httpserver, price_input_per_mtok=Decimal("3"), price_output_per_mtok=Decimal("15")
    )
    found = await ChatReader(chat).read(batch())
    assert cost_usd(found.usage, chat.prices) == Decimal("3.03")


async def test_an_answer_without_usage_costs_nothing(httpserver: HTTPServer):
    body = completion(json.dumps({"learnings": []}))
    del body["usage"]
    httpserver.expect_request(PATH, method="POST").respond_with_json(body)
    found = await ChatReader(settings(httpserver, price_input_per_mtok=Decimal("3"))).read(batch())
    assert found.usage.input_tokens == found.usage.output_tokens == 0
