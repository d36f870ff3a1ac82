"""Items waiting for the Dreamer, inserted as its intake stores them, for the queue's tests
(the worker's and the database's): mail items, which need no source row."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg

from db.pool import begin_workspace

WAITING_ITEM = """
INSERT INTO memory_items (workspace_id, id, kind, owner_kind, owner_id, private_to, payer_kind,
                          payer_id, share_with_team, urgent, said_at, arrived_at)
SELECT app_workspace_id(), gen_random_uuid(), 'mail', $1, $2, NULL, 'workspace', NULL, false,
       $4, COALESCE($3, now()), COALESCE($3, now())
  FROM generate_series(1, $5)
"""


async def add_waiting(
    pool: asyncpg.Pool,
    workspace_id: UUID,
    owner_kind: str = "workspace",
    owner_id: UUID | None = None,
    *,
    arrived_at: datetime | None = None,
    urgent: bool = False,
    count: int = 1,
) -> None:
    """``count`` items waiting for one page owner's pass, arrived at ``arrived_at`` (default:
    the database's now), in a workspace transaction."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, workspace_id)
        await conn.execute(WAITING_ITEM, owner_kind, owner_id, arrived_at, urgent, count)


async def clear_items(pool: asyncpg.Pool, workspace_id: UUID) -> None:
    """Forget every item of a workspace (so no other test's schedule sees them)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, workspace_id)
        await conn.execute("DELETE FROM memory_items WHERE workspace_id = app_workspace_id()")
