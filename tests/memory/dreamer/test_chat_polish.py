"""The chat model reader's polish (resolvers/memory/dreamer/chat.py, polishing.py) against a
fake OpenAI-compatible server of our own on the loopback: its prompt and strict schema, a good
draft, malformed answers, and the automatic polish on the real database with it, charged what
it spent."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from resolvers.memory.dreamer.chat import ChatReader
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.dreamer.polishing import (
    POLISH_RULES,
    POLISH_SCHEMA_NAME,
    PolishBatch,
    PolishLesson,
    polish_schema,
)
from resolvers.memory.dreamer.reader import ReaderError
from resolvers.memory.dreamer.spend import Prices
from resolvers.skills import autopolish
from tests.memory.dreamer.test_chat import PATH, completion, settings
from tests.skills.bodies import body
from tests.skills.polishing import add_lessons, looks, make_skill, versions

LESSON = "Check the migrations first."


def batch() -> PolishBatch:
    return PolishBatch(
        name="deploy-workflow",
        description="Deploy safely.",
        body=body(),
        lessons=(PolishLesson(day=date(2026, 11, 2), text=LESSON),),
        trigger="lessons",
        today=date(2026, 11, 10),
    )


def drafted(text: str) -> dict[str, Any]:
    return completion(json.dumps({"body": text}))


REWRITTEN = body(steps="1. Check the migrations\n2. Run the tests\n3. Deploy")


async def test_a_good_draft_is_read_with_its_usage(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(drafted(REWRITTEN))
    found = await ChatReader(settings(httpserver)).polish(batch())
    assert found.body == REWRITTEN
    assert (found.usage.input_tokens, found.usage.output_tokens) == (1200, 80)


async def test_the_request_carries_the_prompt_the_schema_and_the_skill(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(drafted(REWRITTEN))
    await ChatReader(settings(httpserver)).polish(batch())
    (request, _response), *_ = httpserver.log
    sent = request.get_json()
    assert sent["model"] == "small-model"
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": POLISH_SCHEMA_NAME, "schema": polish_schema(), "strict": True},
    }
    system, user = sent["messages"]
    assert system == {"role": "system", "content": POLISH_RULES}
    skill = json.loads(user["content"])
    assert skill["body"] == body() and skill["trigger"] == "lessons"
    assert skill["lessons"] == [{"day": "2026-11-02", "text": LESSON}]


MALFORMED = {
    "not JSON": completion("Here is the body."),
    "no body": completion(json.dumps({"draft": "x"})),
    "another field": completion(json.dumps({"body": "x", "note": "y"})),
    "a refusal": completion(None, choices=[{"message": {"refusal": "no"}}]),
    "an empty message": completion(""),
}


@pytest.mark.parametrize("answer", MALFORMED.values(), ids=MALFORMED.keys())
async def test_a_malformed_draft_is_a_reader_error_that_still_counts_its_tokens(
    httpserver: HTTPServer, answer: dict[str, Any]
):
    httpserver.expect_request(PATH, method="POST").respond_with_json(answer)
    with pytest.raises(ReaderError) as raised:
        await ChatReader(settings(httpserver)).polish(batch())
    assert raised.value.usage.input_tokens == 1200


def _pass_settings(server: HTTPServer) -> PassSettings:
    # 1,200 input tokens at 10 USD a million, 80 output tokens at 50 USD a million.
    prices = Prices(Decimal(10), Decimal(50))
    return PassSettings(reader=ChatReader(settings(server)), reader_name="openai", prices=prices)


async def test_automatic_polish_with_the_chat_reader(pool, ws, httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(drafted(REWRITTEN))
    await make_skill(pool, ws)
    await add_lessons(pool, ws, LESSON, "Warn the on-call person.", "Tag the release.")
    now = autopolish.clock.now()
    [report] = await autopolish.run_due(pool, now, _pass_settings(httpserver), {ws.id})
    assert report.recorded is not None
    [look] = await looks(pool, ws)
    cost = Decimal("0.016")  # 1200 * 10 / 1e6 + 80 * 50 / 1e6
    assert (look["outcome"], look["new_version"], look["cost_usd"]) == ("polished", 2, cost)
    assert (await versions(pool, ws))[-1]["content"] == REWRITTEN


async def test_a_failing_chat_reader_is_recorded_and_charged(pool, ws, httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(completion("not JSON"))
    await make_skill(pool, ws)
    await add_lessons(pool, ws, LESSON, "Warn the on-call person.", "Tag the release.")
    now = autopolish.clock.now()
    await autopolish.run_due(pool, now, _pass_settings(httpserver), {ws.id})
    [look] = await looks(pool, ws)
    assert look["outcome"] == "failed" and look["reason"].startswith("the reader failed")
    assert look["cost_usd"] == Decimal("0.016")
    assert len(await versions(pool, ws)) == 1
