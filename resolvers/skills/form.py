"""A skill body's form, from evo: sections, the L1 form check, dormancy, lessons and polish (pure).

A skill's body is markdown whose ``## Heading`` lines cut it into sections. evo names five of
them Purpose, Trigger, Steps, Check and Reflex; the product's template (DESIGN §3) starts a skill
with Overview, When to use, Instructions, Examples and What to avoid. The form check reads either
vocabulary, headings compared case-insensitively (spacing, a trailing colon and surrounding
``*``/``_`` emphasis ignored), the first name in each row winning when a body has both:

    purpose  ← "Purpose", "Overview"
    trigger  ← "Trigger", "When to use"
    steps    ← "Steps", "Instructions"
    check    ← "Check", "Verification"
    reflex   ← "Reflex" (optional)

"Examples" is not a check: an example shows what a use looks like, not how to tell that a run
worked, and the L1 check asks for a falsifiable verification. A skill made from the template
therefore fails the check item until it gains a ``## Check`` (or ``## Verification``) section,
and the failure says so. "What to avoid" feeds no check.

Only level-2 ATX headings (``## X``) cut sections; ``###`` lines belong to the section they are
in, headings inside fenced code blocks are not headings, and text before the first ``##`` (the
``# Title``) belongs to no section. Setext headings (underlined) are not read.

**Steps** are the list items of the steps section (``1.``, ``1)``, ``-``, ``*``, ``+``) at its
outermost indentation: nested sub-items and items inside fenced code are not steps.

**Trigger** needs a "don't use when" line: "don't use when", "do not use when", "don't use it
when", "don't use this (skill) if" ..., any case, with a straight or curly apostrophe.

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
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from resolvers.common.errors import Problem

DORMANT_AFTER_DAYS = 21
POLISH_MIN_LESSONS = 3
POLISH_MAX_STEP_GROWTH = 0.5  # steps may grow by at most 50%
REFLEX_MAX_CHARS = 500
PURPOSE_MIN, PURPOSE_MAX = 10, 500
TRIGGER_MIN = 10
CHECK_MIN = 10
STEPS_MIN = 2

# The headings each evo section is read from, in order of preference.
ROLE_HEADINGS: dict[str, tuple[str, ...]] = {
    "purpose": ("purpose", "overview"),
    "trigger": ("trigger", "when to use"),
    "steps": ("steps", "instructions"),
    "check": ("check", "verification"),
    "reflex": ("reflex",),
}
LESSONS_HEADING = "## Lessons"
_LESSONS_NAMES = ("lessons", "lessons learned")

_HEADING = re.compile(r" {0,3}##[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"([ \t]*)(?:[0-9]{1,9}[.)]|[-*+])[ \t]+\S")
_THEMATIC_BREAK = re.compile(r"[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*")
_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_DONT_USE = re.compile(
    r"\b(?:don['’‘ʼ]t|do\s+not)\s+use(?:\s+(?:it|this(?:\s+skill)?))?\s+(?:when|if)\b",
    re.IGNORECASE,
)
_LESSON_LINE = re.compile(r" {0,3}[-*+][ \t]+[0-9]{4}-[0-9]{2}-[0-9]{2}:(.*)")
_ABSOLUTE_PATH = re.compile(
    # A Windows drive path, not the end of a word or a URL scheme (https://).
    r"(?<!\w)[A-Za-z]:[\\/][^\s`'\"<>|*?]*"
    # A UNC path.
    r"|(?<![\w\\])\\\\[\w.$-]+\\[^\s`'\"<>|*?]*"
    # A POSIX path of two slashes or more, not after a word, a URL, a variable, ~ or a dot.
    r"|(?<![\w.~:/\\<>}\])$%@-])/(?:[^\W\d]|\.)[\w.+@-]*(?:/[\w.+@~-]*)+"
)


@dataclass(frozen=True)
class Lesson:
    """What one use of a skill taught, on the day it was recorded."""

    day: date
    text: str


@dataclass(frozen=True)
class FormCheck:
    """One L1 check: ``name`` is one of name, purpose, trigger, steps, check, reflex."""

    name: str
    passed: bool
    why: str


# Parsing ----------------------------------------------------------------------------------


@dataclass
class _Block:
    """A stretch of the body: the preamble (heading None) or one ``##`` section."""

    heading: str | None  # normalized
    lines: list[str]  # raw lines, the heading line first for a section


def _normalize(heading: str) -> str:
    text = " ".join(heading.split()).strip("*_ ").rstrip(":").strip("*_ ")
    return text.casefold()


