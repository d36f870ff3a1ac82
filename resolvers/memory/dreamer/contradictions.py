"""What a learning does to the souvenirs already on its page (DESIGN §6 "Contradictions"; seed
000 "Cleanup"): it confirms one (its day moves on), replaces one it makes false, is refused
against one, or is new. Pure.

A souvenir is replaced only by evidence of its day or later; a ✍ line is never replaced; for a
changing fact the newest event wins; for a fixed fact the version a person stated stays, a
person's correction replaces the other's, and in doubt nothing changes.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import date

from db.memory import LineRow
from resolvers.memory.dreamer.reader import Candidate
from resolvers.memory.dreamer.refusals import Refusal

# Left out when two texts are compared word for word.
_END_PUNCTUATION = " .!?;:,…"
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Refresh:
    """The learning confirms the souvenir at ``index``."""

    index: int


@dataclass(frozen=True, slots=True)
class Replace:
    """The learning replaces the souvenir at ``index``."""

    index: int


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a learning brings to its page: its line as it would be written, its day, and
    whether a member stated it."""

    line: LineRow
    day: date
    by_member: bool


def on_page(
    candidate: Candidate,
    evidence: Evidence,
    lines: Sequence[LineRow],
    person_keys: Collection[str],
) -> Refresh | Replace | Refusal | None:
    """What the learning does to the page's ``lines`` (None: it is a new souvenir).

    ``person_keys``: the souvenirs a person stated (besides ✍ lines, which a person wrote). A
    key it confirms or contradicts that is not on the page makes it a new souvenir; without
    a confirmed key, a line saying word for word the same (case, spaces and end punctuation
    aside) about the same record is confirmed."""
    confirmed = _index(lines, candidate.confirms)
    if confirmed is not None:
        return Refresh(confirmed)
    contradicted = _index(lines, candidate.contradicts)
    if contradicted is not None:
        return _contradiction(candidate, evidence, lines[contradicted], person_keys, contradicted)
    same = comparable(evidence.line.text)
    for index, line in enumerate(lines):
        if _souvenir(line) and line.about_id == evidence.line.about_id:
            if comparable(line.text) == same:
                return Refresh(index)
    return None


def _contradiction(
    candidate: Candidate,
    evidence: Evidence,
    line: LineRow,
    person_keys: Collection[str],
    index: int,
) -> Replace | Refusal:
    """Whether a learning replaces the souvenir it contradicts, or why not."""
    if line.human:
        return Refusal("person_version_kept", line.key)
    if line.day is not None and evidence.day < line.day:
        return Refusal("older_than_existing", line.key)
    if candidate.changes_over_time:
        return Replace(index)
    stated = line.key in person_keys
    if evidence.by_member:
        # A person corrects their own version, or a version no person stated; two people's
        # versions of a fixed fact leave it in doubt: nothing changes.
        if stated and line.author != evidence.line.author:
            return Refusal("contradiction_in_doubt", line.key)
        return Replace(index)
    if stated:
        return Refusal("person_version_kept", line.key)
    return Refusal("contradiction_in_doubt", line.key)


def refreshed(line: LineRow, day: date, until: date | None = None) -> LineRow:
    """A confirmed souvenir: its day moves on to ``day`` when later (a contexte's review date,
    computed from its day, follows); a ✍ line is never changed. A line whose end date the
    move would pass takes the confirming learning's ``until`` (none: it holds with no known
    end), since a souvenir never ends before its day."""
    if line.human or line.day is None or day <= line.day:
        return line
    kept = line.until if line.until is None or line.until >= day else until
    return replace(line, day=day, until=kept)


def comparable(text: str) -> str:
    """A text as two word-for-word equal texts share it: case, runs of spaces and end
    punctuation left out."""
    return _SPACES.sub(" ", text).strip().rstrip(_END_PUNCTUATION).casefold()


def _souvenir(line: LineRow) -> bool:
    return line.kind == "souvenir" and line.key is not None


def _index(lines: Sequence[LineRow], key: str | None) -> int | None:
    if key is None:
        return None
    return next((i for i, line in enumerate(lines) if _souvenir(line) and line.key == key), None)
