"""The souvenir grammar (DESIGN §5): one line of memory, parsed and rendered exactly.

    - <text>[ → <source>] — <author>, <YYYY-MM-DD> [<type>]
      [ (jusqu'au <date>)][ (revoir <date>)][ ✍]     (the bracketed parts are optional)

On a member's own profile the text may open with a reference to the record it is about,
``@[Acme](record:<id>) ``. Pure: no I/O. A page's content (souvenirs, headings, blank lines)
is read in ``content``, the caps in ``caps``.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date

from resolvers.memory.souvenir_types import SOUVENIR_TYPES as SOUVENIR_TYPES  # re-exported
from resolvers.memory.souvenir_types import accepted_types, canonical_type

HUMAN_MARK = "✍"
SOURCE_ARROW = " → "
AUTHOR_DASH = " — "
REVIEW_AFTER_MONTHS = 6
# The last day a contexte may have: six months later is the calendar's end (9999-12-31).
LAST_CONTEXTE_DAY = date(9999, 6, 30)

# Matched whole (fullmatch): a trailing newline is never silently dropped.
_TAIL = re.compile(
    r"(?P<head>.*) \[(?P<type>[^\[\]]*)\]"
    r"(?: \(jusqu'au (?P<until>[^()]*)\))?"
    r"(?: \(revoir (?P<review>[^()]*)\))?"
)
_ATTRIBUTION = re.compile(r"(?P<author>.+), (?P<day>\S+)")
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_REFERENCE = re.compile(
    r"^@\[(?P<label>[^\[\]()→—\x00-\x1f\x7f-\x9f]+)\]\((?P<target>record:[A-Za-z0-9_-]+)\) "
)


class LineError(ValueError):
    """A malformed souvenir line, with every reason found."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = reasons


@dataclass(frozen=True, slots=True)
class Reference:
    """The record a souvenir of a member's profile is about."""

    label: str
    target: str  # record:<global id>


@dataclass(frozen=True, slots=True)
class Souvenir:
    """One souvenir. ``author`` and ``day`` are None only on a line a person is writing, before
    the code fills them in."""

    text: str
    type: str
    author: str | None
    day: date | None
    source: str | None = None
    about: Reference | None = None
    until: date | None = None
    human: bool = False

    @property
    def review(self) -> date | None:
        """A contexte's review date: six months after its day, set by code (none past the
        calendar's end: such a souvenir is refused)."""
        if self.type != "contexte" or self.day is None or self.day > LAST_CONTEXTE_DAY:
            return None
        return review_day(self.day)


def add_months(day: date, months: int) -> date:
    """The same day ``months`` later, on the month's last day when it has no such day."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def review_day(day: date) -> date:
    """When a contexte souvenir of ``day`` is to be reviewed."""
    return add_months(day, REVIEW_AFTER_MONTHS)


# Rendering ---------------------------------------------------------------------------------


def render(souvenir: Souvenir) -> str:
    """The souvenir's line; raises LineError when a field cannot be written in the grammar."""
    if reasons := souvenir_problems(souvenir):
        raise LineError(reasons)
    text = souvenir.text
    if souvenir.about is not None:
        text = f"@[{souvenir.about.label}]({souvenir.about.target}) {text}"
    source = f"{SOURCE_ARROW}{souvenir.source}" if souvenir.source is not None else ""
    assert souvenir.day is not None  # souvenir_problems refuses a line without its day
    line = (
        f"- {text}{source}{AUTHOR_DASH}{souvenir.author}, {souvenir.day.isoformat()}"
        f" [{souvenir.type}]"
    )
    if souvenir.until is not None:
        line += f" (jusqu'au {souvenir.until.isoformat()})"
    if souvenir.review is not None:
        line += f" (revoir {souvenir.review.isoformat()})"
    return line + (f" {HUMAN_MARK}" if souvenir.human else "")


def souvenir_problems(souvenir: Souvenir) -> list[str]:
    """Why the fields of a souvenir cannot be written as a line (empty when they can)."""
    found = _text_problems(souvenir.text)
    if souvenir.type not in SOUVENIR_TYPES:
        found.append(f"unknown type [{souvenir.type}]: {accepted_types()}")
    if souvenir.author is None or souvenir.day is None:
        found.append("a souvenir names its author and its day")
    else:
        found.extend(_author_problems(souvenir.author))
    if souvenir.source is not None:
        found.extend(_source_problems(souvenir.source))
        if souvenir.human:
            found.append(f"a {HUMAN_MARK} line carries no source")
    if souvenir.about is not None:
        label = souvenir.about.label
        if not label.strip() or "→" in label or "—" in label or has_control(label):
            found.append("a record reference's label may not hold '→', '—' or a control character")
        elif not _REFERENCE.match(f"@[{label}]({souvenir.about.target}) "):
            found.append("a record reference is @[label](record:<id>)")
    if souvenir.until is not None and souvenir.day is not None and souvenir.until < souvenir.day:
        found.append("its end date (jusqu'au) is before its day")
    if souvenir.type == "contexte" and souvenir.day is not None:
        found.extend(_calendar_problems(souvenir.day))
    return found


def _calendar_problems(day: date) -> list[str]:
    """Why a contexte of ``day`` cannot be: its review date would fall past 9999-12-31."""
    if day <= LAST_CONTEXTE_DAY:
        return []
    return [
        f"a contexte of {day} would be reviewed after {date.max}: its day is at most"
        f" {LAST_CONTEXTE_DAY}"
    ]


