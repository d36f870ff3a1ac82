"""Helpers of the weekly removal's tests: pages holding exactly the lines a test wants (stored
as the workspace writes them, with a version), the removal run on a Monday, and what it left:
lines, versions, runs and changes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from db import identity, memory, records
from db.memory import LineRow
from db.pool import begin_workspace
from resolvers.memory import system
from resolvers.memory.cleanup.removal import RemovalReport, remove_in_workspace, run_removal
from resolvers.memory.system import SYSTEM_ACTOR
from resolvers.memory.writing import new_key, store
from tests.factories import Workspace

# A Monday (UTC), five minutes past midnight, when the cron runs; and the days around it.
MONDAY = datetime(2026, 11, 2, 0, 5, tzinfo=UTC)
TODAY = MONDAY.date()
SUNDAY = date(2026, 11, 1)
RECENT = date(2026, 10, 1)
PLACEHOLDER = "- placeholder — Memory, 2026-01-01 [relation]"


def line(
    text: str,
    *,
    type: str = "relation",
    day: date = RECENT,
    until: date | None = None,
    human: bool = False,
    source: tuple[str, UUID] | None = None,
    about: UUID | None = None,
    author: str = "Memory",
) -> LineRow:
    """A souvenir as stored (``source``: its kind and id)."""
    kind, source_id = source if source is not None else (None, None)
    return LineRow(
        kind="souvenir",
        text=text,
        key=new_key(),
        type=type,
        author=author,
        day=day,
        until=until,
        human=human,
        source_kind=kind,
        source_id=source_id,
        about_id=about,
    )


def heading(text: str) -> LineRow:
    return LineRow(kind="heading", text=text)


def blank() -> LineRow:
    return LineRow(kind="blank", text="")


def mission(text: str) -> LineRow:
    return LineRow(kind="mission", text=text)


async def page_with(
    pool: asyncpg.Pool,
    ws: Workspace,
    about_kind: str,
    about_id: UUID | None,
    lines: Sequence[LineRow],
    name: str = "Page",
) -> UUID:
    """A live page about something holding exactly ``lines`` (its last version holds them
    too), written as the workspace writes; its id."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        page_id = await system.create_page(
            conn, ws.id, about_kind, about_id, name=name, content=PLACEHOLDER
        )
        row = await memory.page_shown(conn, page_id, [], None, stored_form=True, for_update=True)
        assert row is not None
        await store(conn, ws.id, row, list(lines), SYSTEM_ACTOR, "modified")
    return page_id


async def remove(pool: asyncpg.Pool, ws: Workspace, now: datetime = MONDAY) -> RemovalReport:
    """The workspace's removal at ``now``."""
    return await remove_in_workspace(pool, ws.id, now)


async def remove_all(
    pool: asyncpg.Pool, workspaces: Sequence[Workspace], now: datetime = MONDAY
) -> list[RemovalReport]:
    """The removal of these workspaces at ``now`` (through the schedule)."""
    return await run_removal(pool, now, {ws.id for ws in workspaces})


async def fetch(pool: asyncpg.Pool, ws: Workspace, sql: str, *args: Any) -> list[asyncpg.Record]:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rows: list[asyncpg.Record] = await conn.fetch(sql, *args)
    return rows


async def kept(pool: asyncpg.Pool, ws: Workspace, page_id: UUID) -> list[str]:
    """The texts of a page's lines, in order (souvenirs' texts, other lines as written)."""
    rows = await fetch(
        pool, ws, "SELECT text FROM memory_lines WHERE page_id = $1 ORDER BY position", page_id
    )
    return [row["text"] for row in rows]


async def page_state(pool: asyncpg.Pool, ws: Workspace, page_id: UUID) -> asyncpg.Record:
    [row] = await fetch(
        pool, ws, "SELECT version, trashed_at FROM memory_pages WHERE id = $1", page_id
    )
    return row


async def versions(pool: asyncpg.Pool, ws: Workspace, page_id: UUID) -> list[asyncpg.Record]:
    """A page's versions, oldest first."""
    return await fetch(
        pool,
        ws,
        "SELECT number, operation, actor_kind, actor_id, actor_name, lines, created_at"
        " FROM memory_versions WHERE page_id = $1 ORDER BY number",
        page_id,
    )


async def runs(pool: asyncpg.Pool, ws: Workspace) -> list[asyncpg.Record]:
    """The workspace's cleanup runs, the workspace's audience first, then by member."""
    return await fetch(
        pool,
        ws,
        "SELECT * FROM memory_cleanups ORDER BY started_at, audience_id NULLS FIRST",
    )


async def changes(pool: asyncpg.Pool, ws: Workspace) -> list[tuple[str, str, str | None]]:
    """Every change recorded, as (change, reason, text), by run and number."""
    rows = await fetch(
        pool,
        ws,
        "SELECT ch.change, ch.reason, ch.text FROM memory_cleanup_changes ch"
        " JOIN memory_cleanups c ON c.workspace_id = ch.workspace_id AND c.id = ch.cleanup_id"
        " ORDER BY c.started_at, c.audience_id NULLS FIRST, ch.number",
    )
    return [(row["change"], row["reason"], row["text"]) for row in rows]


async def new_member(pool: asyncpg.Pool, ws: Workspace, name: str, role: str = "member") -> UUID:
    """A member with no token, no profile and nothing else pointing to it (so that a test may
    delete it)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        row = await identity.insert_member(
            conn, uuid4(), name, f"{name.lower()}@{ws.name.lower()}.example", ws.roles[role]
        )
    return row.id


async def delete_member(pool: asyncpg.Pool, ws: Workspace, member_id: UUID) -> None:
    """The product has no member removal yet: a deleted member is its row deleted, which this
    test does directly (a member nothing else points to)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await conn.execute("DELETE FROM members WHERE id = $1", member_id)


async def trash(pool: asyncpg.Pool, ws: Workspace, record_id: UUID) -> None:
    """Put a record in the trash (as a person with the right to delete it would)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await records.set_record_trashed(conn, record_id, MONDAY - timedelta(days=3))