def _fenced(lines: list[str]) -> Iterator[tuple[str, bool]]:
    """Each line with whether it is part of a fenced code block (its fence lines included)."""
    fence: str | None = None
    for line in lines:
        bare = line.rstrip("\r")
        opening = _FENCE.match(bare)
        if fence is None:
            if opening:
                fence = opening.group(1)
                yield line, True
            else:
                yield line, False
        else:
            yield line, True
            closing = _FENCE.fullmatch(bare.rstrip())
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = None


def _open_fence(lines: list[str]) -> str | None:
    """The fence left open at the end of ``lines``, if any."""
    fence: str | None = None
    for line in lines:
        bare = line.rstrip("\r")
        if fence is None:
            opening = _FENCE.match(bare)
            if opening:
                fence = opening.group(1)
        else:
            closing = _FENCE.fullmatch(bare.rstrip())
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = None
    return fence


def _blocks(body: str) -> list[_Block]:
    blocks = [_Block(None, [])]
    for line, in_fence in _fenced(body.split("\n")):
        heading = None if in_fence else _HEADING.fullmatch(line.rstrip("\r"))
        if heading and heading.group(1).strip():
            blocks.append(_Block(_normalize(heading.group(1)), [line]))
        else:
            blocks[-1].lines.append(line)
    return blocks


def sections(body: str) -> dict[str, str]:
    """The ``## Heading`` sections of a markdown body, by normalized heading (case-folded,
    spacing collapsed, trailing colon dropped), each with its text stripped; a heading that comes
    twice has its texts joined by a blank line."""
    found: dict[str, str] = {}
    for block in _blocks(body):
        if block.heading is None:
            continue
        text = "\n".join(line.rstrip("\r") for line in block.lines[1:]).strip()
        if block.heading in found:
            found[block.heading] = f"{found[block.heading]}\n\n{text}".strip()
        else:
            found[block.heading] = text
    return found


def _role(found: dict[str, str], role: str) -> str | None:
    for heading in ROLE_HEADINGS[role]:
        if heading in found:
            return found[heading]
    return None


def _count_items(text: str) -> int:
    indents: list[int] = []
    for line, in_fence in _fenced(text.split("\n")):
        if in_fence or _THEMATIC_BREAK.fullmatch(line.rstrip()):
            continue
        item = _ITEM.match(line)
        if item:
            indents.append(len(item.group(1).expandtabs(4)))
    return indents.count(min(indents)) if indents else 0


def count_steps(body: str) -> int:
    """The numbered or bulleted items of the steps section (Steps or Instructions) at its
    outermost indentation; 0 when there is no such section."""
    text = _role(sections(body), "steps")
    return 0 if text is None else _count_items(text)


# The L1 form check --------------------------------------------------------------------------


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _kebab(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name)
    words = re.findall(r"[a-z0-9]+", spaced.lower())
    return "-".join(words) or "deploy-workflow"


def _missing(role: str) -> str:
    first, *others = (f"## {heading.capitalize()}" for heading in ROLE_HEADINGS[role])
    alternatives = f" (or {' or '.join(others)})" if others else ""
    return f"there is no {role} section: add {first}{alternatives}"


