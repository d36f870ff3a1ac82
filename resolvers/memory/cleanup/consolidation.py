"""Consolidation (issue 11, item 4; DESIGN §6 "Consolidation"): every audience due is tidied
by the reader's second operation, then code decides what is applied (``tidying``).

An audience is one member's private pages (their profile) or the workspace's (every other live
page). Which are due, and why, is ``consolidation_due`` (migration 0017): 'rules' once for
each audience never consolidated under ``CONSOLIDATION_RULES_VERSION``, 'written' once
``WRITTEN_CHARS`` were written to it since its last consolidation, 'week' a ``WEEK`` after it
when anything was written since; never twice within ``MIN_INTERVAL`` (a run whose reader
failed counts, so that it is not retried in a loop), never while its payer (the member, or the
workspace) is at its allowance this month or the workspace has no AI credits: it is due again
as soon as the allowance is raised or the month turns.

One run, like a Dreamer pass: (1) in one transaction the audience is checked again (a run
that started meanwhile, the allowance) and at most ``MAX_PAGES`` pages read, those written
since or due for review first; (2) the reader, with no transaction open, asked in parts of
at most a Dreamer batch's characters (``asking``: a part that fails ends it, what was answered
before is applied, and the run is recorded as one whose reader failed); (3) in one
transaction the pages it proposes changes for are locked and read again, a page changed
meanwhile left for the next time, each page changed stored as one version by
``CONSOLIDATION_ACTOR``, the run recorded with its changes and charged to its payer. Should
(3) fail (the database, a bug), nothing of it is applied, and the run is recorded in a
transaction of its own as one whose reader failed (rules version 0), charged what the reader
spent: it waits ``MIN_INTERVAL`` like any run, so that a model paid is not asked again at every
quarter hour, beyond any allowance. One run
per audience at a time anywhere (an advisory lock named after it); a Dreamer pass writing the
same pages meanwhile is safe without it: both lock a page before writing it, and a page whose
version moved since it was read is not consolidated.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import cast
from uuid import UUID

import asyncpg

from db import consolidation
from db.cleanups import CleanupRow
from db.consolidation import DueAudience, Schedule
from db.pool import begin_workspace
from resolvers.common import clock
from resolvers.memory.cleanup.applying import NO_RULES, failed, write
from resolvers.memory.cleanup.asking import NOTHING_ASKED, ask
from resolvers.memory.cleanup.rereading import Reading, read
from resolvers.memory.dreamer import guard
from resolvers.memory.dreamer.consolidating import Consolidator
from resolvers.memory.dreamer.loading import NO_CONSOLIDATION, consolidator_of
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.dreamer.reader import Usage
from resolvers.memory.settings import (
    DEFAULT_PERSON_MONTHLY_LIMIT_USD,
    DEFAULT_TENANT_MONTHLY_LIMIT_USD,
)

log = logging.getLogger("skillmem.consolidation")

# Raised whenever what consolidation does changes enough that every audience should be
# consolidated once more under the new rules.
CONSOLIDATION_RULES_VERSION = 1
WRITTEN_CHARS = 4_000
MIN_INTERVAL = timedelta(hours=6)
WEEK = timedelta(days=7)
MAX_PAGES = 200
# The periodic job (gateway/worker/periodic.py): due consolidations, every quarter hour.
CONSOLIDATION_JOB = "memory.consolidation"
CONSOLIDATION_CRON = "*/15 * * * *"


def schedule() -> Schedule:
    """What makes an audience due, from this module's constants and the default allowances."""
    return Schedule(
        rules_version=CONSOLIDATION_RULES_VERSION,
        written_chars=WRITTEN_CHARS,
        min_interval=MIN_INTERVAL,
        week=WEEK,
        person_limit=Decimal(DEFAULT_PERSON_MONTHLY_LIMIT_USD),
        tenant_limit=Decimal(DEFAULT_TENANT_MONTHLY_LIMIT_USD),
    )


@dataclass(frozen=True, slots=True)
class ConsolidationReport:
    """What one audience's consolidation did: whether it ran (and was recorded), the pages it
    read, the lines it changed, the pages it emptied, what it cost, and why it did less."""

    audience: DueAudience
    ran: bool = False
    pages_read: int = 0
    lines_changed: int = 0
    pages_deleted: int = 0
    cost_usd: Decimal = Decimal(0)
    note: str = ""


async def due(pool: asyncpg.Pool, now: datetime) -> list[DueAudience]:
    """Every audience due at ``now`` across workspaces (one statement)."""
    async with pool.acquire() as proxy:
        return await consolidation.due_audiences(cast(asyncpg.Connection, proxy), now, schedule())


async def run_due(
    pool: asyncpg.Pool,
    now: datetime,
    settings: PassSettings,
    workspaces: Collection[UUID] | None = None,
) -> list[ConsolidationReport]:
    """Consolidate every audience due at ``now`` (only those of ``workspaces`` when given),
    one after the other; nothing when the reader cannot consolidate."""
    consolidator = consolidator_of(settings.reader)
    if consolidator is None:
        return []
    audiences = await due(pool, now)
    if workspaces is not None:
        audiences = [a for a in audiences if a.workspace_id in workspaces]
    return [await _isolated(pool, a, settings, consolidator) for a in audiences]


