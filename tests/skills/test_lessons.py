"""Lessons a use leaves, rendered for the body (pure)."""

from __future__ import annotations

from datetime import date, datetime

from resolvers.skills.lessons import Lesson, render_lessons


def test_render_lessons():
    rendered = render_lessons(
        [
            Lesson(date(2024, 3, 20), "Run database migrations before starting new pods"),
            Lesson(date(2024, 3, 15), "Always check disk space\n  before deploying "),
        ]
    )
    assert rendered == (
        "- 2024-03-20: Run database migrations before starting new pods\n"
        "- 2024-03-15: Always check disk space before deploying"
    )
    assert render_lessons([]) == ""
    assert render_lessons([Lesson(date(7, 1, 2), "old")]) == "- 0007-01-02: old"


def test_render_lessons_takes_the_day_of_a_datetime():
    assert render_lessons([Lesson(datetime(2024, 3, 15, 9, 30), "x")]) == "- 2024-03-15: x"
