"""What an agent reads each turn (DESIGN §7): the profiles snapshot, the record cards read as
the person the turn acts for, the budget they share, and their replay.

A turn costs a constant number of statements whatever its cards hold: what was stored for the
message and the conversation, the cards' records, the profiles (first turn of a conversation
only), the souvenirs shown to the reader (one batch), and storing the turn.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any
from uuid import UUID

import asyncpg

from db import memory, turns
from db.memory import LineRow
from db.turns import CardRow
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


def _quiet_record(global_id: str, workspace_id: UUID) -> UUID | None:
    """The record a mention names, or None for anything that names no record here."""
    try:
        return ids.decode(global_id, "Record", workspace_id)
    except DomainError:
        return None


def _who(principal: Principal, given: TurnInput) -> tuple[UUID, UUID | None]:
    """The person the turn acts for and the agent it is for."""
    person = principal.person_id
    if person is None:
        raise DomainError(Code.FORBIDDEN, "A turn acts for a person: an API key has none.")
    workspace = principal.workspace_id
    if given.person_id is not None:
        if ids.decode(given.person_id, "Member", workspace, "personId") != person:
            raise DomainError(Code.FORBIDDEN, "A turn acts for the person your token acts for.")
    agent = principal.row.actor_id if principal.kind == "agent" else None
    if given.agent_id is not None:
        named = ids.decode(given.agent_id, "Agent", workspace, "agentId")
        if agent is not None and named != agent:
            raise DomainError(Code.FORBIDDEN, "An agent reads its own turns only.")
        agent = named
    return person, agent


async def turn_context(
    conn: asyncpg.Connection, principal: Principal, given: TurnInput
) -> TurnContext:
    """The turn's profiles, cards and budget; replayed as first written when its message (or,
    for the profiles, its conversation) was read before."""
    if problems := _input_problems(given):
        raise invalid(problems)
    workspace = principal.workspace_id
    attached = None
    if given.attached_record_id is not None:
        attached = ids.decode(given.attached_record_id, "Record", workspace, "attachedRecordId")
    person, agent = _who(principal, given)
    stored = turns.StoredTurn(None, None)
    if given.message_id is not None or given.conversation_id is not None:
        stored = await turns.turn_stored(conn, given.message_id, given.conversation_id)
    for earlier in (stored.turn, stored.snapshot):
        if earlier is not None and UUID(earlier["person_id"]) != person:
            raise DomainError(Code.FORBIDDEN, "This conversation is another person's.")
    if stored.snapshot is not None:
        kept_agent = stored.snapshot["agent_id"]
        if (UUID(kept_agent) if kept_agent else None) != agent:
            raise DomainError(Code.FORBIDDEN, "This conversation is with another agent.")
    replayed = stored.turn is not None
    mentions: list[UUID] = []
    for found in [_quiet_record(g, workspace) for g in mentioned_ids(given.message)]:
        if found is not None and found not in mentions and len(mentions) < MAX_MENTIONS:
            mentions.append(found)
    wanted = mentions + ([attached] if attached is not None and attached not in mentions else [])
    readable = principal.readable_objects
    rows = (
        []
        if replayed
        else await turns.card_records(
            conn, wanted, readable, person, PROFILE_RECORDS, CARD_VALUES, CARD_RELATED
        )
    )
    profile_rows = (
        await turns.profile_lines(conn, person, agent, readable) if stored.snapshot is None else []
    )
    # Every souvenir of the turn shown to its reader in one statement.
    batches = [r.page_lines for r in rows] + [r.profile_lines for r in rows]
    batches += [p.lines for p in profile_rows]
    flat = [line for batch in batches for line in batch]
    shown = await memory.lines_shown(conn, flat, readable, person) if flat else []
    start = 0
    sliced: list[list[LineRow]] = []
    for batch in batches:
        sliced.append(shown[start : start + len(batch)])
        start += len(batch)
    count = len(rows)
    if stored.snapshot is not None:
        profiles = Profiles(**stored.snapshot["profiles"])
    else:
        profiles = _profiles(profile_rows, sliced[2 * count :], workspace)
    if stored.turn is not None:
        kept = [card_from_json(c) for c in stored.turn["cards"]]
        budget = budget_from_json(stored.turn["budget"])
    else:
        cards = [
            _card(row, sliced[i], sliced[count + i], workspace, row.id in mentions)
            for i, row in enumerate(rows)
        ]
        kept, budget = fit(cards, CARD_BUDGET_CHARS)
    new_turn = given.message_id is not None and not replayed
    new_snapshot = given.conversation_id is not None and stored.snapshot is None
    if new_turn or new_snapshot:
        turn_kept, snapshot_kept = await turns.store_turn(
            conn,
            message_id=given.message_id if new_turn else None,
            conversation_id=given.conversation_id,
            person=person,
            cards=[card_json(c) for c in kept],
            budget=asdict(budget),
            at=clock.now(),
            new_snapshot=new_snapshot,
            agent=agent,
            profiles=asdict(profiles),
        )
        if (new_turn and not turn_kept) or (new_snapshot and not snapshot_kept):
            # A concurrent first read of this message or conversation stored it first: what
            # it stored is what every read answers.
            return await turn_context(conn, principal, given)
    return TurnContext(profiles, kept, budget, replayed)


def _card(
    row: CardRow,
    page_lines: list[LineRow],
    profile_lines: list[LineRow],
    workspace: UUID,
    mentioned: bool,
) -> Card:
    values = [
        CardValue(a["slug"], a["title"], cut(value_text(row.values[a["slug"]])))
        for a in row.principal
    ][:CARD_VALUES]
    related = [
        CardRelated(
            ids.encode("Record", workspace, UUID(r["id"])),
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
        souvenirs=[_souvenir(line, workspace) for line in page_lines],
        # On the record's own card its reference would only repeat the card's record.
        profile_souvenirs=[
            _souvenir(replace(line, about_id=None), workspace) for line in profile_lines
        ],
    )


def _souvenir(line: LineRow, workspace: UUID) -> CardSouvenir:
    assert line.key is not None
    return CardSouvenir(line.key, line_text(line, workspace))


def _profiles(rows: list[Any], lines: list[list[LineRow]], workspace: UUID) -> Profiles:
    texts: dict[str, str] = {}
    for row, shown in zip(rows, lines, strict=True):
        texts[row.about_kind] = render_content(line_text(line, workspace) for line in shown)
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
