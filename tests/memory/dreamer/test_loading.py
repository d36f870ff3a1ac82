"""Which reader a name gives (resolvers/memory/dreamer/loading.py), and every wrong name."""

from __future__ import annotations

import re
import sys
from datetime import date, datetime
from pathlib import Path

import pytest

from resolvers.memory.dreamer.chat import ChatReader
from resolvers.memory.dreamer.chat_settings import ChatSettings
from resolvers.memory.dreamer.loading import NO_CONSOLIDATION, consolidator_of, reader_named
from resolvers.memory.dreamer.reader import Batch, Item, PageOwner, Voice
from resolvers.memory.dreamer.rules import RulesReader
from tests.memory.dreamer.sample_reader import READER, QuietReader

SAMPLE = "tests.memory.dreamer.sample_reader"
CHAT = ChatSettings(base_url="http://127.0.0.1:9/v1", model="small-model", api_key="k")


def batch() -> Batch:
    speaker = Voice(kind="person", id="u1", name="Claire")
    item = Item(id="i1", kind="conversation", at=datetime(2026, 10, 2), speaker=speaker, text="Hi")
    owner = PageOwner(kind="person", id="u1", name="Claire")
    return Batch(owner=owner, items=(item,), today=date(2026, 10, 2))


def test_rules_is_the_rules_reader():
    assert isinstance(reader_named("rules", None), RulesReader)
    assert isinstance(reader_named(" rules ", CHAT), RulesReader)


@pytest.mark.parametrize("spec", ["openai", "chat"])
def test_openai_and_chat_are_the_chat_reader(spec: str):
    reader = reader_named(spec, CHAT)
    assert isinstance(reader, ChatReader) and reader.settings == CHAT


@pytest.mark.parametrize(
    ("chat", "missing"),
    [
        (None, "base_url, model, api_key"),
        (ChatSettings(base_url="http://127.0.0.1:9/v1", api_key="k"), "model"),
    ],
)
def test_the_chat_reader_needs_its_settings(chat: ChatSettings | None, missing: str):
    with pytest.raises(ValueError, match=f"'openai' needs its model's {missing}$"):
        reader_named("openai", chat)


@pytest.mark.parametrize(
    ("attribute", "tokens"),
    [("QuietReader", 10), ("quiet_reader", 20), ("READER", 30), ("Namespace.reader", 30)],
    ids=["a class", "a factory", "an object", "a dotted attribute"],
)
async def test_a_module_attribute_gives_a_reader(attribute: str, tokens: int):
    reader = reader_named(f"{SAMPLE}:{attribute}", None)
    assert isinstance(reader, QuietReader)
    answer = await reader.read(batch())
    assert answer.usage.input_tokens == tokens


def test_an_object_is_used_as_it_is():
    assert reader_named(f"{SAMPLE}:READER", None) is READER


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("", "unknown Dreamer reader ''"),
        ("gpt", "unknown Dreamer reader 'gpt': one of 'rules', 'openai'"),
        (":QuietReader", "is not 'package.module:attribute'"),
        (f"{SAMPLE}:", "is not 'package.module:attribute'"),
        ("tests.memory.dreamer.nowhere:Reader", "module 'tests.memory.dreamer.nowhere' cannot"),
        (f"{SAMPLE}:Missing", f"'{SAMPLE}' has no attribute 'Missing'"),
        (f"{SAMPLE}:Namespace.missing", "has no attribute 'Namespace.missing'"),
        (f"{SAMPLE}:reader_of", "cannot be called without arguments"),
        (f"{SAMPLE}:NotAReader", "gives 'NotAReader', which has no callable read"),
        (f"{SAMPLE}:NOT_CALLABLE_READ", "gives 'Broken', which has no callable read"),
    ],
)
def test_a_wrong_spec_is_a_value_error_naming_it(spec: str, problem: str):
    with pytest.raises(ValueError, match="Dreamer reader") as raised:
        reader_named(spec, CHAT)
    assert problem in str(raised.value)
    assert repr(spec) in str(raised.value)


async def test_the_readme_example_loads_and_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    readme = (Path(__file__).parents[3] / "README.md").read_text()
    section = readme[readme.index("#### Plugging in a model") :]
    example = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert example is not None
    (tmp_path / "myreaders.py").write_text(example[1])
    monkeypatch.syspath_prepend(tmp_path)
    monkeypatch.delitem(sys.modules, "myreaders", raising=False)
    reader = reader_named("myreaders:Silent", None)
    answer = await reader.read(batch())
    assert [entry.item_id for entry in answer.learnings] == ["i1"]
    assert answer.learnings[0].candidates == ()


def test_which_readers_consolidate():
    # The rules and chat readers do; a reader of one's own only when it has a consolidate
    # (consolidation is otherwise skipped, with NO_CONSOLIDATION as its note).
    assert consolidator_of(reader_named("rules")) is not None
    assert consolidator_of(reader_named("openai", CHAT)) is not None
    assert consolidator_of(reader_named(f"{SAMPLE}:QuietReader")) is None

    class Tidy(QuietReader):
        consolidate = None

    assert consolidator_of(Tidy()) is None
    assert "cannot consolidate" in NO_CONSOLIDATION.format(name="mine:Reader")
