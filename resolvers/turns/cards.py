"""Record cards (DESIGN §7), pure: which records a message mentions, a card and its text, and
the budget all cards of a turn share (the last signal dropped first: whole souvenirs, then
whole cards; never a cut line)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

CARD_BUDGET_CHARS = 4_000
CARD_VALUE_MAX_CHARS = 120
CARD_VALUES = 8
CARD_RELATED = 5
PROFILE_RECORDS = 3
MAX_MENTIONS = 20
CARD_LABEL_MAX_CHARS = 200  # a card's heading; also the longest label a mention may carry
MENTION_ID_MAX_CHARS = 200
CARD_SEPARATOR = "\n\n"
ELLIPSIS = "…"

# A mention in a message: @[Acme](record:<global id>).
MENTION = re.compile(
    rf"@\[(?P<label>[^\[\]\n]{{1,{CARD_LABEL_MAX_CHARS}}})\]"
    rf"\(record:(?P<id>[A-Za-z0-9_-]{{1,{MENTION_ID_MAX_CHARS}}})\)"
)


def mentioned_ids(message: str) -> list[str]:
    """The record global ids a message mentions, in order, each once (a turn takes the first
    MAX_MENTIONS that name a record of its workspace)."""
    found: list[str] = []
    for match in MENTION.finditer(message):
        if match["id"] not in found:
            found.append(match["id"])
    return found


def cut(text: str, limit: int = CARD_VALUE_MAX_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters (the last one an ellipsis when cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + ELLIPSIS


def value_text(value: Any) -> str:
    """A stored value as a card shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True, slots=True)
class CardValue:
    attribute: str
    title: str
    value: str


@dataclass(frozen=True, slots=True)
class CardRelated:
    record_id: str
    label: str
    object: str
    attribute: str
    # "to": this record points to it; "from": it points to this record.
    direction: str


@dataclass(frozen=True, slots=True)
class CardChange:
    actor_name: str
    at: str
    fields: list[str]


@dataclass(frozen=True, slots=True)
class CardSouvenir:
    key: str
    line: str


@dataclass(frozen=True, slots=True)
class Card:
    """What an agent is told about one record, as one person may read it."""

    record_id: str
    label: str
    object: str
    object_name: str
    # Why the turn is about it: mention, attached or profile.
    signal: str
    values: list[CardValue]
    related: list[CardRelated]
    last_change: CardChange | None
    souvenirs: list[CardSouvenir]
    profile_souvenirs: list[CardSouvenir]
    # The text a replayed card was stored with (None: rendered now).
    written_text: str | None = None

    @property
    def text(self) -> str:
        return self.written_text if self.written_text is not None else render_card(self)


def render_card(card: Card) -> str:
    """A card's text form."""
    lines = [f"## {cut(card.label, CARD_LABEL_MAX_CHARS)} ({card.object_name.lower()})"]
    lines += [f"- {v.title}: {v.value}" for v in card.values]
    if card.related:
        related = ", ".join(f"{cut(r.label, 80)} ({r.object}, {r.attribute})" for r in card.related)
        lines.append(f"Related: {related}")
    if card.last_change is not None:
        change = card.last_change
        fields = ", ".join(change.fields)
        lines.append(f"Last change: {change.actor_name}, {change.at[:10]} ({fields})")
    if card.souvenirs:
        lines.append("Souvenirs:")
        lines += [s.line for s in card.souvenirs]
    if card.profile_souvenirs:
        lines.append("Your souvenirs:")
        lines += [s.line for s in card.profile_souvenirs]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Dropped:
    """What the budget left out: a souvenir (by key) or a whole card."""

    record_id: str
    kind: str  # souvenir or card
    key: str | None
    reason: str = "budget"


@dataclass(frozen=True, slots=True)
class Budget:
    limit: int
    used: int
    dropped: list[Dropped] = field(default_factory=list)


def cards_text(cards: Sequence[Card]) -> str:
    """The text of a turn's cards, as the agent receives it."""
    return texts_joined([card.text for card in cards])


def texts_joined(texts: Sequence[str]) -> str:
    """The text of a turn's cards from their texts, rendered once by the caller."""
    return CARD_SEPARATOR.join(texts)


def fit(cards: Sequence[Card], limit: int = CARD_BUDGET_CHARS) -> tuple[list[Card], Budget]:
    """The cards within ``limit`` characters, the last signal dropped first: the last card
    loses its souvenirs one by one (the person's own, then its page's, last line first), or
    goes whole when even without them it would not fit, before the card before it loses
    anything. Never a cut line."""
    kept = list(cards)
    sizes = [len(card.text) for card in kept]
    dropped: list[Dropped] = []

    def used() -> int:
        return sum(sizes) + len(CARD_SEPARATOR) * max(0, len(sizes) - 1)

    while kept and used() > limit:
        card = kept[-1]
        bare = len(replace(card, souvenirs=[], profile_souvenirs=[]).text)
        if used() - sizes[-1] + bare > limit:
            kept.pop()
            sizes.pop()
            dropped.append(Dropped(card.record_id, "card", None))
            continue
        if card.profile_souvenirs:
            gone = card.profile_souvenirs[-1]
            kept[-1] = replace(card, profile_souvenirs=card.profile_souvenirs[:-1])
        else:
            gone = card.souvenirs[-1]
            kept[-1] = replace(card, souvenirs=card.souvenirs[:-1])
        sizes[-1] = len(kept[-1].text)
        dropped.append(Dropped(card.record_id, "souvenir", gone.key))
    return kept, Budget(limit, used(), dropped)
