"""What an agent reads each turn: the cards' records, the profiles, and stored turns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import Any
from uuid import UUID

import asyncpg

from db.memory import LineRow, line_from_json
from db.sql import queries

Q = queries("turns")


@dataclass(frozen=True, slots=True)
class StoredTurn:
    """A message's stored cards (with the profiles its turn read, None for a turn of no
    conversation) and the profiles of its conversation's generation (each None if absent); the
    conversation's generation (its compactions so far), whether it ended, and the agent it began
    with (``began`` None: it has not begun)."""

    turn: dict[str, Any] | None
    snapshot: dict[str, Any] | None
    began: dict[str, Any] | None = None
    generation: int = 0
    ended: bool = False


async def turn_stored(
    conn: asyncpg.Connection, person: UUID, message_id: str | None, conversation_id: str | None
) -> StoredTurn:
    """What ``person`` stored for a message and a conversation (the ids are each person's)."""
    row = await conn.fetchrow(Q["turn_stored"], message_id, conversation_id, person)
    assert row is not None  # one row, always
    return StoredTurn(row["turn"], row["snapshot"], row["began"], row["generation"], row["ended"])


@dataclass(frozen=True, slots=True)
class CardRow:
    ord: int
    source: str
    id: UUID
    label: str
    object: str
    object_name: str
    values: dict[str, Any]
    principal: list[dict[str, Any]]
    related: list[dict[str, Any]]
    last_change: dict[str, Any] | None
    # The souvenirs of its page, then the person's own about it, as the reader sees them.
    page_lines: list[LineRow]
    profile_lines: list[LineRow]


@dataclass(frozen=True, slots=True)
class ProfileRow:
    about_kind: str
    name: str
    lines: list[LineRow]


@dataclass(frozen=True, slots=True)
class TurnRead:
    cards: list[CardRow]
    profiles: list[ProfileRow]


async def turn_read(
    conn: asyncpg.Connection,
    ids: Sequence[UUID],
    readable: Sequence[UUID],
    person: UUID,
    limits: tuple[int, int, int],
    agent: UUID | None,
    *,
    cards: bool,
    profiles: bool,
) -> TurnRead:
    """What a turn reads, in one statement: when ``cards``, the data of every card, in
    signal order (``limits``: at most so many records from the person's profile, principal
    values and related records a card; no souvenir when the turn's ``agent`` has memory off);
    when ``profiles``, the workspace's, the person's (without record souvenirs) and the
    agent's profiles, for a role that reads memory and an agent with memory on. Every
    souvenir as the person (whose role reads ``readable``) sees it."""
    row = await conn.fetchrow(
        Q["turn_read"], list(ids), readable, person, *limits, agent, cards, profiles
    )
    assert row is not None  # one row, always
    shown = iter([line_from_json(raw) for raw in row["shown"]])
    found = row["cards"]
    # The souvenirs come in order: every card's page's, every card's on the profile, then
    # every profile's.
    pages = [list(islice(shown, card["page_count"])) for card in found]
    about = [list(islice(shown, card["profile_count"])) for card in found]
    read = TurnRead(
        [
            CardRow(
                ord=card["ord"],
                source=card["source"],
                id=UUID(card["id"]),
                label=card["label"],
                object=card["object"],
                object_name=card["object_name"],
                values=card["values"],
                principal=card["principal"],
                related=card["related"],
                last_change=card["last_change"],
                page_lines=page,
                profile_lines=mine,
            )
            for card, page, mine in zip(found, pages, about, strict=True)
        ],
        [
            ProfileRow(p["about_kind"], p["name"], list(islice(shown, p["count"])))
            for p in row["profiles"]
        ],
    )
    assert next(shown, None) is None  # every souvenir shown went back to its card or profile
    return read


async def store_turn(
    conn: asyncpg.Connection,
    *,
    message_id: str | None,
    conversation_id: str | None,
    person: UUID,
    cards: list[dict[str, Any]],
    budget: dict[str, Any],
    at: datetime,
    new_snapshot: bool,
    agent: UUID | None,
    profiles: dict[str, Any],
    generation: int = 0,
) -> tuple[bool, bool]:
    """Keep a turn's cards with its message, and a conversation generation's first profiles;
    whether each was stored (not, when a concurrent first read stored it first)."""
    row = await conn.fetchrow(
        Q["store_turn"],
        message_id,
        conversation_id,
        person,
        cards,
        budget,
        at,
        new_snapshot,
        agent,
        profiles,
        generation,
    )
    assert row is not None
    return row["turn_stored"], row["snapshot_stored"]


@dataclass(frozen=True, slots=True)
class ConversationState:
    """A conversation's compactions so far, the last one's time, and when it ended."""

    compactions: int
    compacted_at: datetime | None
    ended_at: datetime | None


async def conversation_state(
    conn: asyncpg.Connection, person: UUID, conversation_id: str, agent: UUID | None
) -> ConversationState | None:
    """``person``'s conversation as its caller sees it; None unless it began and, for an
    agent (``agent`` given), it is that agent's."""
    row = await conn.fetchrow(Q["conversation_state"], person, conversation_id, agent)
    return ConversationState(**dict(row)) if row is not None else None


@dataclass(frozen=True, slots=True)
class ConversationEvent:
    id: UUID
    person_id: UUID
    conversation_id: str
    kind: str  # compacted, ended
    actor_kind: str  # member, agent
    actor_id: UUID
    at: datetime


async def record_conversation_event(
    conn: asyncpg.Connection, event: ConversationEvent
) -> datetime | None:
    """Append a compaction or the end of a conversation; its time, or None when the
    conversation had ended (nothing is recorded)."""
    at: datetime | None = await conn.fetchval(
        Q["record_conversation_event"],
        event.id,
        event.person_id,
        event.conversation_id,
        event.kind,
        event.actor_kind,
        event.actor_id,
        event.at,
    )
    return at
