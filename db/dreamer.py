"""The Dreamer's intake (issue 10): conversations and their messages, meetings, runs, and the
items they become for a pass (``db/queries/dreamer.sql``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("dreamer")


async def lock_source(conn: asyncpg.Connection, key: str) -> None:
    """Hold the lock of one source's external id until the transaction ends."""
    await conn.execute(Q["lock_source"], key)


async def runner_owner(conn: asyncpg.Connection, kind: str, runner_id: UUID) -> UUID | None:
    """The member who owns the agent or routine ``runner_id``; None when there is none such."""
    found: UUID | None = await conn.fetchval(Q["runner_owner"], kind, runner_id)
    return found


async def known_actors(
    conn: asyncpg.Connection, members: Sequence[UUID], agents: Sequence[UUID]
) -> set[tuple[str, UUID]]:
    """Which of ``members`` and ``agents`` exist, as (kind, id)."""
    rows = await conn.fetch(Q["known_actors"], list(members), list(agents))
    return {(row["kind"], row["id"]) for row in rows}


# --- conversations and messages ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConversationRow:
    id: UUID
    external_id: str
    person_id: UUID
    agent_id: UUID | None
    scope: str
    agent_read_another: bool


@dataclass(frozen=True, slots=True)
class NewConversation:
    id: UUID
    external_id: str
    person_id: UUID
    agent_id: UUID | None
    scope: str
    at: datetime


async def open_conversation(conn: asyncpg.Connection, new: NewConversation) -> ConversationRow:
    """The person's conversation ``new.external_id``, created as ``new`` when it is its first
    message, locked until the transaction ends; one with no agent yet takes ``new``'s."""
    row = await conn.fetchrow(
        Q["open_conversation"],
        new.id,
        new.external_id,
        new.person_id,
        new.agent_id,
        new.scope,
        new.at,
    )
    assert row is not None  # an upsert returns its row
    return ConversationRow(**dict(row))


async def conversation_of(
    conn: asyncpg.Connection, person: UUID, external_id: str
) -> ConversationRow | None:
    """A person's conversation by its external id, share-locked until the transaction ends."""
    row = await conn.fetchrow(Q["conversation_of"], person, external_id)
    return ConversationRow(**dict(row)) if row else None


async def conversation_by_id(
    conn: asyncpg.Connection, conversation_id: UUID
) -> ConversationRow | None:
    """A conversation by its id."""
    row = await conn.fetchrow(Q["conversation_by_id"], conversation_id)
    return ConversationRow(**dict(row)) if row else None


@dataclass(frozen=True, slots=True)
class MessageRow:
    id: UUID
    conversation_id: UUID
    external_id: str
    speaker_kind: str
    speaker_id: UUID
    role: str
    text: str
    attached_record_id: UUID | None
    read_another_conversation: bool
    said_at: datetime
    created_at: datetime


async def insert_message(conn: asyncpg.Connection, new: MessageRow) -> MessageRow | None:
    """Store a message; None (nothing written) when its conversation holds its external id."""
    row = await conn.fetchrow(
        Q["insert_message"],
        new.id,
        new.conversation_id,
        new.external_id,
        new.speaker_kind,
        new.speaker_id,
        new.role,
        new.text,
        new.attached_record_id,
        new.read_another_conversation,
        new.said_at,
        new.created_at,
    )
    return MessageRow(**dict(row)) if row else None


async def message_of(
    conn: asyncpg.Connection, conversation_id: UUID, external_id: str
) -> MessageRow | None:
    """A conversation's message by its external id."""
    row = await conn.fetchrow(Q["message_of"], conversation_id, external_id)
    return MessageRow(**dict(row)) if row else None


async def person_texts(conn: asyncpg.Connection, conversation_id: UUID) -> list[str]:
    """The texts of the conversation's person's messages, in the order they were said."""
    return [row["text"] for row in await conn.fetch(Q["person_texts"], conversation_id)]


async def mark_read_another(conn: asyncpg.Connection, conversation_id: UUID, at: datetime) -> int:
    """Flag the conversation (its agent read another one): every item of it, of its runs and
    of its proposals not read yet is not read now (proposals say so from ``at``); how many."""
    changed: int = await conn.fetchval(Q["mark_read_another"], conversation_id, at)
    return changed


async def wake_conversation_items(conn: asyncpg.Connection, conversation_id: UUID) -> int:
    """The conversation is read now: its items not read for too few messages wait; how many."""
    woken: int = await conn.fetchval(Q["wake_conversation_items"], conversation_id)
    return woken


