"""The pieces of a learning meeting a page's souvenirs (resolvers/memory/dreamer/
contradictions.py): word-for-word comparison and a confirmed line's new day. Whole cases
through ``decide`` are in test_verdict_pages.py."""

from __future__ import annotations

from datetime import date

from resolvers.memory.dreamer.contradictions import comparable, refreshed
from tests.memory.dreamer.verdict_world import souvenir

MAY, JUNE, JULY = date(2026, 5, 1), date(2026, 6, 1), date(2026, 7, 1)


def test_case_spaces_and_end_punctuation_aside():
    assert comparable("Le  DAF décide seul !") == comparable("le daf décide seul")
    assert comparable("Fin…") == comparable("fin")
    assert comparable("é") != comparable("e")
    assert comparable("a, b") != comparable("a b")


def test_a_confirmation_moves_the_day_forward_only():
    line = souvenir("x", "k", day=JUNE)
    assert refreshed(line, JULY).day == JULY
    assert refreshed(line, JUNE) is line
    assert refreshed(line, MAY) is line
    human = souvenir("x", "k", day=MAY, human=True)
    assert refreshed(human, JULY) is human


def test_an_end_date_the_move_would_pass():
    line = souvenir("x", "k", day=MAY, until=JUNE)
    assert refreshed(line, JUNE).until == JUNE
    assert refreshed(line, JULY).until is None
    assert refreshed(line, JULY, date(2026, 8, 1)).until == date(2026, 8, 1)
