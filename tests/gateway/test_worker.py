"""The Dreamer's workers on the real queue (pgqueuer on PostgreSQL), with a stand-in pass: two
workers run each due owner's pass once and never one owner's twice at once, a pass is queued
once however many schedulers see it, an owner is run once due and not before, a job of nothing
or of an owner run elsewhere runs no pass, and the app runs one worker unless turned off.

Every test has its own database: the workers read the schedule across workspaces."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from pgqueuer.errors import RetryRequested
from pgqueuer.models import Job

from db.dreamer_schedule import DueOwner
from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from gateway.app import create_app
from gateway.observe import metrics
from gateway.settings import Settings
from gateway.worker.queue import (
    PASS_ENTRYPOINT,
    enqueue_passes,
    payload,
    queue_queries,
    schedule_passes,
)
from gateway.worker.runner import MAX_RETRY_DELAY, Worker, WorkerOptions
from resolvers.common import clock
from resolvers.memory.dreamer.batching import BatchTiming
from resolvers.memory.dreamer.guard import owner_key, owner_lock
from resolvers.memory.dreamer.passes import PassReport, PassSettings
from resolvers.memory.dreamer.schedule import waiting_owners
from tests.factories import make_workspace
from tests.gateway.dreamer_items import add_waiting
from tests.gateway.worker_kit import DUE_AT_ONCE, FAST, Recorder, eventually, running

LONG_AGO = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@pytest.fixture
async def qdsn(new_database) -> str:  # type: ignore[no-untyped-def]
    """A migrated database of this test's own."""
    url = await new_database()
    conn = await connect(url)
    await apply_migrations(conn)
    await conn.close()
    return str(url)


@pytest.fixture
async def pools(qdsn: str) -> AsyncIterator[tuple[asyncpg.Pool, asyncpg.Pool]]:
    """The owner's pool (setting up, the queue's tables) and the pool passes run on (the
    login role requests run as)."""
    owner = await create_pool(qdsn, min_size=1, max_size=4)
    app = await create_pool(api_dsn(qdsn), min_size=1, max_size=12)
    yield owner, app
    await app.close()
    await owner.close()


def agents(count: int) -> list[uuid.UUID]:
    return [uuid.uuid4() for _ in range(count)]


def worker(qdsn: str, pool: asyncpg.Pool, recorder: Recorder, name: str, **kw: object) -> Worker:
    return Worker(
        qdsn,
        pool,
        kw.pop("settings", DUE_AT_ONCE),  # type: ignore[arg-type]
        kw.pop("options", FAST),  # type: ignore[arg-type]
        run_pass=recorder.pass_for(name),  # type: ignore[arg-type]
    )


async def jobs(owner: asyncpg.Pool) -> list[asyncpg.Record]:
    return await owner.fetch(
        "SELECT dedupe_key, status, execute_after - now() AS wait, payload FROM pgqueuer"
        " ORDER BY dedupe_key"
    )


# --- two workers ------------------------------------------------------------------------------


async def test_two_workers_run_each_due_owner_once(qdsn, pools):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    recorder = Recorder({ws.id}, sleep=0.4)
    first, second = worker(qdsn, app, recorder, "first"), worker(qdsn, app, recorder, "second")
    ids = agents(4)
    async with running(first, second):
        for agent in ids:
            await add_waiting(app, ws.id, "agent", agent, arrived_at=LONG_AGO)
        await add_waiting(app, ws.id, "workspace", None, arrived_at=LONG_AGO)
        await eventually(lambda: len(recorder.calls) >= 5)
        # Several more polls: nothing runs again (the passes read every item).
        await asyncio.sleep(1.0)
    assert recorder.keys() == sorted([*keys(ws.id, ids), f"dreamer:{ws.id}:workspace:-"])
    assert recorder.overlaps == []
    # Each worker holds at most its two passes and one job waiting: both took some.
    assert {call.worker for call in recorder.calls} == {"first", "second"}
    assert await jobs(owner) == []


async def test_one_owner_never_runs_twice_at_once(qdsn, pools):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    # The stand-in reads nothing: each owner stays due and is queued again after each pass.
    recorder = Recorder({ws.id}, sleep=0.3, mark_read=False)
    first, second = worker(qdsn, app, recorder, "first"), worker(qdsn, app, recorder, "second")
    ids = agents(2)
    for agent in ids:
        await add_waiting(app, ws.id, "agent", agent, arrived_at=LONG_AGO)
    async with running(first, second):
        await eventually(lambda: all(recorder.keys().count(k) >= 3 for k in keys(ws.id, ids)))
    assert recorder.overlaps == []
    for key in keys(ws.id, ids):
        spans = sorted((c.started, c.ended) for c in recorder.calls if c.key == key)
        assert all(
            end <= next_start for (_, end), (next_start, _) in zip(spans, spans[1:], strict=False)
        )


