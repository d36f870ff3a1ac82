"""Polish: lessons folded into a skill's body, and the guards a polished draft must pass (pure).

**Polish** is deterministic (no language model): it folds lessons into a ``## Lessons`` section of
the body, one ``- YYYY-MM-DD: text`` line each (the section is added at the end of the body when
it has none; existing lines are kept as written, new ones are appended in day order, ties in the
order given). A lesson's text has its whitespace collapsed to single spaces. A lesson is skipped
when its text is blank, or when a lesson line of the Lessons section, or an earlier lesson of the
same call, already has that text (case and spacing ignored, whatever its day): polishing the same
lessons twice gives the same body as polishing them once. Nothing else in the body changes, so a
deterministic polish never moves the steps or the reflex; a body that ends inside an unclosed
code fence has the fence closed before the Lessons section is appended, so that the section is
found again next time.

**Polish guards** (``polish_problems``) judge any draft, deterministic or written elsewhere:
fewer than 3 lessons (counted as polish folds them: non-blank, distinct by text); the steps grew
by more than 50% (from 0 steps any step is too much growth); an absolute path in the new body
that the old body did not have; a reflex section over 500 characters. An absolute path is a
Windows drive path (``C:\\...``, ``D:/...``), a UNC path (``\\\\server\\share``) or a POSIX path of
at least two slashes (``/usr/bin``, ``/home/ana/x``, ``/tmp/``) that does not continue a word, a
URL, a variable, ``~`` or ``.``: ``https://x/y``, ``~/x``, ``./x``, ``$HOME/x``, ``and/or`` and
slash commands like ``/compact`` are not paths. The rule is conservative: an HTTP route written
as ``GET /skills/import`` counts as a path.
"""

from __future__ import annotations

import re

from resolvers.common.errors import Problem
from resolvers.skills.form import (
    REFLEX_MAX_CHARS,
    body_blocks,
    count_steps,
    open_fence,
    role_text,
    sections,
)
from resolvers.skills.lessons import (
    LESSON_LINE,
    LESSONS_HEADING,
    LESSONS_NAMES,
    Lesson,
    lesson_key,
    lessons_to_fold,
    render_lesson,
)

POLISH_MIN_LESSONS = 3
POLISH_MAX_STEP_GROWTH = 0.5  # steps may grow by at most 50%
_ABSOLUTE_PATH = re.compile(
    # A Windows drive path, not the end of a word or a URL scheme (https://).
    r"(?<!\w)[A-Za-z]:[\\/][^\s`'\"<>|*?]*"
    # A UNC path.
    r"|(?<![\w\\])\\\\[\w.$-]+\\[^\s`'\"<>|*?]*"
    # A POSIX path of two slashes or more, not after a word, a URL, a variable, ~ or a dot.
    r"|(?<![\w.~:/\\<>}\])$%@-])/(?:[^\W\d]|\.)[\w.+@-]*(?:/[\w.+@~-]*)+"
)


def polish(body: str, lessons: list[Lesson]) -> str:
    """``body`` with the lessons not yet in its ``## Lessons`` section appended to it (see the
    module's docstring); the body unchanged when there are none."""
    lines = body.split("\n")
    fence = open_fence(lines)
    blocks = body_blocks(body)
    lesson_blocks = [block for block in blocks if block.heading in LESSONS_NAMES]
    folded = {
        lesson_key(line_match.group(1))
        for block in lesson_blocks
        for line in block.lines[1:]
        if (line_match := LESSON_LINE.fullmatch(line.rstrip("\r")))
    }
    new = [render_lesson(lesson) for lesson in lessons_to_fold(lessons, folded)]
    if not new:
        return body

    if fence is not None:
        # Close a fence left open at the end, so that what is appended is not code.
        last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
        lines.insert(last + 1, fence)
        blocks = body_blocks("\n".join(lines))
        lesson_blocks = [block for block in blocks if block.heading in LESSONS_NAMES]

    if lesson_blocks:
        block = lesson_blocks[0]
        last = max(
            (i for i, line in enumerate(block.lines) if line.strip()),
            default=0,
        )
        if last == 0:
            block.lines[1:1] = ["", *new]
        else:
            block.lines[last + 1 : last + 1] = new
        return "\n".join(line for block in blocks for line in block.lines)

    while lines and not lines[-1].strip():
        lines.pop()
    if lines:
        lines.append("")
    return "\n".join([*lines, LESSONS_HEADING, "", *new]) + "\n"


def absolute_paths(text: str) -> list[str]:
    """The absolute paths written in ``text``, in order of first appearance, each once."""
    return list(dict.fromkeys(match.group(0) for match in _ABSOLUTE_PATH.finditer(text)))


def polish_problems(old_body: str, new_body: str, lessons: list[Lesson]) -> list[Problem]:
    """Why a polished body may not replace ``old_body``: every guard that fails, at once."""
    problems: list[Problem] = []

    count = len(lessons_to_fold(lessons, set()))
    if count < POLISH_MIN_LESSONS:
        problems.append(
            Problem(
                f"polish needs at least {POLISH_MIN_LESSONS} lessons (non-blank, each text once);"
                f" it has {count}",
                field="lessons",
            )
        )

    old_steps, new_steps = count_steps(old_body), count_steps(new_body)
    allowed = int(old_steps * (1 + POLISH_MAX_STEP_GROWTH))
    if new_steps > old_steps * (1 + POLISH_MAX_STEP_GROWTH):
        growth = "" if old_steps == 0 else f" (+{(new_steps - old_steps) * 100 / old_steps:.0f}%)"
        problems.append(
            Problem(
                f"steps grew from {old_steps} to {new_steps}{growth}; polish may grow them by at "
                f"most {POLISH_MAX_STEP_GROWTH:.0%}, to {allowed}",
                field="body",
            )
        )

    before = set(absolute_paths(old_body))
    for path in absolute_paths(new_body):
        if path not in before:
            problems.append(
                Problem(
                    f"the polished body introduces the absolute path {path}; "
                    "use ~/ or a relative path",
                    field="body",
                )
            )

    reflex = role_text(sections(new_body), "reflex")
    if reflex is not None and len(reflex) > REFLEX_MAX_CHARS:
        problems.append(
            Problem(
                f"reflex has {len(reflex)} characters; it may have at most {REFLEX_MAX_CHARS}",
                field="body",
            )
        )

    return problems
