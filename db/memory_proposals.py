"""Memory proposals: what agents and people hand the Dreamer, counted per proposer and hour."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from db.memory import Actor
from db.sql import queries

Q = queries("memory_proposals")


@dataclass(frozen=True, slots=True)
class ProposalRow:
    id: UUID
    proposer_kind: str
    proposer_name: str
    on_behalf_of: UUID | None
    record_id: UUID | None
    text: str
    status: str
    verdict: str | None
    created_at: datetime
    decided_at: datetime | None


async def lock_proposer(conn: asyncpg.Connection, key: str) -> None:
    """Hold the proposer's lock until the transaction ends."""
    await conn.execute(Q["lock_proposer"], key)


async def insert_proposal_within_limit(
    conn: asyncpg.Connection,
    proposal_id: UUID,
    proposer: Actor,
    on_behalf_of: UUID | None,
    record_id: UUID | None,
    text: str,
    at: datetime,
    limit: int,
    conversation_id: UUID | None = None,
    not_read_reason: str | None = None,
) -> ProposalRow | None:
    """Store a proposal (made from ``conversation_id``) unless its proposer made ``limit`` in
    the hour before ``at``; with ``not_read_reason`` it is never read (that is its verdict)."""
    row = await conn.fetchrow(
        Q["insert_proposal_within_limit"],
        proposal_id,
        proposer.kind,
        proposer.id,
        proposer.name,
        proposer.session_id,
        on_behalf_of,
        record_id,
        text,
        at,
        limit,
        conversation_id,
        not_read_reason,
    )
    return ProposalRow(**dict(row)) if row else None


async def oldest_recent_proposal(
    conn: asyncpg.Connection, proposer: Actor, at: datetime
) -> datetime | None:
    """When the oldest proposal of the proposer's last hour was made."""
    found: datetime | None = await conn.fetchval(
        Q["oldest_recent_proposal"], proposer.kind, proposer.id, at
    )
    return found


async def proposals_by_proposer(
    conn: asyncpg.Connection, proposer: Actor, on_behalf_of: UUID | None, first: int
) -> list[ProposalRow]:
    """A proposer's proposals for one person (or for none), newest first."""
    rows = await conn.fetch(
        Q["proposals_by_proposer"], proposer.kind, proposer.id, on_behalf_of, first
    )
    return [ProposalRow(**dict(row)) for row in rows]