def keys(workspace_id: uuid.UUID, ids: list[uuid.UUID]) -> list[str]:
    return [f"dreamer:{workspace_id}:agent:{agent}" for agent in ids]


# --- the schedule and the queue ---------------------------------------------------------------


async def test_an_owner_is_queued_once_however_many_schedulers_see_it(qdsn, pools):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    for agent in agents(3):
        await add_waiting(app, ws.id, "agent", agent, arrived_at=LONG_AGO)
    queue_pool = await asyncpg.create_pool(qdsn, min_size=1, max_size=6)
    try:
        queries = queue_queries(queue_pool)
        now = clock.now()
        timing = BatchTiming()
        counts = await asyncio.gather(
            *(schedule_passes(queries, queue_pool, app, now, timing) for _ in range(4))
        )
        assert sum(counts) == 3
        assert await schedule_passes(queries, queue_pool, app, now, timing) == 0
        # The same owner enqueued by hand again is skipped too.
        async with app.acquire() as conn:
            waiting = await waiting_owners(conn, now, timing)
        async with queue_pool.acquire() as conn:
            assert await enqueue_passes(queries, conn, waiting, now) == 0
    finally:
        await queue_pool.close()
    queued = await jobs(owner)
    assert [row["status"] for row in queued] == ["queued"] * 3
    assert len({row["dedupe_key"] for row in queued}) == 3
    # A job carries ids only.
    assert queued[0]["payload"].decode().startswith(f'{{"workspace_id":"{ws.id}"')


async def test_an_owner_is_queued_to_run_when_due_and_moved_earlier(qdsn, pools):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    agent = uuid.uuid4()
    queue_pool = await asyncpg.create_pool(qdsn, min_size=1, max_size=4)
    queries = queue_queries(queue_pool)
    timing = BatchTiming()  # an hour to group, five minutes after an urgent item, 20 at once

    async def tick() -> timedelta:
        await schedule_passes(queries, queue_pool, app, clock.now(), timing)
        (row,) = await jobs(owner)
        assert row["status"] == "queued"
        return row["wait"]

    try:
        await add_waiting(app, ws.id, "agent", agent)
        assert timedelta(minutes=59) < await tick() <= timedelta(hours=1)
        await add_waiting(app, ws.id, "agent", agent, urgent=True)
        assert timedelta(minutes=4) < await tick() <= timedelta(minutes=5)
        await add_waiting(app, ws.id, "agent", agent, count=18)
        assert await tick() <= timedelta(seconds=1)
    finally:
        await queue_pool.close()


async def test_a_worker_runs_an_owner_once_due_and_not_before(qdsn, pools):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    recorder = Recorder({ws.id}, sleep=0.0)
    wait = 1.5
    settings = PassSettings(timing=BatchTiming(group_wait=timedelta(seconds=wait)))
    one = worker(qdsn, app, recorder, "one", settings=settings)
    async with running(one):
        arrived = time.monotonic()
        await add_waiting(app, ws.id, "agent", uuid.uuid4())
        await asyncio.sleep(wait / 2)
        assert recorder.calls == []
        await eventually(lambda: recorder.calls)
    assert recorder.calls[0].started - arrived >= wait - 0.2


# --- a job's handling -------------------------------------------------------------------------


def job_for(owner: DueOwner, attempts: int = 0) -> Job:
    now = datetime.now(UTC)
    return Job.model_validate(
        {
            "id": 1,
            "priority": 0,
            "created": now,
            "updated": now,
            "heartbeat": now,
            "execute_after": now,
            "status": "picked",
            "entrypoint": PASS_ENTRYPOINT,
            "payload": payload(owner),
            "queue_manager_id": None,
            "headers": None,
            "attempts": attempts,
        }
    )


async def test_a_job_runs_no_pass_when_nothing_waits_or_its_pass_runs_elsewhere(qdsn, pools):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    recorder = Recorder({ws.id}, sleep=0.0)
    one = worker(qdsn, app, recorder, "one")
    nobody = DueOwner(ws.id, "agent", uuid.uuid4(), LONG_AGO, 0)
    await one.handle(job_for(nobody))
    assert recorder.calls == []

    busy = DueOwner(ws.id, "agent", uuid.uuid4(), LONG_AGO, 1)
    await add_waiting(app, ws.id, "agent", busy.owner_id, arrived_at=LONG_AGO)
    # `skillmem dreamer run` (or any session) holds this owner's pass: the job skips it.
    async with owner_lock(owner, busy) as taken:
        assert taken
        await one.handle(job_for(busy))
    assert recorder.calls == []
    await one.handle(job_for(busy))
    assert recorder.keys() == [owner_key(busy)]


