"""Helpers for tests of the Dreamer's pass: items waiting as the intake stores them, readers
of the tests' own, and a pass run by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from db.pool import begin_workspace
from resolvers.memory.dreamer.passes import PassReport, PassSettings, run_due, run_pass
from resolvers.memory.dreamer.reader import Batch, ReaderAnswer, Usage
from resolvers.memory.dreamer.rules import answer
from tests.factories import Workspace

SAY = """
WITH c AS (
    INSERT INTO conversations AS c (workspace_id, id, external_id, person_id, agent_id, scope,
                                    created_at, updated_at)
    VALUES (app_workspace_id(), gen_random_uuid(), $2, $1, NULL, $6, $4, $4)
    ON CONFLICT (workspace_id, person_id, external_id)
    DO UPDATE SET updated_at = EXCLUDED.updated_at
    RETURNING id),
m AS (
    INSERT INTO conversation_messages (workspace_id, id, conversation_id, external_id,
                                       speaker_kind, speaker_id, role, text, attached_record_id,
                                       said_at, created_at)
    SELECT app_workspace_id(), gen_random_uuid(), c.id, gen_random_uuid()::text, 'member', $1,
           'user', $3, $7, $4, $4 FROM c RETURNING id)
INSERT INTO memory_items (workspace_id, id, kind, message_id, owner_kind, owner_id, private_to,
                         payer_kind, payer_id, share_with_team, urgent, said_at, arrived_at)
SELECT app_workspace_id(), gen_random_uuid(), 'conversation', m.id, 'member', $1,
       CASE WHEN $6 = 'private' THEN $1 END, 'member', $1, $5, $8, $4, $4 FROM m
RETURNING id
"""


async def said(
    pool: asyncpg.Pool,
    ws: Workspace,
    who: str,
    text: str,
    at: datetime,
    *,
    conversation: str = "c1",
    share: bool = True,
    scope: str = "private",
    attached: UUID | None = None,
    urgent: bool = True,
) -> UUID:
    """A person's message waiting for their pass, as the intake stores it."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        item: UUID = await conn.fetchval(
            SAY, ws.members[who], conversation, text, at, share, scope, attached, urgent
        )
    return item


class FixedReader:
    """A reader of the tests' own: answers with ``make(batch)`` (default: the rules reader)
    and reports ``usage``; counts its calls; may wait on ``gate`` first."""

    def __init__(
        self,
        make: Callable[[Batch], ReaderAnswer] | None = None,
        usage: Usage | None = None,
    ) -> None:
        self.make = make or answer
        self.usage = usage or Usage()
        self.calls: list[Batch] = []
        self.before: Callable[[], object] | None = None
        self.called = asyncio.Event()

    async def read(self, batch: Batch) -> ReaderAnswer:
        self.calls.append(batch)
        self.called.set()
        if self.before is not None:
            waited = self.before()
            if hasattr(waited, "__await__"):
                await waited  # type: ignore[misc]
        found = self.make(batch)
        return ReaderAnswer(learnings=found.learnings, usage=self.usage)


async def dream(
    pool: asyncpg.Pool, ws: Workspace, now: datetime, settings: PassSettings | None = None
) -> list[PassReport]:
    """Every pass of the workspace due at ``now``, run to completion."""
    return await run_due(pool, now, settings or PassSettings(), workspaces={ws.id})


async def lines_of(
    pool: asyncpg.Pool, ws: Workspace, about_kind: str, about: UUID | None
) -> list[asyncpg.Record]:
    """The souvenir lines of the live page about something, in order."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        return await conn.fetch(
            "SELECT l.* FROM memory_lines l JOIN memory_pages p"
            " ON p.workspace_id = l.workspace_id AND p.id = l.page_id"
            " WHERE p.trashed_at IS NULL AND p.about_kind = $1"
            " AND COALESCE(p.member_id, p.agent_id, p.routine_id, p.subject_id)"
            " IS NOT DISTINCT FROM $2"
            " AND l.kind = 'souvenir' ORDER BY l.position",
            about_kind,
            about,
        )


async def items_of(
    pool: asyncpg.Pool, ws: Workspace, item_ids: Sequence[UUID]
) -> list[asyncpg.Record]:
    """Items with their verdicts, in the order asked."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rows = await conn.fetch(
            "SELECT i.*, COALESCE((SELECT jsonb_agg(to_jsonb(v) ORDER BY v.number)"
            " FROM memory_verdicts v WHERE v.workspace_id = i.workspace_id AND v.item_id = i.id),"
            " '[]') AS verdicts FROM memory_items i WHERE i.id = ANY ($1)",
            list(item_ids),
        )
    by_id = {row["id"]: row for row in rows}
    return [by_id[item] for item in item_ids]


__all__ = ["FixedReader", "dream", "items_of", "lines_of", "run_pass", "said", "uuid4"]
