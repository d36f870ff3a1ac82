"""The models a Dreamer reader gets and returns (resolvers/memory/dreamer/reader.py)."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from resolvers.memory.dreamer.reader import About, Candidate, PageLine, ReaderAnswer, Usage
from resolvers.memory.grammar import SOUVENIR_TYPES


def test_types_are_the_grammars_five():
    for kind in SOUVENIR_TYPES:
        assert Candidate(text="x", type=kind, about=About(kind="nothing")).type == kind
    with pytest.raises(ValidationError):
        Candidate(text="x", type="fact", about=About(kind="nothing"))
    schema = Candidate.model_json_schema()
    assert schema["properties"]["type"]["enum"] == list(SOUVENIR_TYPES)


def test_models_are_strict_and_frozen():
    with pytest.raises(ValidationError):
        Usage(input_tokens=1, output_tokens=2, cost=3)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Usage(input_tokens=-1)
    usage = Usage(input_tokens=1)
    with pytest.raises(ValidationError):
        usage.input_tokens = 2  # type: ignore[misc]


def test_an_about_names_an_id_exactly_when_it_should():
    assert About(kind="record", id="r1").id == "r1"
    with pytest.raises(ValidationError):
        About(kind="record")
    with pytest.raises(ValidationError):
        About(kind="speaker", id="u1")


def test_every_field_is_documented():
    from resolvers.memory.dreamer import reader

    for model in (
        reader.Batch,
        reader.Item,
        reader.LinkedRecord,
        reader.PageLine,
        reader.Candidate,
        reader.ReaderAnswer,
        reader.Usage,
        reader.Voice,
    ):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name}"


def test_an_answer_round_trips_as_json():
    answer = ReaderAnswer(learnings=(), usage=Usage(input_tokens=3, output_tokens=4))
    assert ReaderAnswer.model_validate_json(answer.model_dump_json()) == answer
    line = PageLine(
        page_id="p", key="k", day=date(2026, 1, 1), type="contexte", human=True, text="t"
    )
    assert line.human