# Unicode's control characters (Cc: C0, DEL, C1) and lone surrogates (Cs).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def has_control(text: str) -> bool:
    """Whether a text holds a control character or a lone surrogate."""
    return _CONTROL.search(text) is not None


def _text_problems(text: str) -> list[str]:
    found = []
    if not text.strip():
        found.append("what was said is empty")
    elif text != text.strip():
        found.append("what was said starts or ends with a space")
    if has_control(text):
        found.append("what was said holds a control character")
    if SOURCE_ARROW in text:
        found.append(f"what was said may not hold '{SOURCE_ARROW.strip()}' between spaces")
    if AUTHOR_DASH in text:
        found.append(f"what was said may not hold '{AUTHOR_DASH.strip()}' between spaces")
    if text.endswith(f" {HUMAN_MARK}") or text == HUMAN_MARK:
        found.append(f"what was said may not end with {HUMAN_MARK}")
    if _REFERENCE.match(text):
        found.append("what was said may not open with a record reference")
    return found


def _author_problems(author: str) -> list[str]:
    found = []
    if not author.strip() or author != author.strip():
        found.append("the author is empty or starts or ends with a space")
    if AUTHOR_DASH.strip() in author or has_control(author):
        found.append(f"the author may not hold '{AUTHOR_DASH.strip()}' or a control character")
    return found


def _source_problems(source: str) -> list[str]:
    if not source.strip() or source != source.strip():
        return ["the source is empty or starts or ends with a space"]
    if SOURCE_ARROW.strip() in source or AUTHOR_DASH.strip() in source or has_control(source):
        return ["the source may not hold '→', '—' or a control character"]
    return []


# Parsing -----------------------------------------------------------------------------------


def parse(line: str, *, by_person: bool = False) -> Souvenir:
    """The souvenir a line states; raises LineError with every reason it is malformed.

    ``by_person``: a line a person is writing may leave out its source, author, day and
    review date (the code fills them in); everything it does write must still be well formed.
    """
    if not line.startswith("- "):
        raise LineError(["a souvenir starts with '- '"])
    rest = line[2:]
    human = rest.endswith(f" {HUMAN_MARK}")
    if human:
        rest = rest[: -len(HUMAN_MARK) - 1]
    reasons: list[str] = []
    tail = _TAIL.fullmatch(rest)
    if tail is None:
        raise LineError([f"a souvenir ends with its type in brackets, {accepted_types()}"])
    # Typed without accents, in English or in any case, a type is stored canonically.
    type_ = canonical_type(tail["type"]) or tail["type"]
    if type_ not in SOUVENIR_TYPES:
        reasons.append(f"unknown type [{type_}]: {accepted_types()}")
    until = _date(tail["until"], "end date (jusqu'au)", reasons)
    head, author, day = _attribution(tail["head"], by_person, reasons)
    text, arrow, source_text = head.rpartition(SOURCE_ARROW)
    source: str | None = source_text if arrow else None
    if not arrow:
        text = head
    if source is not None:
        reasons.extend(_source_problems(source))
        if human and not by_person:
            reasons.append(f"a {HUMAN_MARK} line carries no source")
    about = None
    if reference := _REFERENCE.match(text):
        about = Reference(reference["label"], reference["target"])
        text = text[reference.end() :]
    reasons.extend(_text_problems(text))
    if until is not None and day is not None and until < day:
        reasons.append("its end date (jusqu'au) is before its day")
    reasons.extend(_review_problems(tail["review"], type_, day, by_person))
    if reasons:
        raise LineError(reasons)
    return Souvenir(text, type_, author, day, source, about, until, human)


def _attribution(
    head: str, by_person: bool, reasons: list[str]
) -> tuple[str, str | None, date | None]:
    """What precedes the attribution, its author and its day (a person may leave it out)."""
    body, dash, attribution = head.rpartition(AUTHOR_DASH)
    found = _ATTRIBUTION.fullmatch(attribution) if dash else None
    if found is None:
        if not by_person:
            reasons.append("what was said is followed by ' — author, YYYY-MM-DD'")
        return head, None, None
    day = _date(found["day"], "day", reasons)
    reasons.extend(_author_problems(found["author"]))
    return body, found["author"], day


def _review_problems(text: str | None, type_: str, day: date | None, by_person: bool) -> list[str]:
    """Why a written review date (revoir) is refused: only a contexte has one, its day's."""
    reasons: list[str] = []
    review = _date(text, "review date (revoir)", reasons)
    if type_ != "contexte" and text is not None:
        reasons.append("only a contexte carries a review date (revoir)")
    elif type_ == "contexte" and day is not None and (late := _calendar_problems(day)):
        reasons.extend(late)
    elif type_ == "contexte" and day is not None and not by_person:
        expected = review_day(day)
        if review != expected:
            reasons.append(f"a contexte of {day} is reviewed on {expected} (revoir {expected})")
    return reasons


def _date(text: str | None, what: str, reasons: list[str]) -> date | None:
    if text is None:
        return None
    if _DAY.fullmatch(text):
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    reasons.append(f"the {what} is not a date YYYY-MM-DD: {text!r}")
    return None


def by_person(souvenir: Souvenir, author: str, day: date) -> Souvenir:
    """A line as a person writes it: by them, of ``day``, with no source, marked ✍."""
    return replace(souvenir, author=author, day=day, source=None, human=True)
