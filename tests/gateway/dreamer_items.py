"""Items waiting for the Dreamer, inserted as its intake stores them, for the queue's tests
(the worker's and the database's): mail items, each on an exchange of its own in a shared
mailbox of the tests (a message, its record and its exchange, made in the same statement)."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg

from db.pool import begin_workspace

WAITING_ITEM = """
WITH box AS (
    INSERT INTO mailboxes (workspace_id, id, external_id, kind, name, created_at)
    VALUES (app_workspace_id(), gen_random_uuid(), 'queue-' || gen_random_uuid(), 'shared',
            'Queue tests', now())
    RETURNING id
),
n AS (
    SELECT gen_random_uuid() AS message_id, gen_random_uuid() AS exchange_id,
           COALESCE($3, now()) AS at
      FROM generate_series(1, $5)
),
made AS (
    INSERT INTO records (workspace_id, id, object_id, label, visibility)
    SELECT app_workspace_id(), n.message_id,
           (SELECT id FROM objects WHERE workspace_id = app_workspace_id() AND slug = 'mail'),
           'Queue test', 'workspace'
      FROM n
),
messages AS (
    INSERT INTO mail_messages (workspace_id, id, mailbox_id, external_id, thread_id, filed,
                               category, important, classified_at, from_address, sent_at,
                               subject, text, created_at)
    SELECT app_workspace_id(), n.message_id, box.id, n.message_id::text, n.message_id::text,
           'received', 'direct', true, n.at, 'queue@tests.example', n.at, 'Queue test',
           'Queue test.', n.at
      FROM n, box
),
exchanges AS (
    INSERT INTO mail_exchanges (workspace_id, id, mailbox_id, thread_id, opening_id, first_id,
                                first_at, last_id, last_at, quiet_since, opened_at)
    SELECT app_workspace_id(), n.exchange_id, box.id, n.message_id::text, n.message_id,
           n.message_id, n.at, n.message_id, n.at, n.at, n.at
      FROM n, box
)
INSERT INTO memory_items (workspace_id, id, kind, exchange_id, owner_kind, owner_id, private_to,
                          payer_kind, payer_id, share_with_team, urgent, said_at, arrived_at)
SELECT app_workspace_id(), gen_random_uuid(), 'mail', n.exchange_id, $1, $2, NULL, 'workspace',
       NULL, false, $4, n.at, n.at
  FROM n
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