def form_check(name: str, body: str) -> list[FormCheck]:
    """The L1 checks, in the order name, purpose, trigger, steps, check, reflex."""
    found = sections(body)
    checks: list[FormCheck] = []

    if _KEBAB.fullmatch(name):
        checks.append(FormCheck("name", True, f"{name} is kebab-case"))
    else:
        checks.append(
            FormCheck(
                "name",
                False,
                f"{name!r} is not kebab-case: lowercase letters and digits in words joined by "
                f"single hyphens, like {_kebab(name)}",
            )
        )

    purpose = _role(found, "purpose")
    if purpose is None:
        checks.append(FormCheck("purpose", False, _missing("purpose")))
    else:
        size = _plural(len(purpose), "character")
        if PURPOSE_MIN <= len(purpose) <= PURPOSE_MAX:
            why = f"purpose has {size}, within {PURPOSE_MIN} to {PURPOSE_MAX}"
            checks.append(FormCheck("purpose", True, why))
        else:
            why = f"purpose has {size}; it needs {PURPOSE_MIN} to {PURPOSE_MAX}"
            checks.append(FormCheck("purpose", False, why))

    trigger = _role(found, "trigger")
    if trigger is None:
        checks.append(
            FormCheck("trigger", False, _missing("trigger") + ' with a "don\'t use when" line')
        )
    else:
        size = _plural(len(trigger), "character")
        wrong = []
        if len(trigger) < TRIGGER_MIN:
            wrong.append(f"trigger has {size}; it needs at least {TRIGGER_MIN}")
        if not _DONT_USE.search(trigger):
            wrong.append('trigger has no "don\'t use when" line')
        if wrong:
            checks.append(FormCheck("trigger", False, "; ".join(wrong)))
        else:
            why = f'trigger has {size} and a "don\'t use when" line'
            checks.append(FormCheck("trigger", True, why))

    steps = _role(found, "steps")
    if steps is None:
        why = _missing("steps") + f" with at least {STEPS_MIN} numbered or bulleted items"
        checks.append(FormCheck("steps", False, why))
    else:
        count = _count_items(steps)
        if count >= STEPS_MIN:
            checks.append(FormCheck("steps", True, f"steps has {_plural(count, 'item')}"))
        else:
            why = (
                f"steps has {_plural(count, 'item')}; it needs at least {STEPS_MIN} numbered "
                "or bulleted items"
            )
            checks.append(FormCheck("steps", False, why))

    check = _role(found, "check")
    if check is None:
        why = _missing("check") + " saying how to know the skill worked"
        checks.append(FormCheck("check", False, why))
    else:
        size = _plural(len(check), "character")
        if len(check) >= CHECK_MIN:
            checks.append(FormCheck("check", True, f"check has {size}"))
        else:
            why = f"check has {size}; it needs at least {CHECK_MIN}"
            checks.append(FormCheck("check", False, why))

    reflex = _role(found, "reflex")
    if reflex is None:
        checks.append(FormCheck("reflex", True, "there is no reflex section (it is optional)"))
    else:
        size = _plural(len(reflex), "character")
        if len(reflex) <= REFLEX_MAX_CHARS:
            why = f"reflex has {size}, within {REFLEX_MAX_CHARS}"
            checks.append(FormCheck("reflex", True, why))
        else:
            why = f"reflex has {size}; it may have at most {REFLEX_MAX_CHARS}"
            checks.append(FormCheck("reflex", False, why))

    return checks


# Use: dormancy and lessons -------------------------------------------------------------------


def is_dormant(use_count: int, updated_at: datetime, now: datetime) -> bool:
    """Whether a skill is dormant: never used and not updated for 21 days or more.
    ``updated_at`` and ``now`` must both be aware or both naive."""
    return use_count <= 0 and now - updated_at >= timedelta(days=DORMANT_AFTER_DAYS)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _render(lesson: Lesson) -> str:
    day = lesson.day
    return f"- {day.year:04d}-{day.month:02d}-{day.day:02d}: {_one_line(lesson.text)}"


def render_lessons(lessons: list[Lesson]) -> str:
    """One ``- YYYY-MM-DD: text`` line per lesson, in the order given, text on one line."""
    return "\n".join(_render(lesson) for lesson in lessons)


def _key(text: str) -> str:
    return _one_line(text).casefold()


def _to_fold(lessons: list[Lesson], folded: set[str]) -> list[Lesson]:
    """The lessons polish adds: non-blank, not yet folded, first of each text, in day order."""
    seen = set(folded)
    chosen: list[Lesson] = []
    for lesson in sorted(lessons, key=lambda one: (one.day.year, one.day.month, one.day.day)):
        key = _key(lesson.text)
        if key and key not in seen:
            seen.add(key)
            chosen.append(lesson)
    return chosen


# Polish -----------------------------------------------------------------------------------


def polish(body: str, lessons: list[Lesson]) -> str:
    """``body`` with the lessons not yet in its ``## Lessons`` section appended to it (see the
    module's docstring); the body unchanged when there are none."""
    lines = body.split("\n")
    fence = _open_fence(lines)
    blocks = _blocks(body)
    lesson_blocks = [block for block in blocks if block.heading in _LESSONS_NAMES]
    folded = {
        _key(line_match.group(1))
        for block in lesson_blocks
        for line in block.lines[1:]
        if (line_match := _LESSON_LINE.fullmatch(line.rstrip("\r")))
    }
    new = [_render(lesson) for lesson in _to_fold(lessons, folded)]
    if not new:
        return body

    if fence is not None:
        # Close a fence left open at the end, so that what is appended is not code.
        last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
        lines.insert(last + 1, fence)
        blocks = _blocks("\n".join(lines))
        lesson_blocks = [block for block in blocks if block.heading in _LESSONS_NAMES]

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

    count = len(_to_fold(lessons, set()))
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

    reflex = _role(sections(new_body), "reflex")
    if reflex is not None and len(reflex) > REFLEX_MAX_CHARS:
        problems.append(
            Problem(
                f"reflex has {len(reflex)} characters; it may have at most {REFLEX_MAX_CHARS}",
                field="body",
            )
        )

    return problems
