"""Helpers for tests of the Dreamer's pass: items waiting as the intake stores them, readers
of the tests' own, and a pass run by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from db.pool import begin_workspace
from resolvers.common import clock
from resolvers.common.principals import principal_for_token
from resolvers.memory.dreamer.messages import MessageInput, record_message
from resolvers.memory.dreamer.passes import PassReport, PassSettings, run_due, run_pass
from resolvers.memory.dreamer.reader import Batch, ReaderAnswer, Usage
from resolvers.memory.dreamer.rules import answer
from tests.factories import Workspace


async def said(
    pool: asyncpg.Pool,
    ws: Workspace,
    who: str,
    text: str,
    at: datetime,
    *,
    conversation: str = "c1",
    scope: str | None = None,
    attached: str | None = None,
) -> UUID | None:
    """A person's message, recorded by the intake at ``at`` (the clock stood there): its item,
    or None when it is none."""
    clock.set_clock(lambda: at)
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens[who])
        assert principal is not None
        given = MessageInput(
            conversation, "user", text, attached_record_id=attached, at=at, scope=scope
        )
        recorded = await record_message(conn, principal, given)
    return recorded.item.id if recorded.item is not None else None


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