async def test_a_pass_run_by_a_job_has_its_verdicts_counted_by_reason(qdsn, pools):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    due = DueOwner(ws.id, "agent", uuid.uuid4(), LONG_AGO, 1)
    await add_waiting(app, ws.id, "agent", due.owner_id, arrived_at=LONG_AGO)
    reasons = (("written", None), ("refused", "metrics_test_reason"))

    async def a_pass(pool: asyncpg.Pool, owner: DueOwner, settings: PassSettings) -> PassReport:
        return PassReport(owner=owner, read=2, written=1, refused=1, reasons=reasons)

    counter = metrics.DREAMER_VERDICTS.labels("refused", "metrics_test_reason")
    before = counter._value.get()
    one = Worker(qdsn, app, DUE_AT_ONCE, FAST, run_pass=a_pass)
    await one.handle(job_for(due))
    assert counter._value.get() == before + 1


async def test_a_job_of_an_owner_not_due_yet_runs_nothing(qdsn, pools):
    # (The next tick queues it again for its time.)
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    recorder = Recorder({ws.id}, sleep=0.0)
    one = worker(qdsn, app, recorder, "one", settings=PassSettings())  # an hour to group
    later = DueOwner(ws.id, "agent", uuid.uuid4(), LONG_AGO, 1)
    await add_waiting(app, ws.id, "agent", later.owner_id)
    await one.handle(job_for(later))
    assert recorder.calls == []


async def test_a_failing_pass_is_tried_again_later_and_later(qdsn, pools):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    recorder = Recorder({ws.id}, sleep=0.0, fails=True)
    poll = timedelta(seconds=3)
    options = WorkerOptions(concurrency=1, poll=poll, heartbeat=timedelta(seconds=1))
    one = worker(qdsn, app, recorder, "one", options=options)
    failing = DueOwner(ws.id, "agent", uuid.uuid4(), LONG_AGO, 1)
    await add_waiting(app, ws.id, "agent", failing.owner_id, arrived_at=LONG_AGO)
    for attempts, delay in ((0, poll), (2, 4 * poll), (30, MAX_RETRY_DELAY)):
        with pytest.raises(RetryRequested) as retry:
            await one.handle(job_for(failing, attempts=attempts))
        assert retry.value.delay == delay

    async with running(one):
        await eventually(lambda: len(recorder.calls) == 4)
    # Its job is kept, queued after the poll (not moved earlier by a tick: it is due), so no
    # scheduler queues another meanwhile.
    (job,) = await jobs(owner)
    assert job["status"] == "queued"
    assert timedelta(seconds=1) < job["wait"] <= poll
    queue_pool = await asyncpg.create_pool(qdsn, min_size=1, max_size=3)
    try:
        queries = queue_queries(queue_pool)
        timing = DUE_AT_ONCE.timing
        assert await schedule_passes(queries, queue_pool, app, clock.now(), timing) == 0
    finally:
        await queue_pool.close()
    (again,) = await jobs(owner)
    assert again["wait"] > timedelta(seconds=1)


# --- the app ----------------------------------------------------------------------------------


@pytest.mark.parametrize("on", [True, False])
async def test_the_app_runs_one_worker_unless_turned_off(qdsn, pools, on):
    owner, _app = pools
    settings = Settings(
        database_url=qdsn, worker=on, worker_poll_seconds=0.2, pool_min_size=1, pool_max_size=4
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        if not on:
            assert app.state.worker is None
            return
        worker = app.state.worker
        assert isinstance(worker, Worker)
        await asyncio.wait_for(worker.started.wait(), 15)
        # A job of an owner with nothing waiting: taken and done, no pass run.
        nobody = DueOwner(uuid.uuid4(), "agent", uuid.uuid4(), LONG_AGO, 0)
        queue_pool = await asyncpg.create_pool(qdsn, min_size=1, max_size=2)
        try:
            async with queue_pool.acquire() as conn:
                await enqueue_passes(queue_queries(queue_pool), conn, [nobody], clock.now())
        finally:
            await queue_pool.close()

        async def done() -> bool:
            statuses = await owner.fetch("SELECT status::text FROM pgqueuer_log ORDER BY id")
            return [row["status"] for row in statuses] == ["queued", "picked", "successful"]

        await eventually(done)
        assert await jobs(owner) == []
    # Leaving the lifespan stopped it.
    assert worker.stopping.is_set() and worker.queue_manager is None
