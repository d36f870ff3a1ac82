"""Approvals of an agent's install or community search (issue 15, item 7;
db/queries/catalog_approvals.sql)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("catalog_approvals")


@dataclass(frozen=True, slots=True)
class ApprovalRow:
    id: UUID
    kind: str
    agent_id: UUID
    agent_name: str
    person_id: UUID
    card: dict[str, Any]
    status: str  # pending, approved, declined, or expired (read so past expires_at)
    outcome: dict[str, Any] | None
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None


@dataclass(frozen=True, slots=True)
class NewApproval:
    id: UUID
    kind: str
    agent_id: UUID
    person_id: UUID
    card: dict[str, Any]
    created_at: datetime
    expires_at: datetime


async def insert_approval(conn: asyncpg.Connection, new: NewApproval) -> ApprovalRow:
    """A pending approval, as read back."""
    row = await conn.fetchrow(
        Q["insert_approval"],
        new.id,
        new.kind,
        new.agent_id,
        new.person_id,
        new.card,
        new.created_at,
        new.expires_at,
    )
    assert row is not None  # an INSERT ... RETURNING answers its row
    return ApprovalRow(**dict(row))


async def approvals(
    conn: asyncpg.Connection,
    person: UUID | None,
    agent: UUID | None,
    statuses: list[str] | None,
    now: datetime,
    limit: int,
    approval_id: UUID | None = None,
) -> list[ApprovalRow]:
    """The approvals for ``person`` or asked by ``agent`` (only ``approval_id`` when given),
    newest first."""
    rows = await conn.fetch(Q["approvals"], person, agent, statuses, now, limit, approval_id)
    return [ApprovalRow(**dict(r)) for r in rows]


async def approval_for_update(
    conn: asyncpg.Connection, approval_id: UUID, person: UUID, now: datetime
) -> ApprovalRow | None:
    """One approval for ``person``, locked; None when there is none."""
    row = await conn.fetchrow(Q["approval_for_update"], approval_id, person, now)
    return ApprovalRow(**dict(row)) if row else None


async def decide_approval(
    conn: asyncpg.Connection,
    approval_id: UUID,
    status: str,
    now: datetime,
    outcome: dict[str, Any] | None,
) -> bool:
    """Decide a pending approval; False when it was no longer pending."""
    found = await conn.fetchval(Q["decide_approval"], approval_id, status, now, outcome)
    return found is not None
