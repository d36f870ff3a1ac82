"""A learning as a souvenir line, where it stands on its page, and whether the page still
holds it (DESIGN §5: the grammar, the caps, the 4,000 characters as stored). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from uuid import UUID

from db.memory import LineRow
from resolvers.memory.caps import PageKind, cap_problems, counted
from resolvers.memory.content import MISSION_HEADING
from resolvers.memory.dreamer.context import ItemContext, PageKey, PassContext
from resolvers.memory.dreamer.reader import Candidate
from resolvers.memory.dreamer.routing import Target
from resolvers.memory.grammar import (
    AUTHOR_DASH,
    HUMAN_MARK,
    SOURCE_ARROW,
    LineError,
    has_control,
    parse,
)
from resolvers.memory.reading import line_text, plain_name
from resolvers.memory.writing import cap_change_problems, length_problems, new_key
from resolvers.turns.cards import MENTION

_SPACES = re.compile(r"\s+")
# What stands for a character the grammar reads as a separator.
_NEUTRAL = ((SOURCE_ARROW, " -> "), (AUTHOR_DASH, " - "), ("[", "("), ("]", ")"))


def one_line(text: str) -> str:
    """A text made one line: every run of spaces, tabs and line breaks one space, stripped."""
    return _SPACES.sub(" ", text).strip()


def souvenir_line(
    candidate: Candidate, target: Target, item: ItemContext, workspace_id: UUID
) -> LineRow | None:
    """The new souvenir a learning would write, of the item's day and source, by whoever
    stated it; None when its text is empty or holds a control character (nothing durable
    can be written from it). A text the grammar would read otherwise than written (an arrow
    or a dash between spaces, brackets, a mention opening it, a closing ✍) is neutralised."""
    text = one_line(candidate.text)
    if not text or has_control(text):
        return None
    assert candidate.stated_by is not None  # an inference is refused before
    line = LineRow(
        kind="souvenir",
        text=text,
        key=new_key(),
        type=candidate.type,
        author=plain_name(candidate.stated_by.name),
        day=item.day,
        until=candidate.until,
        source_kind=item.source_kind,
        source_id=item.source_id,
        about_id=target.reference,
        about_label=target.record_label if target.reference is not None else None,
    )
    if _round_trips(line, workspace_id):
        return line
    neutral = replace(line, text=neutralised(text))
    return neutral if neutral.text and _round_trips(neutral, workspace_id) else None


def neutralised(text: str) -> str:
    """A text with what breaks a souvenir line replaced: a mention shown by its label, an
    arrow or a dash between spaces as a plain one, brackets as parentheses, no closing ✍."""
    text = MENTION.sub(lambda match: match["label"], text)
    for breaking, neutral in _NEUTRAL:
        text = text.replace(breaking, neutral)
    return one_line(text).removesuffix(HUMAN_MARK).strip()


def _round_trips(line: LineRow, workspace_id: UUID) -> bool:
    """Whether the line, rendered as stored, parses back to the same text."""
    try:
        return parse(line_text(line, workspace_id, stored_form=True)).text == line.text
    except LineError:
        return False


def ends_after(until: date | None, day: date) -> bool:
    """Whether an end date leaves the learning durable: none, or not before its day."""
    return until is None or until >= day


def placed(lines: Sequence[LineRow], line: LineRow) -> list[LineRow]:
    """The page's lines with a new souvenir: after its last souvenir, else at its end (a
    blank line first when the page ends in the mission section, which would take it in).
    No other line moves or changes."""
    last = next(
        (i for i in range(len(lines) - 1, -1, -1) if lines[i].kind == "souvenir"),
        None,
    )
    if last is not None:
        return [*lines[: last + 1], line, *lines[last + 1 :]]
    if lines and (lines[-1].kind == "mission" or lines[-1].text.rstrip() == MISSION_HEADING):
        return [*lines, LineRow(kind="blank", text=""), line]
    return [*lines, line]


def fits(page: PageKey, lines: Sequence[LineRow], context: PassContext) -> bool:
    """Whether a page's new lines hold within its caps (✍ lines not counted; past a cap a
    count never grows) and its 4,000 characters as stored. A page not yet created has no
    count to keep."""
    row = context.pages.get(page)
    if row is not None:
        problems = cap_change_problems(row, lines)
    else:
        kind: PageKind = "record" if page[0] == "record" else "profile"
        souvenirs = ((line.human, line.about_id) for line in lines if line.kind == "souvenir")
        problems = cap_problems(kind, {}, counted(souvenirs))
    return not problems and not length_problems(lines, context.workspace_id, "content")
