"""Lessons learned while using a skill: their dated ``- YYYY-MM-DD: text`` lines and which of
them a polish still has to fold (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

LESSONS_HEADING = "## Lessons"
LESSONS_NAMES = ("lessons", "lessons learned")
LESSON_LINE = re.compile(r" {0,3}[-*+][ \t]+[0-9]{4}-[0-9]{2}-[0-9]{2}:(.*)")


@dataclass(frozen=True)
class Lesson:
    """What one use of a skill taught, on the day it was recorded."""

    day: date
    text: str


def one_line(text: str) -> str:
    return " ".join(text.split())


def render_lesson(lesson: Lesson) -> str:
    day = lesson.day
    return f"- {day.year:04d}-{day.month:02d}-{day.day:02d}: {one_line(lesson.text)}"


def render_lessons(lessons: list[Lesson]) -> str:
    """One ``- YYYY-MM-DD: text`` line per lesson, in the order given, text on one line."""
    return "\n".join(render_lesson(lesson) for lesson in lessons)


def lesson_key(text: str) -> str:
    return one_line(text).casefold()


def lessons_to_fold(lessons: list[Lesson], folded: set[str]) -> list[Lesson]:
    """The lessons polish adds: non-blank, not yet folded, first of each text, in day order."""
    seen = set(folded)
    chosen: list[Lesson] = []
    for lesson in sorted(lessons, key=lambda one: (one.day.year, one.day.month, one.day.day)):
        key = lesson_key(lesson.text)
        if key and key not in seen:
            seen.add(key)
            chosen.append(lesson)
    return chosen
