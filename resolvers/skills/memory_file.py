"""The files a harness agent reads beside its skills (seed 003, "File structure"), pure.

``.memory.md`` sits beside a skill's ``SKILL.md`` and holds the lessons waiting to be folded
into its body, one dated line each, newest last::

    # Lessons: deploy-workflow

    - 2024-03-15: Always check disk space before deploying
    - 2024-03-20: Run database migrations before starting new pods

Read back (an import, ``skills push``), every line must be blank, a ``#`` heading or such a
lesson line (``-``, ``*`` or ``+``; a real date; the text as ``recordSkillUse`` takes it); a
file holds at most ``MAX_MEMORY_LESSONS`` lessons. A lesson the skill already keeps (same day,
same text ignoring case and spacing, folded or not) is not kept twice.

``AGENT_MEMORY.md`` sits at the root of the folder ``skills pull`` writes: one line per skill,
in the skills panel's order, with its trigger and where its SKILL.md is; a dormant skill's line
has no trigger, as the catalog has no description for it::

    # Available skills (Read SKILL.md on use)

    - **deploy-workflow**: When tests pass; Don't use when: hotfixing → `deploy-workflow/SKILL.md`
    - **old-report** → `old-report/SKILL.md`
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from resolvers.common.errors import Problem
from resolvers.skills.lessons import Lesson, lesson_key, render_lessons
from resolvers.skills.writing import lesson_problems

MEMORY_FILE = ".memory.md"
AGENT_MEMORY_FILE = "AGENT_MEMORY.md"
AGENT_MEMORY_HEADING = "# Available skills (Read SKILL.md on use)"
MAX_MEMORY_LESSONS = 1_000
_DATED_LINE = re.compile(r" {0,3}[-*+][ \t]+([0-9]{4})-([0-9]{2})-([0-9]{2}):(.*)")
_HEADING_LINE = re.compile(r" {0,3}#{1,6}(?:[ \t].*)?")


@dataclass(frozen=True, slots=True)
class CatalogLine:
    """One skill of AGENT_MEMORY.md."""

    name: str
    trigger: str | None
    dormant: bool


def render_memory_file(name: str, lessons: list[Lesson]) -> str:
    """A skill's ``.memory.md``: its lessons, oldest day first (ties in the order given)."""
    ordered = sorted(lessons, key=lambda lesson: lesson.day.toordinal())
    return f"# Lessons: {name}\n\n{render_lessons(ordered)}\n"


def _line_lesson(line: str, where: str) -> tuple[Lesson | None, list[Problem]]:
    """The lesson on one line of a ``.memory.md``, or why the line is refused."""
    if not line.strip() or _HEADING_LINE.fullmatch(line):
        return None, []
    dated = _DATED_LINE.fullmatch(line)
    if dated is None:
        message = f"{where} is not a lesson line (- YYYY-MM-DD: text), a heading or blank"
        return None, [Problem(message)]
    try:
        day = date(int(dated.group(1)), int(dated.group(2)), int(dated.group(3)))
    except ValueError:
        return None, [Problem(f"{where} has no real date")]
    text = dated.group(4).strip()
    found = [Problem(f"{where}: {p.message}") for p in lesson_problems(text)]
    return (None, found) if found else (Lesson(day, text), [])


def parse_memory_file(data: bytes, field: str) -> tuple[list[Lesson], list[Problem]]:
    """The lessons of a ``.memory.md`` in file order, each once, and every problem found (each
    reported under ``field``)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return [], [Problem(f"{MEMORY_FILE} is not valid UTF-8 (byte {error.start})", field)]
    lessons: list[Lesson] = []
    problems: list[Problem] = []
    seen: set[tuple[date, str]] = set()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        lesson, found = _line_lesson(line, f"line {number}")
        problems += [Problem(p.message, field) for p in found]
        if lesson is not None and (lesson.day, lesson_key(lesson.text)) not in seen:
            seen.add((lesson.day, lesson_key(lesson.text)))
            lessons.append(lesson)
    if len(lessons) > MAX_MEMORY_LESSONS:
        message = f"{MEMORY_FILE} holds {len(lessons)} lessons; at most {MAX_MEMORY_LESSONS}"
        problems.append(Problem(message, field))
    return ([], problems) if problems else (lessons, [])


def new_lessons(lessons: list[Lesson], kept: list[tuple[date, str]]) -> list[Lesson]:
    """The lessons a skill does not keep yet (same day and text, case and spacing ignored)."""
    known = {(day, lesson_key(text)) for day, text in kept}
    return [one for one in lessons if (one.day, lesson_key(one.text)) not in known]


def catalog_line(line: CatalogLine) -> str:
    """One skill's line: its name, its trigger unless dormant or missing, its SKILL.md."""
    where = f"`{line.name}/SKILL.md`"
    if line.dormant or not line.trigger:
        return f"- **{line.name}** → {where}"
    return f"- **{line.name}**: {line.trigger} → {where}"


def render_agent_memory(lines: list[CatalogLine]) -> str:
    """``AGENT_MEMORY.md``: the heading, then one line per skill in the order given."""
    return "\n".join([AGENT_MEMORY_HEADING, "", *map(catalog_line, lines)]) + "\n"
