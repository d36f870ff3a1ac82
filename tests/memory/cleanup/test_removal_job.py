"""The Monday removal as the worker and `skillmem dreamer run` run it: its cron schedule, no
reader ever called, a line per workspace; statements that do not grow with the pages; a line
the Dreamer confirmed since is kept."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import asyncpg
import pytest

from db.migrate import apply_migrations
from db.pool import connect, create_pool
from gateway.cli import dreamer
from gateway.cli.main import parse
from gateway.settings import Settings
from gateway.worker.periodic import REMOVAL_CRON, REMOVAL_JOB, periodic_jobs, weekly_removal
from resolvers.memory.cleanup.removal import remove_in_workspace
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.dreamer.reader import Batch, ReaderAnswer
from tests.factories import TRANSACTION_CONTROL, company, local, logging_pool, make_workspace
from tests.memory.cleanup.removal_world import MONDAY, SUNDAY, kept, line, page_with


class FailingReader:
    """A reader that fails the test if anything calls it."""

    def __init__(self) -> None:
        self.calls = 0

    async def read(self, batch: Batch) -> ReaderAnswer:
        self.calls += 1
        raise AssertionError("the weekly removal called a reader")


def test_the_removal_is_a_periodic_job_of_every_monday_hour():
    [job] = [job for job in periodic_jobs() if job.name == REMOVAL_JOB]
    assert job.run is weekly_removal
    # Minute 5 of each hour, Mondays only: a failed or missed run is made the same day.
    assert REMOVAL_CRON == "5 * * * 1"


async def test_the_job_runs_on_mondays_with_no_reader_and_says_what_it_did(new_database, capsys):
    # A database of its own: the job runs every workspace due.
    url = str(await new_database())
    conn = await connect(url)
    await apply_migrations(conn)
    await conn.close()
    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        ws = await make_workspace(pool, "Job")
        acme = local(ws, await company(pool, ws, "Acme"))
        page = await page_with(pool, ws, "record", acme, [line("ended", until=SUNDAY), line("x")])
        reader = FailingReader()
        settings = PassSettings(reader=reader, reader_name="failing")
        assert await weekly_removal(pool, MONDAY + timedelta(days=1), settings) == []
        assert await kept(pool, ws, page) == ["ended", "x"]
        assert await weekly_removal(pool, MONDAY, settings) == [
            f"weekly removal, workspace {ws.id}: 1 audiences, 1 pages read, 1 souvenirs"
            " removed, 0 pages deleted"
        ]
        assert await kept(pool, ws, page) == ["x"] and reader.calls == 0
        # `skillmem dreamer run --now TIME` runs it too, at that time.
        await page_with(pool, ws, "workspace", None, [line("ends", until=MONDAY.date()), line("y")])
        now = parse(["dreamer", "run", "--now", "2026-11-09T10:00:00Z"])["now"]
        assert await dreamer.dreamer_run(now, Settings(database_url=url)) == 0
        first, *_ = capsys.readouterr().out.splitlines()
        assert first == (
            f"weekly removal, workspace {ws.id}: 1 audiences, 2 pages read, 1 souvenirs removed,"
            " 0 pages deleted"
        )
    finally:
        await pool.close()


@pytest.fixture(scope="module")
async def logged(dsn: str) -> AsyncIterator[tuple[asyncpg.Pool, list[str]]]:
    """A pool as the service runs it (its login role), whose one connection logs every
    statement it sends."""
    pool, statements = await logging_pool(dsn)
    yield pool, statements
    await pool.close()


def _data(statements: list[str]) -> list[str]:
    return [s for s in statements if not s.strip().upper().startswith(TRANSACTION_CONTROL)]


async def test_the_statements_do_not_grow_with_the_pages(pool, ws, logged):
    logged_pool, statements = logged
    companies = [local(ws, await company(pool, ws, f"Company {n}")) for n in range(30)]

    async def pages(numbers: range, ended: int) -> None:
        """Pages on these companies, one in ``ended`` losing a line (an emptied one)."""
        for n in numbers:
            lines = [line("stays")] if n % ended else [line("ended", until=SUNDAY)]
            await page_with(pool, ws, "record", companies[n], lines)

    # The connection's first run also learns the types its statements use.
    await pages(range(0, 2), 1)
    await remove_in_workspace(logged_pool, ws.id, MONDAY)
    await pages(range(2, 6), 2)
    statements.clear()
    first = await remove_in_workspace(logged_pool, ws.id, MONDAY + timedelta(days=7))
    few = _data(statements)
    assert (first.pages_read, first.lines_removed, first.pages_deleted) == (4, 2, 2)
    # Six times the pages, most with nothing to remove, more that lose a line: the same
    # statements.
    await pages(range(6, 30), 4)
    await page_with(pool, ws, "member", ws.members["member"], [line("x", until=SUNDAY)])
    statements.clear()
    second = await remove_in_workspace(logged_pool, ws.id, MONDAY + timedelta(days=14))
    many = _data(statements)
    assert (second.pages_read, second.lines_removed, second.pages_deleted) == (27, 7, 7)
    assert many == few
    assert len(many) == 12
    # With nothing to remove: no page is locked, read again or written, no change recorded.
    statements.clear()
    third = await remove_in_workspace(logged_pool, ws.id, MONDAY + timedelta(days=21))
    assert third.lines_removed == 0 and len(_data(statements)) == 6
