"""What `skillmem dreamer run [--now TIME]` does (dreamer_command.py parses it): every pass due
at TIME run to completion, here and now, without the queue (for operators and tests); one line
per pass and a total."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from db.pool import create_pool
from gateway.app import database_url, prepare_database, request_dsn
from gateway.worker.config import pass_settings
from gateway.worker.periodic import run_all
from gateway.worker.reports import counts, pass_line
from resolvers.common import clock
from resolvers.memory.dreamer import passes
from resolvers.memory.dreamer.passes import PassReport

if TYPE_CHECKING:
    from gateway.settings import Settings


async def dreamer_run(at: datetime | None, settings: Settings) -> int:
    """Stand the clock at ``--now`` (or the current time) for the run, run memory's periodic
    jobs at that time (the hourly mail job, the Monday removal, due consolidations), then every
    pass due then (``passes.run_due``); print what each did."""
    now = at or clock.now()
    dsn, _server = await database_url(settings)
    await prepare_database(dsn)
    pool = await create_pool(request_dsn(settings, dsn), min_size=1, max_size=4)
    clock.set_clock(lambda: now)
    try:
        periodic = await run_all(pool, now, pass_settings(settings))
        reports = await passes.run_due(pool, now, pass_settings(settings))
    finally:
        clock.set_clock(None)
        await pool.close()
    for line in [*periodic, *report_lines(reports, now)]:
        print(line)
    return 0


def report_lines(reports: Sequence[PassReport], now: datetime) -> list[str]:
    """One line per pass, then the total."""
    lines = [pass_line(report) for report in reports]
    plural = "" if len(reports) == 1 else "es"
    lines.append(f"{len(reports)} pass{plural} due at {now.isoformat()}: {counts(reports)}")
    return lines
