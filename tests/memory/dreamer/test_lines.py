"""A learning as a souvenir line (resolvers/memory/dreamer/lines.py): one line, neutralised
for the grammar, placed after the page's last souvenir."""

from __future__ import annotations

from db.memory import LineRow
from resolvers.memory.dreamer.lines import neutralised, one_line, placed
from tests.memory.dreamer.verdict_world import souvenir

NEW = souvenir("new", "n")


def test_one_line_collapses_every_run_of_spaces():
    assert one_line("  a\tb\n\nc \r\n d  ") == "a b c d"
    assert one_line(" \n ") == ""


def test_neutralised_replaces_what_the_grammar_reads_as_separators():
    assert neutralised("a → b — c [d]") == "a -> b - c (d)"
    assert neutralised("@[Acme](record:abc) signe") == "Acme signe"
    assert neutralised("fait ✍") == "fait"
    # Without spaces around them, an arrow and a dash are words like others.
    assert neutralised("a→b—c") == "a→b—c"


def test_a_new_souvenir_goes_after_the_last_one():
    heading = LineRow(kind="heading", text="## Notes")
    blank = LineRow(kind="blank", text="")
    lines = [heading, souvenir("a", "a"), blank, souvenir("b", "b"), blank, heading]
    assert placed(lines, NEW) == [*lines[:4], NEW, *lines[4:]]


def test_with_no_souvenir_it_ends_the_page():
    heading = LineRow(kind="heading", text="# Acme")
    assert placed([], NEW) == [NEW]
    assert placed([heading], NEW) == [heading, NEW]


def test_it_never_joins_the_mission_section():
    mission = [
        LineRow(kind="heading", text="## Mission mémoire"),
        LineRow(kind="mission", text="Retenir les prix."),
    ]
    assert placed(mission, NEW) == [*mission, LineRow(kind="blank", text=""), NEW]
    assert placed(mission[:1], NEW) == [*mission[:1], LineRow(kind="blank", text=""), NEW]
