"""What a chat model is told (resolvers/memory/dreamer/prompt.py): the mission before the
rules, the batch as JSON, and an answer schema strict structured outputs accept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

from resolvers.memory.dreamer.prompt import (
    RULES,
    answer_schema,
    batch_message,
    system_prompt,
)
from resolvers.memory.dreamer.reader import Batch, Candidate, Item, PageOwner, Voice
from resolvers.memory.grammar import SOUVENIR_TYPES


def batch(mission: str = "") -> Batch:
    owner = PageOwner(kind="workspace", id=None, name="Demo")
    return Batch(owner=owner, items=(), mission=mission, today=date(2026, 10, 2))


def test_the_mission_comes_before_every_rule():
    prompt = system_prompt(batch("Keep what customers expect."))
    assert prompt.startswith("## Mission mémoire")
    assert prompt.index("Keep what customers expect.") < prompt.index(RULES)


def test_without_a_mission_the_prompt_is_the_rules():
    assert system_prompt(batch("  \n")) == RULES


def test_the_rules_name_every_type_and_what_is_refused():
    for kind in SOUVENIR_TYPES:
        assert kind in RULES
    for flag in ("log", "task", "one_off", "transient", "already_in_record", "sensitive"):
        assert f"({flag})" in RULES or f"set {flag}" in RULES


def test_the_batch_is_sent_without_its_mission():
    sent = json.loads(batch_message(batch("Keep it.")))
    assert "mission" not in sent and sent["today"] == "2026-10-02"


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)


def _keys(node: Any, inside: str = "") -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if inside not in ("properties", "$defs"):
                yield key
            yield from _keys(value, key)
    elif isinstance(node, list):
        for value in node:
            yield from _keys(value)


def test_the_answer_schema_is_strict():
    schema = answer_schema()
    objects = list(_objects(schema))
    assert len(objects) >= 5  # the answer, an item's learnings, a candidate, about, voice
    for node in objects:
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])
    assert not {"default", "title", "minLength"} & set(_keys(schema))
    for node in _refs(schema):
        assert list(node) == ["$ref"]


def _refs(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if "$ref" in node:
            yield node
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_the_schema_keeps_the_types_and_every_field():
    candidate = answer_schema()["$defs"]["Candidate"]
    assert candidate["properties"]["type"]["enum"] == list(SOUVENIR_TYPES)
    assert set(candidate["properties"]) == set(Candidate.model_fields)


def test_an_items_context_is_sent_beside_its_text_and_never_learned_from():
    item = Item(
        id="i1",
        kind="run",
        at=datetime(2026, 10, 2, tzinfo=UTC),
        speaker=Voice(kind="person", id="m1", name="Claire"),
        text="Scout: Done.\nClaire: Not Acme.",
        context="Chase the unpaid invoices.",
    )
    sent = json.loads(batch_message(batch().model_copy(update={"items": (item,)})))
    [shown] = sent["items"]
    assert shown["context"] == "Chase the unpaid invoices."
    assert "Chase" not in shown["text"]
    assert "context" in RULES and "never propose a learning from it" in RULES
