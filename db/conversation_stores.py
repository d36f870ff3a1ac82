"""Conversations created with their memory stores (issue 14, item 6): the creation, the
stores it attaches, and the rule of a read-only attachment."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("conversation_stores")


@dataclass(frozen=True, slots=True)
class StoreToAttach:
    id: UUID
    name: str
    description: str
    archived: bool


@dataclass(frozen=True, slots=True)
class NewAttachment:
    # None: the workspace's memory store.
    store_id: UUID | None
    access: str
    instructions: str


@dataclass(frozen=True, slots=True)
class AttachedStore:
    store_id: UUID | None
    access: str
    instructions: str
    # None for the workspace's memory store (its name is the resolver's).
    name: str | None
    description: str | None


@dataclass(frozen=True, slots=True)
class CreatedConversation:
    agent_id: UUID | None
    created_at: datetime
    stores: list[AttachedStore]


async def conversation_begun(conn: asyncpg.Connection, person: UUID, conversation_id: str) -> bool:
    """Whether the person's conversation has begun, in any way."""
    value: bool = await conn.fetchval(Q["conversation_begun"], person, conversation_id)
    return value


async def insert_start(
    conn: asyncpg.Connection, person: UUID, conversation_id: str, agent: UUID | None, at: datetime
) -> bool:
    """Create the conversation; False when it was created already."""
    return await conn.fetchval(Q["insert_start"], person, conversation_id, agent, at) is not None


async def attachable_stores(
    conn: asyncpg.Connection,
    store_ids: Sequence[UUID],
    readable: Sequence[UUID],
    person: UUID | None,
) -> list[StoreToAttach]:
    """The stores among ``store_ids`` the caller may read."""
    rows = await conn.fetch(Q["attachable_stores"], list(store_ids), readable, person)
    return [StoreToAttach(**dict(r)) for r in rows]


async def insert_store_attachments(
    conn: asyncpg.Connection,
    person: UUID,
    conversation_id: str,
    stores: Sequence[NewAttachment],
    at: datetime,
) -> None:
    """Attach ``stores`` to the conversation, in order."""
    await conn.execute(
        Q["insert_store_attachments"],
        person,
        conversation_id,
        [s.store_id for s in stores],
        [s.access for s in stores],
        [s.instructions for s in stores],
        at,
    )


async def conversation_stores(
    conn: asyncpg.Connection, person: UUID, conversation_id: str, agent: UUID | None
) -> CreatedConversation | None:
    """The conversation as created, with its stores; None unless it was created (for an
    ``agent``, unless it is that agent's)."""
    row = await conn.fetchrow(Q["conversation_stores"], person, conversation_id, agent)
    if row is None:
        return None
    stores = row["stores"]
    return CreatedConversation(
        row["agent_id"],
        row["created_at"],
        [
            AttachedStore(
                UUID(s["store_id"]) if s["store_id"] else None,
                s["access"],
                s["instructions"],
                s["name"],
                s["description"],
            )
            for s in stores
        ],
    )


async def store_write_refused(
    conn: asyncpg.Connection, store_id: UUID, person: UUID | None, agent: UUID | None
) -> bool:
    """Whether the agent acting for the person may not write the store (a read-only
    attachment of one of its open conversations)."""
    if agent is None or person is None:
        return False
    value: bool = await conn.fetchval(Q["store_write_refused"], store_id, person, agent)
    return value