# --- items --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewItem:
    """A source's item as it arrives: its source (one of message, meeting, run, proposal), its
    page owner, the person it is private to, its payer, the person whose shareWithTeam it
    keeps, and its status (a not-read one with its reason)."""

    id: UUID
    kind: str
    owner_kind: str
    owner_id: UUID | None
    private_to: UUID | None
    payer_kind: str
    payer_id: UUID | None
    share_person: UUID | None
    urgent: bool
    said_at: datetime
    arrived_at: datetime
    status: str
    reason: str | None = None
    message_id: UUID | None = None
    meeting_id: UUID | None = None
    run_id: UUID | None = None
    proposal_id: UUID | None = None


@dataclass(frozen=True, slots=True)
class ItemRow:
    id: UUID
    kind: str
    owner_kind: str
    owner_id: UUID | None
    private_to: UUID | None
    payer_kind: str
    payer_id: UUID | None
    share_with_team: bool
    urgent: bool
    said_at: datetime
    arrived_at: datetime
    status: str
    reason: str | None


async def insert_item(conn: asyncpg.Connection, new: NewItem) -> ItemRow:
    """Store an item, with its share person's memory.shareWithTeam as it is now."""
    row = await conn.fetchrow(
        Q["insert_item"],
        new.id,
        new.kind,
        new.message_id,
        new.meeting_id,
        new.run_id,
        new.proposal_id,
        new.owner_kind,
        new.owner_id,
        new.private_to,
        new.payer_kind,
        new.payer_id,
        new.urgent,
        new.said_at,
        new.arrived_at,
        new.share_person,
        new.status,
        new.reason,
    )
    assert row is not None  # an insert returns its row
    return ItemRow(**dict(row))


async def item_of(conn: asyncpg.Connection, kind: str, source_id: UUID) -> ItemRow | None:
    """The item a source became (its message, meeting, run or proposal id)."""
    row = await conn.fetchrow(Q["item_of"], kind, source_id)
    return ItemRow(**dict(row)) if row else None


async def notify_dreamer(conn: asyncpg.Connection) -> None:
    """Wake the Dreamer's scheduler once the transaction commits."""
    await conn.execute(Q["notify_dreamer"])


# --- meetings -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeetingRow:
    meeting_id: UUID
    external_id: str
    owner_id: UUID | None
    title: str
    visibility: str
    transcript: str
    held_at: datetime
    created_at: datetime
    record_ids: list[UUID]


async def meeting_of(
    conn: asyncpg.Connection, owner: UUID | None, external_id: str
) -> MeetingRow | None:
    """A meeting by its owner (None: the workspace's) and external id."""
    row = await conn.fetchrow(Q["meeting_of"], owner, external_id)
    return MeetingRow(**dict(row)) if row else None


async def delete_meeting(conn: asyncpg.Connection, meeting_id: UUID, meeting_object: UUID) -> bool:
    """Delete a meeting's record (its transcript, links and item go with it); False when there
    was none."""
    found = await conn.fetchval(Q["delete_meeting"], meeting_id, meeting_object)
    return found is not None


async def insert_meeting(conn: asyncpg.Connection, new: MeetingRow) -> None:
    """Store a meeting's transcript and its linked records (its record exists)."""
    await conn.execute(
        Q["insert_meeting"],
        new.meeting_id,
        new.external_id,
        new.owner_id,
        new.transcript,
        new.held_at,
        new.created_at,
        list(new.record_ids),
    )


# --- runs ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunRow:
    id: UUID
    external_id: str
    runner_kind: str
    agent_id: UUID | None
    routine_id: UUID | None
    owner_id: UUID
    scope: str
    conversation_id: UUID | None
    parent_run_id: UUID | None
    mission: str
    # [{"speakerKind", "speakerId", "role", "at", "text"}, ...] after the mission message.
    messages: list[dict[str, Any]]
    retried: bool
    failed_before: bool
    answered_after_mission: bool
    started_at: datetime
    created_at: datetime


async def run_of(conn: asyncpg.Connection, owner: UUID, external_id: str) -> RunRow | None:
    """A run by its owner and external id."""
    row = await conn.fetchrow(Q["run_of"], owner, external_id)
    return RunRow(**dict(row)) if row else None


async def insert_run(conn: asyncpg.Connection, new: RunRow) -> RunRow:
    """Store a run."""
    row = await conn.fetchrow(
        Q["insert_run"],
        new.id,
        new.external_id,
        new.runner_kind,
        new.agent_id,
        new.routine_id,
        new.owner_id,
        new.scope,
        new.conversation_id,
        new.parent_run_id,
        new.mission,
        new.messages,
        new.retried,
        new.failed_before,
        new.answered_after_mission,
        new.started_at,
        new.created_at,
    )
    assert row is not None  # an insert returns its row
    return RunRow(**dict(row))
