"""Memory's periodic jobs on the real queue: each is a pgqueuer cron schedule that one worker
among several runs at each of its times, a failing run is logged and run again at the next
time, and `skillmem dreamer run` runs every job at the time it is given."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import asyncpg
import pytest

from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from gateway.worker import periodic
from gateway.worker.periodic import Periodic, run_all
from gateway.worker.runner import Worker
from resolvers.memory.dreamer.passes import PassSettings
from tests.gateway.worker_kit import DUE_AT_ONCE, FAST, eventually, running

# pgqueuer's cron takes a sixth field, the seconds: every second here.
EVERY_SECOND = "* * * * * *"


@pytest.fixture
async def qdsn(new_database) -> str:  # type: ignore[no-untyped-def]
    url = await new_database()
    conn = await connect(url)
    await apply_migrations(conn)
    await conn.close()
    return str(url)


@pytest.fixture
async def app_pool(qdsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(api_dsn(qdsn), min_size=1, max_size=6)
    yield pool
    await pool.close()


class Ticks:
    """A periodic job's runs: which worker ran it at which time; it fails when told."""

    def __init__(self, failing: int = 0) -> None:
        self.runs: list[tuple[str, datetime]] = []
        self.failing = failing

    def job(self, worker_name: str) -> Periodic:
        async def run(pool: asyncpg.Pool, now: datetime, settings: PassSettings) -> list[str]:
            assert await pool.fetchval("SELECT 1") == 1
            self.runs.append((worker_name, now))
            if self.failing > 0:
                self.failing -= 1
                raise RuntimeError("the periodic job failed")
            return [f"ran at {now.isoformat()}"]

        return Periodic("test.tick", EVERY_SECOND, run)


def _worker(qdsn: str, pool: asyncpg.Pool, job: Periodic) -> Worker:
    return Worker(qdsn, pool, DUE_AT_ONCE, FAST, periodic=(job,))


async def test_two_workers_run_a_periodic_job_once_at_each_of_its_times(qdsn, app_pool):
    ticks = Ticks()
    first = _worker(qdsn, app_pool, ticks.job("first"))
    second = _worker(qdsn, app_pool, ticks.job("second"))
    async with running(first, second):
        await eventually(lambda: len(ticks.runs) >= 3, within=20)
    seconds = [math.floor(now.timestamp()) for _, now in ticks.runs]
    # Each second's time was taken by one worker only.
    assert len(seconds) == len(set(seconds)), ticks.runs


async def test_a_failing_periodic_job_runs_again_at_its_next_time(qdsn, app_pool):
    ticks = Ticks(failing=1)
    only = _worker(qdsn, app_pool, ticks.job("only"))
    async with running(only):
        await eventually(lambda: len(ticks.runs) >= 2, within=20)
        assert only.queue_manager is not None  # the worker kept running
    assert ticks.failing == 0


async def test_dreamer_run_runs_every_periodic_job_at_the_time_given(app_pool):
    order: list[str] = []

    def job(name: str) -> Periodic:
        async def run(pool: asyncpg.Pool, now: datetime, settings: PassSettings) -> list[str]:
            order.append(name)
            return [f"{name} at {now:%H:%M}"]

        return Periodic(name, "0 * * * *", run)

    at = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    lines = await run_all(app_pool, at, DUE_AT_ONCE, [job("a"), job("b")])
    assert order == ["a", "b"]
    assert lines == ["a at 09:00", "b at 09:00"]


def test_every_periodic_job_has_a_valid_cron_and_a_unique_name():
    from croniter import croniter

    jobs = periodic.periodic_jobs()
    assert len({job.name for job in jobs}) == len(jobs)
    assert all(croniter.is_valid(job.cron) for job in jobs)
