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

Dormancy, lessons and polish live in ``dormancy``, ``lessons`` and ``polish``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

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

_HEADING = re.compile(r" {0,3}##[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"([ \t]*)(?:[0-9]{1,9}[.)]|[-*+])[ \t]+\S")
_THEMATIC_BREAK = re.compile(r"[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*")
_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_DONT_USE = re.compile(
    r"\b(?:don['’‘ʼ]t|do\s+not)\s+use(?:\s+(?:it|this(?:\s+skill)?))?\s+(?:when|if)\b",
    re.IGNORECASE,
)


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


def open_fence(lines: list[str]) -> str | None:
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


def body_blocks(body: str) -> list[_Block]:
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
    for block in body_blocks(body):
        if block.heading is None:
            continue
        text = "\n".join(line.rstrip("\r") for line in block.lines[1:]).strip()
        if block.heading in found:
            found[block.heading] = f"{found[block.heading]}\n\n{text}".strip()
        else:
            found[block.heading] = text
    return found


def role_text(found: dict[str, str], role: str) -> str | None:
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
    text = role_text(sections(body), "steps")
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
    return [
        _name_check(name),
        _purpose_check(role_text(found, "purpose")),
        _trigger_check(role_text(found, "trigger")),
        _steps_check(role_text(found, "steps")),
        _check_check(role_text(found, "check")),
        _reflex_check(role_text(found, "reflex")),
    ]


def _name_check(name: str) -> FormCheck:
    if _KEBAB.fullmatch(name):
        return FormCheck("name", True, f"{name} is kebab-case")
    why = (
        f"{name!r} is not kebab-case: lowercase letters and digits in words joined by "
        f"single hyphens, like {_kebab(name)}"
    )
    return FormCheck("name", False, why)


def _purpose_check(purpose: str | None) -> FormCheck:
    if purpose is None:
        return FormCheck("purpose", False, _missing("purpose"))
    size = _plural(len(purpose), "character")
    if PURPOSE_MIN <= len(purpose) <= PURPOSE_MAX:
        return FormCheck(
            "purpose", True, f"purpose has {size}, within {PURPOSE_MIN} to {PURPOSE_MAX}"
        )
    return FormCheck(
        "purpose", False, f"purpose has {size}; it needs {PURPOSE_MIN} to {PURPOSE_MAX}"
    )


def _trigger_check(trigger: str | None) -> FormCheck:
    if trigger is None:
        return FormCheck("trigger", False, _missing("trigger") + ' with a "don\'t use when" line')
    size = _plural(len(trigger), "character")
    wrong = []
    if len(trigger) < TRIGGER_MIN:
        wrong.append(f"trigger has {size}; it needs at least {TRIGGER_MIN}")
    if not _DONT_USE.search(trigger):
        wrong.append('trigger has no "don\'t use when" line')
    if wrong:
        return FormCheck("trigger", False, "; ".join(wrong))
    return FormCheck("trigger", True, f'trigger has {size} and a "don\'t use when" line')


def _steps_check(steps: str | None) -> FormCheck:
    if steps is None:
        why = _missing("steps") + f" with at least {STEPS_MIN} numbered or bulleted items"
        return FormCheck("steps", False, why)
    count = _count_items(steps)
    if count >= STEPS_MIN:
        return FormCheck("steps", True, f"steps has {_plural(count, 'item')}")
    why = (
        f"steps has {_plural(count, 'item')}; it needs at least {STEPS_MIN} numbered "
        "or bulleted items"
    )
    return FormCheck("steps", False, why)


def _check_check(check: str | None) -> FormCheck:
    if check is None:
        return FormCheck("check", False, _missing("check") + " saying how to know the skill worked")
    size = _plural(len(check), "character")
    if len(check) >= CHECK_MIN:
        return FormCheck("check", True, f"check has {size}")
    return FormCheck("check", False, f"check has {size}; it needs at least {CHECK_MIN}")


def _reflex_check(reflex: str | None) -> FormCheck:
    if reflex is None:
        return FormCheck("reflex", True, "there is no reflex section (it is optional)")
    size = _plural(len(reflex), "character")
    if len(reflex) <= REFLEX_MAX_CHARS:
        return FormCheck("reflex", True, f"reflex has {size}, within {REFLEX_MAX_CHARS}")
    why = f"reflex has {size}; it may have at most {REFLEX_MAX_CHARS}"
    return FormCheck("reflex", False, why)
