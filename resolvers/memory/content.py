"""A page's content (DESIGN §5): lines of souvenirs, headings and blank lines, and on the
workspace profile the free text of its ``## Mission mémoire`` section. Pure: no I/O."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from resolvers.common.errors import Problem
from resolvers.memory.grammar import LineError, Souvenir, has_control, parse

PAGE_CONTENT_MAX_CHARS = 4_000
MISSION_HEADING = "## Mission mémoire"

_HEADING = re.compile(r"^#{1,6} \S")
# The mission section ends at the first blank line or the next '##' (or '#') heading (DESIGN
# §6, seed 000): a deeper heading ('###' ...) inside it belongs to it.
_MISSION_END = re.compile(r"#{1,2}(?!#)")


def ends_mission(text: str) -> bool:
    """Whether a non-blank line ends the mission section: a heading of level 1 or 2."""
    return _MISSION_END.match(text) is not None


LineKind = Literal["souvenir", "heading", "blank", "mission"]


@dataclass(frozen=True, slots=True)
class PageLine:
    """One line of a page's content: a souvenir, a heading, a blank line, or a line of the
    workspace profile's mission."""

    kind: LineKind
    text: str
    souvenir: Souvenir | None = None


def parse_content(
    content: str, *, mission: bool = False, by_person: bool = False
) -> tuple[list[PageLine], list[Problem]]:
    """A page's lines, and a problem for every malformed one (numbered from 1).

    ``mission``: the page is the workspace profile, whose ``## Mission mémoire`` section
    holds free text.
    """
    problems: list[Problem] = []
    if len(content) > PAGE_CONTENT_MAX_CHARS:
        # Reported alone: a huge content is not read line by line.
        message = f"a page holds at most {PAGE_CONTENT_MAX_CHARS} characters, not {len(content)}"
        return [], [Problem(message, field="content")]
    lines: list[PageLine] = []
    in_mission = False
    for number, text in enumerate(content.split("\n"), start=1):
        if not text.strip():
            in_mission = False
            lines.append(PageLine("blank", text))
            if text:
                problems.append(Problem("a blank line holds no spaces", "content", number))
            continue
        if has_control(text):
            problems.append(Problem("the line holds a control character", "content", number))
            continue
        if in_mission and not ends_mission(text):
            lines.append(PageLine("mission", text))
            continue
        if text.startswith("#"):
            in_mission = mission and text.rstrip() == MISSION_HEADING
            lines.append(PageLine("heading", text))
            if not _HEADING.match(text) or text != text.rstrip():
                problems.append(
                    Problem("a heading is '#' to '######', a space, a title", "content", number)
                )
            continue
        if not text.startswith("-"):
            problems.append(
                Problem(
                    "a line is a souvenir ('- …'), a heading ('## …') or blank", "content", number
                )
            )
            continue
        try:
            lines.append(PageLine("souvenir", text, parse(text, by_person=by_person)))
        except LineError as error:
            problems.extend(Problem(why, "content", number) for why in error.reasons)
    return lines, problems


def render_content(lines: Iterable[str]) -> str:
    """A page's content from its lines, in order."""
    return "\n".join(lines)


def mission_section(content: str) -> str | None:
    """The text under the workspace profile's ``## Mission mémoire`` heading, to the first
    blank line or the next ``##`` (or ``#``) heading; None when there is no such section."""
    lines = content.split("\n")
    for index, line in enumerate(lines):
        if line.rstrip() == MISSION_HEADING:
            section = []
            for text in lines[index + 1 :]:
                if not text.strip() or ends_mission(text):
                    break
                section.append(text)
            return "\n".join(section)
    return None


def kept_keys(shown: Sequence[tuple[str, str]], submitted: Sequence[str]) -> list[str | None]:
    """For each submitted souvenir line, the key of the shown line it repeats word for word
    (each shown line matched once, first come first served), or None for a new or reworded
    line."""
    waiting: dict[str, list[str]] = {}
    for key, line in shown:
        waiting.setdefault(line, []).append(key)
    return [waiting[line].pop(0) if waiting.get(line) else None for line in submitted]
