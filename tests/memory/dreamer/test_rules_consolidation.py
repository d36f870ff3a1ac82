"""The ``rules`` reader's consolidation (pure, no database): conservative. It merges exact
duplicates, retypes a line only when cue words give it another type and none of its own, and
never deletes a line nor writes a principle or a log; ✍ lines it leaves alone."""

from __future__ import annotations

from datetime import date

import pytest

from resolvers.memory.dreamer.consolidating import (
    Audience,
    ConsolidationBatch,
    ConsolidationLine,
    ConsolidationPage,
)
from resolvers.memory.dreamer.rules import RulesReader, consolidation, retyped

DAY = date(2026, 10, 2)


def line(key: str, text: str, type_: str = "relation", *, human: bool = False, source: str = ""):
    return ConsolidationLine(key=key, type=type_, day=DAY, human=human, text=text, source=source)


def batch(*lines: ConsolidationLine, kind: str = "member") -> ConsolidationBatch:
    return ConsolidationBatch(
        audience=Audience(kind="person", id="u1", name="Claire"),
        pages=(ConsolidationPage(id="p1", kind=kind, name="Claire", lines=lines),),
        today=date(2026, 11, 10),
    )


def test_exact_duplicates_are_merged():
    found = consolidation(
        batch(
            line("a", "Acme pays late"),
            line("b", "Likes tea"),
            line("c", "acme  pays LATE."),
            line("d", "Acme pays late", human=True),
            line("e", "Acme pays very late"),
        )
    )
    [page] = found.pages
    [group] = page.groups
    assert (group.keys, group.reason) == (("a", "c", "d"), "duplicate")
    assert found.usage.input_tokens == found.usage.output_tokens == 0


def test_duplicates_are_grouped_by_source():
    found = consolidation(
        batch(
            line("a", "Acme pays late", source="s1"),
            line("b", "Acme pays late", source="s2"),
            line("c", "acme pays late.", source="s1"),
            line("d", "Acme pays late"),
            line("e", "Acme pays late", source="s2"),
            line("f", "Acme pays late", human=True),
        )
    )
    [page] = found.pages
    assert [group.keys for group in page.groups] == [("a", "c"), ("b", "e"), ("d", "f")]


@pytest.mark.parametrize(
    ("text", "type_", "expected"),
    [
        # A contexte with a cue of a more specific type.
        ("We decided to renew with Acme", "contexte", "décision"),
        ("Claire reports to Bob", "contexte", "relation"),
        ("Always answer in French", "contexte", "consigne"),
        ("Claire prefers calls", "contexte", "préférence"),
        # A line without a cue of its own type, with one of another.
        ("Claire prefers calls", "décision", "préférence"),
        # No cue: left as it is (never to contexte).
        ("Acme is in Lyon", "relation", None),
        ("The board met in June", "décision", None),
        # A cue of its own type: left, whatever other cue it holds.
        ("Claire decided she prefers calls", "préférence", None),
        ("Claire works with Bob on the decision", "relation", None),
        ("Never call before 10, we decided", "consigne", None),
    ],
)
def test_a_line_is_retyped_by_cue_words_only_when_its_own_type_has_none(text, type_, expected):
    assert retyped(text, type_, "member") == expected


def test_a_preference_on_a_record_page_is_a_relation():
    assert retyped("Acme wants every invoice in EUR", "contexte", "record") == "relation"
    assert retyped("Acme wants every invoice in EUR", "relation", "record") is None
    assert retyped("Acme wants every invoice in EUR", "contexte", "member") == "préférence"


async def test_it_never_deletes_nor_rewrites_and_leaves_human_lines():
    found = await RulesReader().consolidate(
        batch(
            line("a", "Called Bob yesterday about the invoice", "contexte"),
            line("b", "TODO send the contract", "contexte"),
            line("c", "We decided to go with Acme", "contexte", human=True),
            line("d", "We decided to go with Bolt", "contexte"),
        )
    )
    [page] = found.pages
    assert page.groups == ()
    assert [(p.key, p.action, p.type) for p in page.lines] == [("d", "retype", "décision")]


def test_a_page_with_nothing_to_change_is_left_out():
    assert consolidation(batch(line("a", "Acme is in Lyon"))).pages == ()
