"""The souvenir grammar and a page's content read from any text (pure, no database): a parse or
a refusal listing its reasons (LineError, Problems), never another exception. Text is drawn
whole and as lines assembled from the grammar's own pieces (dates at the calendar's edges, the
types and their aliases, arrows, dashes, references), so that a bounded run reaches every
branch."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.memory.content import parse_content
from resolvers.memory.grammar import (
    HUMAN_MARK,
    SOUVENIR_TYPES,
    LineError,
    Souvenir,
    parse,
    render,
    souvenir_problems,
)
from tests.fuzzing import HOSTILE_TEXT, bounded, mostly

# The calendar's edges weigh as much as any other day; a contexte, whose review date is
# computed from its day, weighs as much as the other types together.
EDGE_DAYS = st.sampled_from(["0001-01-01", "9999-12-31", "9999-07-01", "9999-06-30", "2026-02-30"])
DAYS = mostly(st.one_of(EDGE_DAYS, st.dates().map(date.isoformat)), HOSTILE_TEXT)
ANY_DAY = st.one_of(
    EDGE_DAYS.filter(lambda d: d != "2026-02-30").map(date.fromisoformat), st.dates()
)
TYPES = mostly(
    st.one_of(
        st.sampled_from(["contexte", "Context", "CONTEXTE"]),
        st.sampled_from(["relation", "DÉCISION", "consigne", "préférence"]),
    ),
    HOSTILE_TEXT,
)
NAMES = mostly(st.sampled_from(["Claire", "Jean-Marc Dupont", "agent:Scout"]), HOSTILE_TEXT)
WORDS = mostly(
    st.sampled_from(["Acme pays at 60 days", "@[Acme](record:UmVj) moves", "a → b — c"]),
    HOSTILE_TEXT,
)
END = mostly(st.sampled_from(["", f" {HUMAN_MARK}"]), st.sampled_from([" ", "\n", "\x00"]))


@st.composite
def near_lines(draw: st.DrawFn) -> str:
    """A line shaped like a souvenir, each of its parts maybe wrong."""
    source = draw(st.none() | NAMES)
    line = f"- {draw(WORDS)}" + (f" → {source}" if source is not None else "")
    line += f" — {draw(NAMES)}, {draw(DAYS)} [{draw(TYPES)}]"
    if draw(st.booleans()):
        line += f" (jusqu'au {draw(DAYS)})"
    if draw(st.booleans()):
        line += f" (revoir {draw(DAYS)})"
    return line + draw(END)


# Mostly near-souvenirs: a uniform text rarely gets past the first check.
LINES = st.one_of(near_lines(), near_lines(), near_lines(), HOSTILE_TEXT, st.text())


def parsed_or_refused(line: str, by_person: bool) -> Souvenir | None:
    """The souvenir, or None when refused with its reasons; any other exception fails."""
    try:
        return parse(line, by_person=by_person)
    except LineError as refused:
        assert refused.reasons and all(isinstance(r, str) and r for r in refused.reasons)
        return None


@bounded(300)
@given(LINES, st.booleans())
def test_any_line_is_a_souvenir_or_a_refusal_with_its_reasons(line, by_person):
    souvenir = parsed_or_refused(line, by_person)
    if souvenir is not None and not by_person:
        # What parses is what the grammar can write: rendered, it reads back the same.
        assert souvenir_problems(souvenir) == []
        assert parse(render(souvenir)) == souvenir


@bounded(100)
@given(st.lists(st.one_of(LINES, st.sampled_from(["## Mission mémoire", "# x", ""])), max_size=8))
def test_any_content_is_lines_or_problems_numbered_from_one(lines):
    content = "\n".join(lines)
    for mission in (False, True):
        read, problems = parse_content(content, mission=mission)
        count = content.count("\n") + 1
        assert all(p.field == "content" and p.message for p in problems)
        assert all(p.line is None or 1 <= p.line <= count for p in problems)
        assert len(read) <= count


ANY_SOUVENIR = st.builds(
    Souvenir,
    text=mostly(st.sampled_from(["Acme pays at 60 days", "Le DAF décide seul"]), HOSTILE_TEXT),
    type=mostly(st.one_of(st.just("contexte"), st.sampled_from(SOUVENIR_TYPES)), HOSTILE_TEXT),
    author=mostly(NAMES, st.none()),
    day=mostly(ANY_DAY, st.none()),
    source=mostly(st.none(), NAMES),
    until=mostly(st.none(), ANY_DAY),
    human=st.booleans(),
)


@bounded(300)
@given(ANY_SOUVENIR)
def test_any_souvenir_renders_or_is_refused_with_its_reasons(souvenir):
    try:
        line = render(souvenir)
    except LineError as refused:
        assert refused.reasons == souvenir_problems(souvenir) != []
        return
    assert parse(line) == souvenir


@pytest.mark.parametrize("day", ["9999-07-01", "9999-12-31"])
def test_a_contexte_whose_review_falls_past_the_calendar_is_refused(day):
    with pytest.raises(LineError) as refused:
        parse(f"- Acme moves — Claire, {day} [contexte] (revoir {day})")
    assert refused.value.reasons == [
        f"a contexte of {day} would be reviewed after 9999-12-31: its day is at most 9999-06-30"
    ]
    souvenir = Souvenir("Acme moves", "contexte", "Claire", date.fromisoformat(day))
    assert souvenir_problems(souvenir) == refused.value.reasons
    with pytest.raises(LineError):
        render(souvenir)
    assert souvenir.review is None  # no date to give, and no exception either


def test_the_last_day_a_contexte_can_be_reviewed_is_accepted():
    line = "- Acme moves — Claire, 9999-06-30 [contexte] (revoir 9999-12-30)"
    assert render(parse(line)) == line
