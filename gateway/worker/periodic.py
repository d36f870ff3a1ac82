"""Memory's periodic jobs (issue 11): the hourly mail job, the Monday removal and the check for
due consolidations; the skills' automatic polish (issue 12, item 4); the dreams asked for
through `/v1/dreams` (issue 14, item 5; the workers also queue a job per dream, queue.py).
Each is a pgqueuer cron schedule, so that one worker among all of them runs it at its time;
`skillmem dreamer run --now TIME` runs every one of them at TIME, before the passes. Each job
decides by itself what is due at the time it is given (and records what it did), so running it
again at the same time does nothing twice."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from gateway.worker.reports import removal_line
from resolvers.memory.cleanup import consolidation, removal
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.mail import exchanges
from resolvers.skills import autopolish
from resolvers.stores import dreaming

log = logging.getLogger("skillmem.worker")

# A job's run: the application pool, the time it runs at, what passes run with (the reader,
# its prices); it answers one line per thing it did, for the log and the command line.
PeriodicRun = Callable[[asyncpg.Pool, datetime, PassSettings], Awaitable[list[str]]]


@dataclass(frozen=True, slots=True)
class Periodic:
    """One periodic job: its pgqueuer entrypoint, its cron expression (UTC), its run."""

    name: str
    cron: str
    run: PeriodicRun


# The Monday removal: each hour of a Monday (UTC), so that a run that failed or was missed
# (a worker restarting at 00:05) is made that same day; each workspace's runs at most once a
# Monday (its runs are recorded), so the later hours find nothing to do.
REMOVAL_JOB = "memory.removal"
REMOVAL_CRON = "5 * * * 1"


async def weekly_removal(pool: asyncpg.Pool, now: datetime, settings: PassSettings) -> list[str]:
    """The Monday removal at ``now`` (nothing on another day): code alone, the passes' reader
    is never called."""
    return [removal_line(report) for report in await removal.run_removal(pool, now)]


def periodic_jobs() -> tuple[Periodic, ...]:
    """Every periodic job, in the order `skillmem dreamer run` runs them (mail first: the
    exchanges it opens are then read by the passes of the same run)."""
    return (
        Periodic(exchanges.JOB_NAME, exchanges.JOB_CRON, open_mail_exchanges),
        Periodic(REMOVAL_JOB, REMOVAL_CRON, weekly_removal),
        Periodic(
            consolidation.CONSOLIDATION_JOB,
            consolidation.CONSOLIDATION_CRON,
            consolidation.run_periodic,
        ),
        Periodic(autopolish.POLISH_JOB, autopolish.POLISH_CRON, autopolish.run_periodic),
        Periodic(dreaming.DREAMS_JOB, dreaming.DREAMS_CRON, dreaming.run_due),
    )


async def open_mail_exchanges(
    pool: asyncpg.Pool, now: datetime, settings: PassSettings
) -> list[str]:
    """The hourly mail job: every workspace's exchanges due at ``now`` opened, each an item."""
    return exchanges.lines(await exchanges.open_due(pool, now))


async def run_all(
    pool: asyncpg.Pool,
    now: datetime,
    settings: PassSettings,
    jobs: Sequence[Periodic] | None = None,
) -> list[str]:
    """Run every periodic job at ``now``, one after the other; their lines, in order."""
    lines: list[str] = []
    for job in periodic_jobs() if jobs is None else jobs:
        lines.extend(await job.run(pool, now, settings))
    return lines
