"""Dreams (issue 14, item 5): a memory store consolidated by the Dreamer's reader as a job,
its status, usage and outputs (db/queries/dreams.sql)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from uuid import UUID

import asyncpg

from db.memory import Actor
from db.memory_stores import MemoryRow
from db.sql import queries

Q = queries("dreams")


@dataclass(frozen=True, slots=True)
class DreamRow:
    workspace_id: UUID
    id: UUID
    status: str
    input_store_id: UUID
    session_ids: list[UUID]
    model: str
    speed: str | None
    instructions: str | None
    behavior: str
    output_store_id: UUID | None
    actor_kind: str
    actor_id: UUID
    actor_name: str
    token_id: UUID | None
    person_id: UUID | None
    payer_kind: str
    payer_id: UUID | None
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal
    error_type: str | None
    error_message: str | None
    note: str
    created_at: datetime
    started_at: datetime | None
    ended_at: datetime | None
    archived_at: datetime | None

    @property
    def actor(self) -> Actor:
        """Who the dream's changes are recorded as made by: whoever asked for it."""
        return Actor(self.actor_kind, self.actor_id, self.actor_name, self.token_id)


@dataclass(frozen=True, slots=True)
class NewDream:
    id: UUID
    input_store_id: UUID
    session_ids: list[UUID]
    model: str
    speed: str | None
    instructions: str | None
    behavior: str
    actor: Actor
    person_id: UUID | None
    payer_kind: str
    payer_id: UUID | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class DreamEnd:
    """How a run ended: its status, tokens, cost, error (failed only) and note."""

    status: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: Decimal = Decimal(0)
    error_type: str | None = None
    error_message: str | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class DreamFilter:
    """What a listing keeps (None: any)."""

    created_gt: datetime | None = None
    created_lt: datetime | None = None
    statuses: Sequence[str] | None = None
    include_archived: bool = False


@dataclass(frozen=True, slots=True)
class DueDream:
    workspace_id: UUID
    dream_id: UUID
    created_at: datetime


def _dream(row: asyncpg.Record | None) -> DreamRow | None:
    return DreamRow(**dict(row)) if row else None


async def insert_dream(conn: asyncpg.Connection, new: NewDream) -> None:
    """A new pending dream."""
    actor = new.actor
    await conn.execute(
        Q["insert_dream"],
        new.id,
        new.input_store_id,
        new.session_ids,
        new.model,
        new.speed,
        new.instructions,
        new.behavior,
        actor.kind,
        actor.id,
        actor.name,
        actor.session_id,
        new.person_id,
        new.payer_kind,
        new.payer_id,
        new.created_at,
    )


async def dream_readable(
    conn: asyncpg.Connection,
    dream_id: UUID,
    readable: Sequence[UUID],
    person: UUID | None,
    actor: UUID,
) -> DreamRow | None:
    """A dream the caller may read: its author's, or one of a store they may read."""
    return _dream(await conn.fetchrow(Q["dream_readable"], dream_id, readable, person, actor))


async def dreams_page(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    actor: UUID,
    limit: int,
    before: tuple[datetime, UUID] | None,
    kept: DreamFilter,
) -> list[DreamRow]:
    """Readable dreams, newest first, before a position."""
    rows = await conn.fetch(
        Q["dreams_page"],
        readable,
        person,
        actor,
        limit,
        before[0] if before else None,
        before[1] if before else None,
        kept.created_gt,
        kept.created_lt,
        list(kept.statuses) if kept.statuses is not None else None,
        kept.include_archived,
    )
    return [DreamRow(**dict(row)) for row in rows]


async def dream_for_update(conn: asyncpg.Connection, dream_id: UUID) -> DreamRow | None:
    """A dream, locked until the transaction ends."""
    return _dream(await conn.fetchrow(Q["dream_for_update"], dream_id))


async def cancel_dream(conn: asyncpg.Connection, dream_id: UUID, now: datetime) -> None:
    """Cancel a pending or running dream."""
    await conn.execute(Q["cancel_dream"], dream_id, now)


async def archive_dream(conn: asyncpg.Connection, dream_id: UUID, now: datetime) -> None:
    """Archive a terminal dream unless it is archived already."""
    await conn.execute(Q["archive_dream"], dream_id, now)


async def start_dream(
    conn: asyncpg.Connection, dream_id: UUID, now: datetime, output: UUID
) -> DreamRow | None:
    """A pending (or running) dream running, writing ``output`` unless it writes a store
    already; None when it is neither (canceled meanwhile)."""
    return _dream(await conn.fetchrow(Q["start_dream"], dream_id, now, output))


async def end_dream(conn: asyncpg.Connection, dream_id: UUID, end: DreamEnd, now: datetime) -> bool:
    """A pending or running dream ended; False when it had ended already (canceled)."""
    found = await conn.fetchval(
        Q["end_dream"],
        dream_id,
        end.status,
        now,
        end.input_tokens,
        end.output_tokens,
        end.cost_usd,
        end.error_type,
        end.error_message,
        end.note,
    )
    return found is not None


async def spend_of_canceled(conn: asyncpg.Connection, dream_id: UUID, end: DreamEnd) -> None:
    """What a dream canceled while its reader read spent, recorded on it."""
    await conn.execute(
        Q["spend_of_canceled"],
        dream_id,
        end.input_tokens,
        end.output_tokens,
        end.cost_usd,
        end.note,
    )


async def copy_memories(
    conn: asyncpg.Connection, source: UUID, target: UUID, actor: Actor, now: datetime
) -> None:
    """Every memory of ``source`` copied into ``target``, each with its created version."""
    await conn.execute(
        Q["copy_memories"], source, target, now, actor.kind, actor.id, actor.name, actor.session_id
    )


async def store_memories(conn: asyncpg.Connection, store_id: UUID, limit: int) -> list[MemoryRow]:
    """A store's memories with their content, in path order."""
    rows = await conn.fetch(Q["store_memories"], store_id, limit)
    return [MemoryRow(**dict(row)) for row in rows]


async def lock_memories(
    conn: asyncpg.Connection, store_id: UUID, memory_ids: Sequence[UUID]
) -> dict[UUID, UUID]:
    """The memories named, locked, with the version each is at."""
    rows = await conn.fetch(Q["lock_memories"], store_id, list(memory_ids))
    return {row["id"]: row["version_id"] for row in rows}


async def conversations_readable(
    conn: asyncpg.Connection, conversation_ids: Sequence[UUID], person: UUID | None
) -> set[UUID]:
    """Of ``conversation_ids``, those ``person`` may read."""
    rows = await conn.fetch(Q["conversations_readable"], list(conversation_ids), person)
    return {row["id"] for row in rows}


async def dreams_due(conn: asyncpg.Connection) -> list[DueDream]:
    """Every dream to run, across workspaces, oldest first (ids only), read as the application
    role with no workspace (its own transaction)."""
    async with conn.transaction():
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        rows = await conn.fetch(Q["dreams_due"])
    return [DueDream(**dict(row)) for row in rows]


async def session_messages(
    conn: asyncpg.Connection, conversation_ids: Sequence[UUID], person: UUID | None, limit: int
) -> list[asyncpg.Record]:
    """The people's messages of a dream's conversations ``person`` may read, as waiting
    items' rows (none through an agent whose memory is off, nor of a conversation whose agent
    read another), oldest first."""
    rows: list[asyncpg.Record] = await conn.fetch(
        Q["session_messages"], list(conversation_ids), person, limit
    )
    return rows