async def _isolated(
    pool: asyncpg.Pool, audience: DueAudience, settings: PassSettings, consolidator: Consolidator
) -> ConsolidationReport:
    """``consolidate``, whose failure (the database's, a bug) is logged and keeps no other
    audience waiting. A failure before the reader was asked wrote nothing: it is due again at
    the next check; one after (writing what it answered) is recorded by ``consolidate``
    itself, charged, and waits ``MIN_INTERVAL``; only when even that cannot be recorded
    (the database gone) is nothing left of it."""
    try:
        return await consolidate(pool, audience, settings, consolidator)
    except Exception as error:  # noqa: BLE001 - one audience's failure never stops the others
        log.exception("consolidation of %s failed", audience_key(audience))
        return ConsolidationReport(audience, note=f"failed ({type(error).__name__})")


async def run_periodic(pool: asyncpg.Pool, now: datetime, settings: PassSettings) -> list[str]:
    """The periodic job: every due consolidation at ``now``, one line each (none when none is
    due); one line saying so when the reader cannot consolidate."""
    if consolidator_of(settings.reader) is None:
        return [NO_CONSOLIDATION.format(name=settings.reader_name)]
    return [report_line(report) for report in await run_due(pool, now, settings)]


def audience_key(audience: DueAudience) -> str:
    """The name of one audience's consolidation: its lock's (ids only)."""
    who = audience.audience_id or "-"
    return f"consolidation:{audience.workspace_id}:{audience.audience_kind}:{who}"


async def consolidate(
    pool: asyncpg.Pool, audience: DueAudience, settings: PassSettings, consolidator: Consolidator
) -> ConsolidationReport:
    """One audience's consolidation to completion under its lock; another run of the same
    audience anywhere: this one does nothing."""
    async with guard.named_lock(pool, audience_key(audience)) as taken:
        if not taken:
            return ConsolidationReport(audience, note="running elsewhere")
        async with pool.acquire() as proxy:
            conn = cast(asyncpg.Connection, proxy)
            return await _consolidate(conn, audience, settings, consolidator)


async def _consolidate(
    conn: asyncpg.Connection,
    audience: DueAudience,
    settings: PassSettings,
    consolidator: Consolidator,
) -> ConsolidationReport:
    started = clock.now()
    async with conn.transaction():
        await begin_workspace(conn, audience.workspace_id)
        reading = await read(conn, audience, started, MAX_PAGES)
    if not isinstance(reading, Reading):
        return ConsolidationReport(audience, note=reading)
    if not reading.changeable:
        # Nothing a reader could change (no page, or only ✍ lines): recorded, not read.
        asked = NOTHING_ASKED
    else:
        asked = await ask(consolidator, reading.batch)
        if asked.error is not None:
            log.warning("consolidation of %s failed: %s", audience_key(audience), asked.error)
    rules = NO_RULES if asked.failure else CONSOLIDATION_RULES_VERSION
    try:
        async with conn.transaction():
            await begin_workspace(conn, audience.workspace_id)
            recorded = await write(
                conn, reading, settings, asked.answer, started, rules, asked.failure
            )
    except Exception as error:  # noqa: BLE001 - the reader was paid: the run is recorded
        log.exception("consolidation of %s failed writing", audience_key(audience))
        why = f"writing failed ({type(error).__name__}), nothing applied"
        return await _failed(conn, reading, settings, started, asked.answer.usage, why)
    return _report(audience, recorded)


async def _failed(
    conn: asyncpg.Connection,
    reading: Reading,
    settings: PassSettings,
    started: datetime,
    usage: Usage,
    why: str,
) -> ConsolidationReport:
    """A run that applied nothing, recorded and charged what its reader spent in a
    transaction of its own: not due again for ``MIN_INTERVAL``, so that a reader paid is not
    asked again at every check."""
    async with conn.transaction():
        await begin_workspace(conn, reading.audience.workspace_id)
        recorded = await failed(conn, reading, settings, started, usage, why)
    return _report(reading.audience, recorded)


def _report(audience: DueAudience, row: CleanupRow) -> ConsolidationReport:
    return ConsolidationReport(
        audience,
        ran=True,
        pages_read=row.pages_read,
        lines_changed=row.lines_changed,
        pages_deleted=row.pages_deleted,
        cost_usd=row.cost_usd,
        note=row.note,
    )


def report_line(report: ConsolidationReport) -> str:
    """How one consolidation is told on the command line and in the log."""
    a = report.audience
    who = f"member {a.audience_id}" if a.audience_kind == "member" else "workspace"
    line = (
        f"consolidation of workspace {a.workspace_id}, {who} ({a.trigger}): "
        f"pages read {report.pages_read}, lines changed {report.lines_changed}, "
        f"pages deleted {report.pages_deleted}; cost ${report.cost_usd}"
    )
    return f"{line} ({report.note})" if report.note else line
