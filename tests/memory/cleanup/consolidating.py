"""Helpers of the consolidation tests: pages written at a time, consolidation run at a time
with a reader, and what it left (runs, changes, versions, lines)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

import asyncpg

from db import memory
from db.pool import begin_workspace
from resolvers.common import clock, ids
from resolvers.memory.cleanup import consolidation
from resolvers.memory.cleanup.consolidation import ConsolidationReport
from resolvers.memory.dreamer.consolidating import (
    ConsolidationAnswer,
    ConsolidationBatch,
    PageProposals,
)
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.dreamer.reader import Usage
from resolvers.memory.dreamer.rules import RulesReader
from resolvers.memory.dreamer.spend import Prices
from tests.factories import Workspace, make_page, write_page

# A Tuesday.
T0 = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
SECOND = timedelta(seconds=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def souvenir(
    text: str, type_: str = "relation", *, author: str = "Claire", day: str = "2026-10-02"
) -> str:
    """A souvenir line as the workspace writes it (a contexte carries its review date)."""
    line = f"- {text} — {author}, {day} [{type_}]"
    if type_ == "contexte":
        year, month, rest = day.split("-")
        shifted = int(month) + 6
        review = f"{int(year) + (shifted - 1) // 12}-{(shifted - 1) % 12 + 1:02d}-{rest}"
        line += f" (revoir {review})"
    return line


async def page_at(
    pool: asyncpg.Pool,
    ws: Workspace,
    at: datetime,
    about_kind: str,
    about: UUID | None,
    lines: list[str],
    name: str = "Page",
) -> str:
    """A page created at ``at`` by the workspace (as the Dreamer writes); its global id."""
    clock.set_clock(lambda: at)
    try:
        return await make_page(pool, ws, about_kind, about, "\n".join(lines), name=name)
    finally:
        clock.set_clock(None)


async def rewrite_at(pool: asyncpg.Pool, ws: Workspace, at: datetime, page: str, lines: list[str]):
    """The workspace rewrites a page at ``at`` (one version)."""
    clock.set_clock(lambda: at)
    try:
        await write_page(pool, ws, page, "\n".join(lines))
    finally:
        clock.set_clock(None)


class Proposing:
    """A reader of the tests' own that consolidates: answers ``make(batch)`` (default: the
    rules reader's), reports ``usage``, keeps the batches it got; may raise ``fail``."""

    def __init__(
        self,
        make: Callable[[ConsolidationBatch], tuple[PageProposals, ...]] | None = None,
        usage: Usage | None = None,
    ) -> None:
        self.make = make
        self.usage = usage or Usage()
        self.batches: list[ConsolidationBatch] = []
        self.fail: Exception | None = None

    async def read(self, batch: Any) -> Any:
        raise AssertionError("consolidation never reads items")

    async def consolidate(self, batch: ConsolidationBatch) -> ConsolidationAnswer:
        self.batches.append(batch)
        if self.fail is not None:
            raise self.fail
        if self.make is None:
            found = (await RulesReader().consolidate(batch)).pages
        else:
            found = self.make(batch)
        return ConsolidationAnswer(pages=found, usage=self.usage)


def settings_of(reader: object | None = None, per_mtok: str = "0") -> PassSettings:
    """Pass settings with ``reader`` (the rules reader by default), input tokens at
    ``per_mtok`` USD a million."""
    return PassSettings(
        reader=reader or RulesReader(),  # type: ignore[arg-type]
        reader_name="test" if reader is not None else "rules",
        prices=Prices(Decimal(per_mtok), Decimal(0)),
    )


async def consolidate_at(
    pool: asyncpg.Pool, ws: Workspace, at: datetime, reader: object | None = None, **more: Any
) -> list[ConsolidationReport]:
    """Every consolidation of the workspace due at ``at`` (the clock stood there)."""
    clock.set_clock(lambda: at)
    try:
        return await consolidation.run_due(pool, at, settings_of(reader, **more), {ws.id})
    finally:
        clock.set_clock(None)


async def due_at(pool: asyncpg.Pool, ws: Workspace, at: datetime) -> list[tuple[Any, ...]]:
    """The workspace's audiences due at ``at``: (kind, id, trigger)."""
    found = await consolidation.due(pool, at)
    return [(a.audience_kind, a.audience_id, a.trigger) for a in found if a.workspace_id == ws.id]


async def fetch(pool: asyncpg.Pool, ws: Workspace, sql: str, *args: Any) -> list[asyncpg.Record]:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rows: list[asyncpg.Record] = await conn.fetch(sql, *args)
    return rows


async def runs(pool: asyncpg.Pool, ws: Workspace) -> list[asyncpg.Record]:
    """The workspace's consolidation runs, oldest first."""
    return await fetch(
        pool,
        ws,
        "SELECT * FROM memory_cleanups WHERE kind = 'consolidation' ORDER BY started_at, id",
    )


async def changes(pool: asyncpg.Pool, ws: Workspace) -> list[tuple[Any, ...]]:
    """Every change of the workspace's consolidations: (change, reason, key, text, new_text,
    new_type), in order."""
    rows = await fetch(
        pool,
        ws,
        "SELECT g.change, g.reason, g.line_key, g.text, g.new_text, g.new_type"
        " FROM memory_cleanup_changes g JOIN memory_cleanups c"
        " ON c.workspace_id = g.workspace_id AND c.id = g.cleanup_id"
        " ORDER BY c.started_at, g.number",
    )
    return [tuple(row) for row in rows]


async def page_row(pool: asyncpg.Pool, ws: Workspace, page: str) -> memory.PageRow:
    """A page as stored."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        row = await memory.page_shown(
            conn, ids.decode(page, "MemoryPage", ws.id), [], None, stored_form=True
        )
    assert row is not None
    return row


async def texts(pool: asyncpg.Pool, ws: Workspace, page: str) -> list[tuple[str, str, bool]]:
    """A page's souvenirs: (text, type, ✍)."""
    row = await page_row(pool, ws, page)
    return [
        (line.text, line.type or "", line.human) for line in row.lines if line.kind == "souvenir"
    ]


async def versions(pool: asyncpg.Pool, ws: Workspace, page: str) -> list[tuple[Any, ...]]:
    """A page's versions: (number, operation, actor kind, actor name), oldest first."""
    rows = await fetch(
        pool,
        ws,
        "SELECT number, operation, actor_kind, actor_name FROM memory_versions"
        " WHERE page_id = $1 ORDER BY number",
        ids.decode(page, "MemoryPage", ws.id),
    )
    return [tuple(row) for row in rows]
