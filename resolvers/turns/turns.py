"""What an agent reads each turn (DESIGN §7): the profiles snapshot, the record cards read as
the person the turn acts for, the budget they share, and their replay.

A turn costs a constant number of statements whatever its cards hold: what was stored for the
message and the conversation, what it reads (the cards' records, the profiles on the first turn
of a conversation, and all their souvenirs as the reader sees them: one statement), and storing
the turn.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any
from uuid import UUID

import asyncpg

from db import turns
from db.memory import LineRow
from db.turns import CardRow, ProfileRow
from db.uuids import hex_of
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.principals import Principal
from resolvers.memory.content import render_content
from resolvers.memory.reading import line_text
from resolvers.turns.cards import (
    CARD_BUDGET_CHARS,
    CARD_RELATED,
    CARD_VALUES,
    MAX_MENTIONS,
    PROFILE_RECORDS,
    Budget,
    Card,
    CardChange,
    CardRelated,
    CardSouvenir,
    CardValue,
    Dropped,
    cut,
    fit,
    mentioned_ids,
    value_text,
)

MAX_MESSAGE_CHARS = 20_000
MAX_ID_CHARS = 200


@dataclass(frozen=True, slots=True)
class TurnInput:
    message: str
    conversation_id: str | None = None
    message_id: str | None = None
    person_id: str | None = None
    agent_id: str | None = None
    attached_record_id: str | None = None


@dataclass(frozen=True, slots=True)
class Profiles:
    """The profiles read at the start of a conversation, as the person may read them."""

    workspace: str | None
    person: str | None
    agent: str | None


@dataclass(frozen=True, slots=True)
class TurnContext:
    profiles: Profiles
    cards: list[Card]
    budget: Budget
    replayed: bool


def _input_problems(given: TurnInput) -> list[Problem]:
    problems = []
    if len(given.message) > MAX_MESSAGE_CHARS:
        problems.append(Problem(f"a message is at most {MAX_MESSAGE_CHARS} characters", "message"))
    for name, value in (("conversationId", given.conversation_id), ("messageId", given.message_id)):
        if value is not None and not 1 <= len(value) <= MAX_ID_CHARS or value and "\x00" in value:
            problems.append(Problem(f"1 to {MAX_ID_CHARS} characters, no NUL", name))
    if "\x00" in given.message:
        problems.append(Problem("a message holds no NUL character", "message"))
    return problems


@dataclass(frozen=True, slots=True)
class _Turn:
    """Who a turn acts for and what it names: checked before anything is read."""

    person: UUID
    agent: UUID | None
    # The records the message mentions (in order, at most MAX_MENTIONS), then the attached one.
    wanted: list[UUID]
    mentions: frozenset[UUID]


def _turn(principal: Principal, given: TurnInput) -> _Turn:
    """The checked turn, or every problem of its input."""
    if problems := _input_problems(given):
        raise invalid(problems)
    workspace = principal.workspace_id
    attached = None
    if given.attached_record_id is not None:
        attached = ids.decode_or_absent(
            given.attached_record_id, "Record", workspace, "attachedRecordId"
        )
    person, agent = acting_for(principal, given.person_id, given.agent_id)
    mentions = _mentions(given.message, workspace)
    wanted = mentions + ([attached] if attached is not None and attached not in mentions else [])
    return _Turn(person, agent, wanted, frozenset(mentions))


def _mentions(message: str, workspace: UUID) -> list[UUID]:
    """The records a message mentions, each once, in order, the first MAX_MENTIONS that name a
    record of the workspace."""
    found: list[UUID] = []
    for global_id in mentioned_ids(message):
        try:
            record = ids.decode(global_id, "Record", workspace)
        except DomainError:
            continue
        if record not in found and len(found) < MAX_MENTIONS:
            found.append(record)
    return found


def acting_for(
    principal: Principal, person_id: str | None, agent_id: str | None
) -> tuple[UUID, UUID | None]:
    """The person a turn (or a conversation's message) acts for and the agent it is with: the
    token's person (``person_id`` may only name them), and an agent's token's agent or the one
    ``agent_id`` names (an agent's token names only itself)."""
    person = principal.person_id
    if person is None:
        raise DomainError(Code.FORBIDDEN, "A conversation acts for a person: an API key has none.")
    workspace = principal.workspace_id
    if person_id is not None:
        if ids.decode_or_absent(person_id, "Member", workspace, "personId") != person:
            raise DomainError(Code.FORBIDDEN, "A turn acts for the person your token acts for.")
    agent = principal.row.actor_id if principal.kind == "agent" else None
    if agent_id is not None:
        named = ids.decode_or_absent(agent_id, "Agent", workspace, "agentId")
        if agent is not None and named != agent:
            raise DomainError(Code.FORBIDDEN, "An agent speaks in its own conversations only.")
        agent = named
    return person, agent


async def _stored(conn: asyncpg.Connection, given: TurnInput, turn: _Turn) -> turns.StoredTurn:
    """The replay check: what the person stored for this message and this conversation (ids
    are each person's own); a conversation keeps the agent it began with, and an ended one
    answers only the replays of its messages."""
    if given.message_id is None and given.conversation_id is None:
        return turns.StoredTurn(None, None)
    stored = await turns.turn_stored(conn, turn.person, given.message_id, given.conversation_id)
    if stored.began is not None:
        kept_agent = stored.began["agent_id"]
        if (UUID(kept_agent) if kept_agent else None) != turn.agent:
            raise DomainError(Code.FORBIDDEN, "This conversation is with another agent.")
    if stored.ended and stored.turn is None:
        raise DomainError(
            Code.MEMORY_PRECONDITION_FAILED,
            "This conversation has ended: a new turn begins another conversation.",
            [Problem("this conversation has ended", "conversationId")],
        )
    return stored


def _kept_profiles(stored: turns.StoredTurn) -> dict[str, Any] | None:
    """The profiles answered as stored: a replayed turn's own (those it read then), else the
    snapshot of its conversation's generation; None when they are read now."""
    if stored.turn is not None and stored.turn.get("profiles") is not None:
        kept: dict[str, Any] = stored.turn["profiles"]
        return kept
    if stored.snapshot is not None:
        kept = stored.snapshot["profiles"]
        return kept
    return None


async def _read(
    conn: asyncpg.Connection, principal: Principal, turn: _Turn, stored: turns.StoredTurn
) -> TurnContext:
    """The turn as read now, or as stored: the cards of a message read before and the profiles
    of a conversation begun before are replayed, the rest is read (in one statement, every
    souvenir as the person sees it)."""
    workspace = principal.workspace_id
    kept_profiles = _kept_profiles(stored)
    read = turns.TurnRead([], [])
    if stored.turn is None or kept_profiles is None:
        read = await turns.turn_read(
            conn,
            turn.wanted,
            principal.readable_objects,
            turn.person,
            (PROFILE_RECORDS, CARD_VALUES, CARD_RELATED),
            turn.agent,
            cards=stored.turn is None,
            profiles=kept_profiles is None,
        )
    if kept_profiles is not None:
        profiles = Profiles(**kept_profiles)
    else:
        profiles = _profiles(read.profiles, workspace)
    if stored.turn is not None:
        cards = [card_from_json(c) for c in stored.turn["cards"]]
        return TurnContext(profiles, cards, budget_from_json(stored.turn["budget"]), True)
    made = [_card(row, workspace, row.id in turn.mentions) for row in read.cards]
    kept, budget = fit(made, CARD_BUDGET_CHARS)
    return TurnContext(profiles, kept, budget, False)


async def turn_context(
    conn: asyncpg.Connection, principal: Principal, given: TurnInput
) -> TurnContext:
    """The turn's profiles, cards and budget; replayed as first written when its message (or,
    for the profiles, its conversation since its last compaction) was read before by the same
    person."""
    turn = _turn(principal, given)
    stored = await _stored(conn, given, turn)
    context = await _read(conn, principal, turn, stored)
    new_turn = given.message_id is not None and stored.turn is None
    # Profiles read now start the conversation's generation (a replay's are not).
    new_snapshot = given.conversation_id is not None and _kept_profiles(stored) is None
    if not (new_turn or new_snapshot):
        return context
    turn_kept, snapshot_kept = await turns.store_turn(
        conn,
        message_id=given.message_id if new_turn else None,
        conversation_id=given.conversation_id,
        person=turn.person,
        cards=[card_json(c) for c in context.cards],
        budget=asdict(context.budget),
        at=clock.now(),
        new_snapshot=new_snapshot,
        agent=turn.agent,
        profiles=asdict(context.profiles),
        generation=stored.generation,
    )
    if (new_turn and not turn_kept) or (new_snapshot and not snapshot_kept):
        # A concurrent first read of this message or conversation stored it first: what it
        # stored is what every read answers.
        again = await _stored(conn, given, turn)
        return _as_stored(context, again, cards_too=new_turn and not turn_kept)
    return context


def _as_stored(context: TurnContext, stored: turns.StoredTurn, cards_too: bool) -> TurnContext:
    """A turn read now, with what a concurrent first read stored in place of its own (the
    profiles, and the cards when ``cards_too``)."""
    profiles = context.profiles
    kept = _kept_profiles(stored) if cards_too else None
    if kept is None and stored.snapshot is not None:
        kept = stored.snapshot["profiles"]
    if kept is not None:
        profiles = Profiles(**kept)
    if not cards_too or stored.turn is None:
        return replace(context, profiles=profiles)
    cards = [card_from_json(c) for c in stored.turn["cards"]]
    return TurnContext(profiles, cards, budget_from_json(stored.turn["budget"]), True)


def _card(row: CardRow, workspace: UUID, mentioned: bool) -> Card:
    values = [
        CardValue(a["slug"], a["title"], cut(value_text(row.values[a["slug"]])))
        for a in row.principal
    ][:CARD_VALUES]
    related = [
        CardRelated(
            ids.encode_hex("Record", workspace, hex_of(r["id"])),
            r["label"],
            r["object"].lower(),
            r["attribute"],
            r["direction"],
        )
        for r in row.related
    ][:CARD_RELATED]
    change = row.last_change
    signal = "profile" if row.source == "profile" else "mention" if mentioned else "attached"
    return Card(
        record_id=ids.encode("Record", workspace, row.id),
        label=row.label,
        object=row.object,
        object_name=row.object_name,
        signal=signal,
        values=values,
        related=related,
        last_change=CardChange(change["actor_name"], change["at"], list(change["fields"]))
        if change
        else None,
        souvenirs=[_souvenir(line, workspace) for line in row.page_lines],
        # On the record's own card its reference would only repeat the card's record.
        profile_souvenirs=[
            _souvenir(replace(line, about_id=None), workspace) for line in row.profile_lines
        ],
    )


def _souvenir(line: LineRow, workspace: UUID) -> CardSouvenir:
    assert line.key is not None
    return CardSouvenir(line.key, line_text(line, workspace))


def _profiles(rows: list[ProfileRow], workspace: UUID) -> Profiles:
    texts: dict[str, str] = {}
    for row in rows:
        texts[row.about_kind] = render_content(line_text(line, workspace) for line in row.lines)
    return Profiles(texts.get("workspace"), texts.get("member"), texts.get("agent"))


def card_json(card: Card) -> dict[str, Any]:
    """A card as stored with its message: its fields and its text as written then."""
    return {**asdict(card), "text": card.text}


def card_from_json(raw: dict[str, Any]) -> Card:
    """A stored card, exactly as it was written (its text too)."""
    change = raw.get("last_change")
    return Card(
        record_id=raw["record_id"],
        label=raw["label"],
        object=raw["object"],
        object_name=raw["object_name"],
        signal=raw["signal"],
        values=[CardValue(**v) for v in raw["values"]],
        related=[CardRelated(**r) for r in raw["related"]],
        last_change=CardChange(**change) if change else None,
        souvenirs=[CardSouvenir(**s) for s in raw["souvenirs"]],
        profile_souvenirs=[CardSouvenir(**s) for s in raw["profile_souvenirs"]],
        written_text=raw.get("text"),
    )


def budget_from_json(raw: dict[str, Any]) -> Budget:
    """A stored budget, as it was written."""
    return Budget(raw["limit"], raw["used"], [Dropped(**d) for d in raw["dropped"]])
