"""The weekly removal (issue 11, item 3; seed 000 "Weekly removal"): every Monday, code alone
(no reader, no model, nothing spent), each workspace's souvenirs whose end date has passed,
contexte souvenirs past their review date, souvenirs whose source is gone and, on a member's
profile, those whose source that member can no longer open, are removed; a page left empty is
deleted (trashed, restorable). The rules of which line goes are one SQL query
(db/queries/removal.sql ``candidates``); what a page keeps is ``weekly.plan_page``.

One transaction per workspace, under the workspace's removal lock: the candidates of the whole
workspace are found in one statement, only the pages losing a line are locked (in id order, as
a pass locks its pages), looked at again under the lock and written, in a few statements per
CHUNK_PAGES pages; each gets one version by ``REMOVAL_ACTOR``. The run is recorded in
memory_cleanups, one row per audience holding pages (a member's profile: that member's; every
other page: the workspace's), with every change and its reason; a workspace whose removal ran
this Monday is not run again that day."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import cast
from uuid import UUID, uuid4

import asyncpg

from db import memory, removal
from db.pool import begin_workspace
from db.removal import AudienceRow, CandidateRow, RemovedRow, RunRow
from resolvers.memory.cleanup import REMOVAL_ACTOR
from resolvers.memory.cleanup.weekly import PAGE_EMPTY, PagePlan, day_of, is_monday, plan_page
from resolvers.memory.cleanup.weekly import review_before as review_cutoff
from resolvers.memory.writing import next_version

log = logging.getLogger("skillmem.removal")

# The pages losing a souvenir are locked, read and written this many at a time (each statement
# stays short and its arrays small, whatever the workspace).
CHUNK_PAGES = 2_000


@dataclass(frozen=True, slots=True)
class RemovalReport:
    """What one workspace's Monday removal did: its audiences (a run each), the pages it read,
    the souvenirs it removed, the pages it deleted; or why it did nothing."""

    workspace_id: UUID
    audiences: int = 0
    pages_read: int = 0
    lines_removed: int = 0
    pages_deleted: int = 0
    note: str = ""


async def run_removal(
    pool: asyncpg.Pool, now: datetime, workspaces: Collection[UUID] | None = None
) -> list[RemovalReport]:
    """On a Monday (UTC), run the removal of every workspace holding pages whose removal has
    not run that Monday (only those of ``workspaces`` when given); on any other day nothing."""
    if not is_monday(now):
        return []
    start, end = day_of(now)
    async with pool.acquire() as proxy:
        due = await removal.due_workspaces(cast(asyncpg.Connection, proxy), start, end)
    if workspaces is not None:
        due = [workspace for workspace in due if workspace in workspaces]
    return [await _isolated(pool, workspace, now) for workspace in due]


async def _isolated(pool: asyncpg.Pool, workspace_id: UUID, now: datetime) -> RemovalReport:
    """``remove_in_workspace``, whose failure (the database's, a bug) is logged and keeps no
    other workspace waiting: nothing of it was written, the next Monday hour runs it again."""
    try:
        return await remove_in_workspace(pool, workspace_id, now)
    except Exception as error:  # noqa: BLE001 - one workspace's failure never stops the others
        log.exception("the Monday removal of workspace %s failed", workspace_id)
        return RemovalReport(workspace_id, note=f"failed ({type(error).__name__})")


async def remove_in_workspace(
    pool: asyncpg.Pool, workspace_id: UUID, now: datetime
) -> RemovalReport:
    """Monday ``now``'s removal of one workspace, in one transaction; nothing when it ran that
    Monday already or runs elsewhere right now."""
    async with pool.acquire() as proxy:
        return await remove_on(cast(asyncpg.Connection, proxy), workspace_id, now)


async def remove_on(conn: asyncpg.Connection, workspace_id: UUID, now: datetime) -> RemovalReport:
    """``remove_in_workspace`` on the caller's connection (the demo's, inside its own
    transaction: then a savepoint)."""
    if not is_monday(now):
        return RemovalReport(workspace_id, note="not a Monday")
    started = time.monotonic()
    start, end = day_of(now)
    async with conn.transaction():
        await begin_workspace(conn, workspace_id)
        if not await removal.take_workspace(conn):
            return RemovalReport(workspace_id, note="running elsewhere")
        if await removal.ran_between(conn, start, end):
            return RemovalReport(workspace_id, note="ran already this Monday")
        audiences = await removal.audiences(conn)
        plans = await _remove(conn, workspace_id, now)
        finished = now + timedelta(seconds=time.monotonic() - started)
        await _record(conn, audiences, plans, now, finished)
    return RemovalReport(
        workspace_id,
        audiences=len(audiences),
        pages_read=sum(audience.pages_read for audience in audiences),
        lines_removed=sum(len(plan.removed) for plan in plans),
        pages_deleted=sum(plan.emptied for plan in plans),
    )


async def _remove(conn: asyncpg.Connection, workspace_id: UUID, now: datetime) -> list[PagePlan]:
    """Find the candidates of the whole workspace in one statement, then plan and write the
    pages losing a souvenir CHUNK_PAGES at a time, in id order; what was done to each."""
    today = now.astimezone(UTC).date()
    before = review_cutoff(today)
    found = await removal.candidates(conn, today, before, None)
    page_ids = sorted({candidate.page_id for candidate in found})
    plans: list[PagePlan] = []
    for first in range(0, len(page_ids), CHUNK_PAGES):
        chunk = await _plans(conn, today, before, page_ids[first : first + CHUNK_PAGES])
        await _write(conn, workspace_id, chunk, now)
        plans.extend(chunk)
    return plans


async def _plans(
    conn: asyncpg.Connection, today: date, before: date, page_ids: Sequence[UUID]
) -> list[PagePlan]:
    """What the removal does to these pages: locked, their candidates found again (a person
    or a pass may have written them meanwhile), and planned on their lines as stored."""
    await removal.lock_pages(conn, page_ids)
    found = await removal.candidates(conn, today, before, page_ids)
    taken: dict[UUID, dict[str, CandidateRow]] = {}
    for candidate in found:
        taken.setdefault(candidate.page_id, {})[candidate.key] = candidate
    if not taken:
        return []
    plans = []
    for page in await removal.stored_pages(conn, sorted(taken)):
        plan = plan_page(page, taken.get(page.id, {}))
        if plan is not None:
            plans.append(plan)
    return plans


async def _write(
    conn: asyncpg.Connection, workspace_id: UUID, plans: Sequence[PagePlan], now: datetime
) -> None:
    """Delete the removed lines (every line of an emptied page) and give each page its
    version: 'modified', or 'deleted' for an emptied page, which goes to the trash."""
    if not plans:
        return
    removed = [(plan.page_id, c.key) for plan in plans if not plan.emptied for c in plan.removed]
    emptied = [plan.page_id for plan in plans if plan.emptied]
    await removal.delete_lines(conn, removed, emptied)
    versions = [
        next_version(
            workspace_id,
            plan.page_id,
            plan.lines,
            REMOVAL_ACTOR,
            "deleted" if plan.emptied else "modified",
            now,
            trashed=plan.emptied,
        )
        for plan in plans
    ]
    await memory.add_versions(conn, versions)


async def _record(
    conn: asyncpg.Connection,
    audiences: Sequence[AudienceRow],
    plans: Sequence[PagePlan],
    started: datetime,
    finished: datetime,
) -> None:
    """One run per audience holding pages, and every change with its reason."""
    read = {audience.member_id: audience.pages_read for audience in audiences}
    removed: Counter[UUID | None] = Counter()
    deleted: Counter[UUID | None] = Counter()
    planned: Counter[UUID | None] = Counter()
    for plan in plans:
        removed[plan.audience] += len(plan.removed)
        deleted[plan.audience] += plan.emptied
        planned[plan.audience] += 1
    # A profile made between the audiences' count and the scan: its run all the same.
    for audience, pages in planned.items():
        read.setdefault(audience, pages)
    run_ids = {audience: uuid4() for audience in read}
    runs = [
        RunRow(run_id, audience, read[audience], removed[audience], deleted[audience])
        for audience, run_id in run_ids.items()
    ]
    changes: list[RemovedRow] = []
    for plan in plans:
        run_id = run_ids[plan.audience]
        changes.extend(
            RemovedRow(run_id, plan.page_id, "removed", c.reason, c.key, c.text)
            for c in plan.removed
        )
        if plan.emptied:
            changes.append(RemovedRow(run_id, plan.page_id, "page_deleted", PAGE_EMPTY))
    await removal.insert_runs(conn, runs, started, finished)
    await removal.insert_changes(conn, changes, started)
