"""The chat model reader's consolidation (resolvers/memory/dreamer/chat.py, prompt.py) against
a fake OpenAI-compatible server of our own on the loopback: its own prompt and strict schema, a
good answer, malformed answers, and the run on the real database charged what it spent."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from resolvers.memory.dreamer.chat import ChatReader
from resolvers.memory.dreamer.consolidating import (
    Audience,
    ConsolidationBatch,
    ConsolidationLine,
    ConsolidationPage,
)
from resolvers.memory.dreamer.prompt import (
    CONSOLIDATION_RULES,
    CONSOLIDATION_SCHEMA_NAME,
    consolidation_schema,
)
from resolvers.memory.dreamer.reader import ReaderError
from tests.memory.cleanup.consolidating import (
    MINUTE,
    T0,
    changes,
    consolidate_at,
    fetch,
    page_at,
    runs,
    souvenir,
    texts,
)
from tests.memory.dreamer.test_chat import PATH, completion, settings
from tests.memory.dreamer.test_prompt import _keys, _objects

MISSION = "Keep what our customers expect from us."


def batch() -> ConsolidationBatch:
    day = date(2026, 10, 2)
    lines = (
        ConsolidationLine(key="a", type="contexte", day=day, human=False, text="Called Bob"),
        ConsolidationLine(key="b", type="relation", day=day, human=True, text="Bob is the CFO"),
    )
    return ConsolidationBatch(
        audience=Audience(kind="person", id="u1", name="Claire"),
        pages=(ConsolidationPage(id="p1", kind="member", name="Claire", lines=lines),),
        mission=MISSION,
        today=date(2026, 11, 10),
    )


PROPOSED = {
    "page_id": "p1",
    "lines": [{"key": "a", "action": "delete", "type": None, "reason": "not_durable"}],
    "groups": [
        {"keys": ["a", "b"], "reason": "principle", "text": "Bob decides", "type": "relation"}
    ],
}


def answer(*pages: dict[str, Any]) -> dict[str, Any]:
    return completion(json.dumps({"pages": list(pages)}))


async def test_a_good_answer_is_read(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(answer(PROPOSED))
    found = await ChatReader(settings(httpserver)).consolidate(batch())
    [page] = found.pages
    assert page.page_id == "p1"
    assert [(p.key, p.action, p.reason) for p in page.lines] == [("a", "delete", "not_durable")]
    assert [(g.keys, g.reason, g.text) for g in page.groups] == [
        (("a", "b"), "principle", "Bob decides")
    ]
    assert (found.usage.input_tokens, found.usage.output_tokens) == (1200, 80)


async def test_the_request_carries_its_own_prompt_and_schema(httpserver: HTTPServer):
    httpserver.expect_request(PATH, method="POST").respond_with_json(answer())
    await ChatReader(settings(httpserver)).consolidate(batch())
    (request, _response), *_ = httpserver.log
    body = request.get_json()
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": CONSOLIDATION_SCHEMA_NAME,
            "schema": consolidation_schema(),
            "strict": True,
        },
    }
    system, user = body["messages"]
    assert system["content"].startswith("## Mission mémoire")
    assert system["content"].index(MISSION) < system["content"].index(CONSOLIDATION_RULES)
    sent = json.loads(user["content"])
    assert [line["key"] for line in sent["pages"][0]["lines"]] == ["a", "b"]
    assert sent["pages"][0]["lines"][1]["human"] is True
    assert "mission" not in sent


def test_the_consolidation_schema_is_strict():
    schema = consolidation_schema()
    objects = list(_objects(schema))
    assert len(objects) >= 4  # the answer, a page, a line, a group
    for node in objects:
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])
    assert not {"default", "title", "minLength"} & set(_keys(schema))


def _page(**changes: Any) -> dict[str, Any]:
    return PROPOSED | changes


MALFORMED = {
    "not JSON": completion("Delete a."),
    "no pages": completion(json.dumps({"answer": []})),
    "an unknown action": answer(_page(lines=[{"key": "a", "action": "drop"}])),
    "an unknown type": answer(
        _page(groups=[{"keys": ["a"], "reason": "log", "text": "x", "type": "fact"}])
    ),
    "an unknown reason": answer(_page(lines=[{"key": "a", "action": "delete", "reason": "old"}])),
    "cut at its limit": completion(
        "{", choices=[{"message": {"content": "{"}, "finish_reason": "length"}]
    ),
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
async def test_a_malformed_answer_is_a_reader_error_that_still_counts_its_tokens(
    httpserver: HTTPServer, body: dict[str, Any]
):
    httpserver.expect_request(PATH, method="POST").respond_with_json(body)
    with pytest.raises(ReaderError) as raised:
        await ChatReader(settings(httpserver)).consolidate(batch())
    assert raised.value.usage.input_tokens == 1200


def deleting_the_first_line(request: Request) -> Response:
    """The model: deletes the first line of the first page it is sent, as not durable."""
    sent = json.loads(request.get_json()["messages"][1]["content"])
    page = sent["pages"][0]
    proposed = {
        "page_id": page["id"],
        "lines": [{"key": page["lines"][0]["key"], "action": "delete", "reason": "not_durable"}],
        "groups": [],
    }
    return Response(json.dumps(answer(proposed)), content_type="application/json")


async def test_the_run_applies_the_models_answer_and_charges_its_tokens(
    httpserver: HTTPServer, pool, ws
):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(deleting_the_first_line)
    me = ws.members["member"]
    page = await page_at(
        pool, ws, T0, "member", me, [souvenir("Called Bob"), souvenir("Likes tea")]
    )
    reader = ChatReader(settings(httpserver))
    [report] = await consolidate_at(pool, ws, T0 + MINUTE, reader, per_mtok="1")
    assert await texts(pool, ws, page) == [("Likes tea", "relation", False)]
    [(change, reason, _key, text, _, _)] = await changes(pool, ws)
    assert (change, reason, text) == ("removed", "not_durable", "Called Bob")
    assert report.cost_usd == Decimal("0.0012")
    [run] = await runs(pool, ws)
    assert (run["input_tokens"], run["output_tokens"], run["cost_usd"]) == (
        1200,
        80,
        Decimal("0.0012"),
    )
    [spent] = await fetch(pool, ws, "SELECT payer_id, cost_usd FROM memory_spend")
    assert (spent["payer_id"], spent["cost_usd"]) == (me, Decimal("0.0012"))


async def test_a_malformed_answer_in_a_run_is_recorded_and_charged(
    httpserver: HTTPServer, pool, ws
):
    httpserver.expect_request(PATH, method="POST").respond_with_json(completion("nope"))
    me = ws.members["member"]
    page = await page_at(pool, ws, T0, "member", me, [souvenir("Called Bob")])
    [report] = await consolidate_at(
        pool, ws, T0 + MINUTE, ChatReader(settings(httpserver)), per_mtok="1"
    )
    assert report.note.startswith("the reader failed: the model's answer breaks its schema")
    assert await texts(pool, ws, page) == [("Called Bob", "relation", False)]
    [run] = await runs(pool, ws)
    assert (run["rules_version"], run["cost_usd"]) == (0, Decimal("0.0012"))
