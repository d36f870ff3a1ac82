"""The Dreamer's schedule across workspaces: which page owners have items waiting, and when
each one's pass is due (ids, times and counts only: ``dreamer_due`` in migration 0011)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("dreamer_schedule")


@dataclass(frozen=True, slots=True)
class DueOwner:
    """A page owner with items waiting: the workspace, the owner (member, agent, routine, or
    the workspace with no id), when its pass is due and how many items wait."""

    workspace_id: UUID
    owner_kind: str
    owner_id: UUID | None
    due_at: datetime
    waiting: int


async def due_owners(
    conn: asyncpg.Connection,
    now: datetime,
    group_wait: timedelta,
    quick_wait: timedelta,
    full_batch: int,
) -> list[DueOwner]:
    """Every page owner with items waiting at ``now`` (deferred ones aside), soonest due first,
    read as the application role with no workspace (its own transaction)."""
    async with conn.transaction():
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        rows = await conn.fetch(Q["due_owners"], now, group_wait, quick_wait, full_batch)
    return [DueOwner(**dict(row)) for row in rows]
