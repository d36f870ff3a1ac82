"""SIGTERM to a worker in the middle of a real pass (issue 16, item 2): the first signal lets
the pass under way finish and takes no new job, the jobs left are run by another worker; a
second signal stops at once, nothing half-written, and another worker runs the pass again.
Either way every souvenir is written exactly once."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from datetime import timedelta

import asyncpg
import pytest

from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from gateway.worker.runner import Worker, WorkerOptions
from resolvers.common.principals import principal_for_token
from resolvers.memory.dreamer.batching import BatchTiming
from resolvers.memory.dreamer.messages import MessageInput, record_message
from resolvers.memory.dreamer.passes import PassSettings
from tests.factories import Workspace, company, make_workspace
from tests.gateway.test_worker_process import HEARTBEAT, Child, souvenirs
from tests.gateway.worker_kit import eventually, running

LINES = {
    "member": "Acme wants every message in French.",
    "other": "Acme pays its invoices in 60 days.",
}


@pytest.fixture
async def qdsn(new_database) -> str:  # type: ignore[no-untyped-def]
    """A database of the test's own: its queue holds only its jobs."""
    url = await new_database()
    conn = await connect(url)
    await apply_migrations(conn)
    await conn.close()
    return str(url)


@pytest.fixture
async def pools(qdsn: str) -> AsyncIterator[tuple[asyncpg.Pool, asyncpg.Pool]]:
    owner = await create_pool(qdsn, min_size=1, max_size=4)
    app = await create_pool(api_dsn(qdsn), min_size=1, max_size=8)
    yield owner, app
    await app.close()
    await owner.close()


async def remembered(app: asyncpg.Pool, ws: Workspace) -> None:
    """Two people's messages, so two owners due at once: two passes, two jobs."""
    acme = await company(app, ws, "Acme")
    for who, line in LINES.items():
        text = f"Remember: @[Acme](record:{acme}) {line.removeprefix('Acme ')}"
        async with app.acquire() as conn, conn.transaction():
            principal = await principal_for_token(conn, ws.tokens[who])
            assert principal is not None
            await record_message(conn, principal, MessageInput(f"c-{who}", "user", text))


def other_worker(qdsn: str, app: asyncpg.Pool) -> Worker:
    options = WorkerOptions(
        concurrency=1, poll=timedelta(seconds=0.2), heartbeat=timedelta(seconds=HEARTBEAT)
    )
    return Worker(qdsn, app, PassSettings(timing=BatchTiming(group_wait=timedelta(0))), options)


async def written_once(owner: asyncpg.Pool, ws: Workspace) -> None:
    """Every souvenir once, every item read once, no job left behind."""
    assert sorted(await souvenirs(owner, ws)) == sorted(LINES.values())
    statuses = await owner.fetch("SELECT status FROM memory_items WHERE workspace_id = $1", ws.id)
    assert [row["status"] for row in statuses] == ["read", "read"]
    assert await owner.fetch("SELECT 1 FROM pgqueuer") == []


async def picks(qdsn: str) -> list[int]:
    """How often each job was picked, by job."""
    rows = await job_log(
        qdsn,
        "SELECT count(*) AS n FROM pgqueuer_log WHERE status = 'picked' GROUP BY job_id"
        " ORDER BY job_id",
    )
    return [row["n"] for row in rows]


async def last_statuses(qdsn: str) -> list[str]:
    """Each job's last status in pgqueuer's log."""
    rows = await job_log(
        qdsn,
        "SELECT DISTINCT ON (job_id) status::text AS s FROM pgqueuer_log ORDER BY job_id, id DESC",
    )
    return [row["s"] for row in rows]


async def job_log(qdsn: str, query: str) -> list[asyncpg.Record]:
    conn = await connect(qdsn)
    try:
        return list(await conn.fetch(query))
    finally:
        await conn.close()


async def test_sigterm_mid_pass_finishes_it_and_leaves_the_rest_to_another(qdsn, pools, tmp_path):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    await remembered(app, ws)
    child = Child(qdsn, tmp_path / "passes.txt", 1.5, "real")
    try:
        await eventually(lambda: child.lines(), within=30)
        assert await souvenirs(owner, ws) == []  # its reader reads: nothing written yet
        child.process.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(child.process.wait, 30)
    finally:
        output = child.stop()
    assert code == 0, output
    assert len(await souvenirs(owner, ws)) >= 1  # the pass under way was finished
    async with running(other_worker(qdsn, app)):
        await eventually(lambda: owner.fetchval("SELECT count(*) = 0 FROM pgqueuer"), within=30)
        await asyncio.sleep(1)  # a job run twice would write twice
    await written_once(owner, ws)
    assert await picks(qdsn) == [1, 1]


async def test_a_second_sigterm_stops_at_once_and_another_worker_runs_the_pass(
    qdsn, pools, tmp_path
):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    await remembered(app, ws)
    child = Child(qdsn, tmp_path / "passes.txt", 60, "real")
    try:
        await eventually(lambda: child.lines(), within=30)
        child.process.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.3)
        child.process.send_signal(signal.SIGTERM)
        await asyncio.to_thread(child.process.wait, 30)
    finally:
        child.stop()
    assert await souvenirs(owner, ws) == []  # stopped in its reader: nothing half-written
    async with running(other_worker(qdsn, app)):
        await eventually(lambda: owner.fetchval("SELECT count(*) = 0 FROM pgqueuer"), within=30)
        await asyncio.sleep(1)
    await written_once(owner, ws)
    # The stopped worker's jobs were given back as canceled (not left picked), and the other
    # worker's scheduler queued each owner's pass again: one successful job per owner.
    assert sorted(await last_statuses(qdsn)) == ["canceled", "canceled", "successful", "successful"]
