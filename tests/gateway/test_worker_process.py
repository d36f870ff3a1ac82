"""Workers in processes of their own: a worker killed in the middle of a pass (SIGKILL) has
its job run again by another worker once its heartbeat is late; SIGTERM lets the pass under
way finish; `skillmem worker` starts and stops on a signal."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

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
from tests.gateway.dreamer_items import add_waiting
from tests.gateway.test_cli import CHECKOUT, command, environment
from tests.gateway.worker_kit import DUE_AT_ONCE, Recorder, eventually, running

LONG_AGO = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
HEARTBEAT = 1.0


@pytest.fixture
async def qdsn(new_database) -> str:  # type: ignore[no-untyped-def]
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


class Child:
    """tests/gateway/worker_child.py running; its stand-in pass writes to ``out``."""

    def __init__(self, dsn: str, out: Path, sleep: float, *more: str) -> None:
        self.out = out
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.gateway.worker_child",
                dsn,
                str(out),
                str(sleep),
                str(HEARTBEAT),
                *more,
            ],
            cwd=CHECKOUT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def lines(self) -> list[str]:
        return self.out.read_text().splitlines() if self.out.exists() else []

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        output, _ = self.process.communicate(timeout=15)
        return output


async def test_a_killed_workers_job_is_run_again_by_another(qdsn, pools, tmp_path):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    agent = uuid.uuid4()
    key = f"dreamer:{ws.id}:agent:{agent}"
    await add_waiting(app, ws.id, "agent", agent, arrived_at=LONG_AGO)
    child = Child(qdsn, tmp_path / "passes.txt", sleep=60)
    try:
        await eventually(lambda: child.lines(), within=30)
        assert child.lines() == [f"start {key} {child.process.pid}"]
        child.process.send_signal(signal.SIGKILL)
        child.process.wait(timeout=10)
    finally:
        child.stop()
    (job,) = await owner.fetch("SELECT id, status::text FROM pgqueuer")
    assert job["status"] == "picked"  # still its, until the heartbeat is late

    recorder = Recorder({ws.id}, sleep=0.1)
    options = WorkerOptions(
        concurrency=1, poll=timedelta(seconds=0.2), heartbeat=timedelta(seconds=HEARTBEAT)
    )
    other = Worker(qdsn, app, DUE_AT_ONCE, options, run_pass=recorder.pass_for("other"))
    async with running(other):
        await eventually(lambda: recorder.calls)
    assert recorder.keys() == [key]
    # The same job, picked a second time (not a new one: the dedupe key was still held).
    picks = await owner.fetchval(
        "SELECT count(*) FROM pgqueuer_log WHERE job_id = $1 AND status = 'picked'", job["id"]
    )
    assert picks == 2


async def test_a_real_pass_killed_half_way_is_run_again_and_writes_once(qdsn, pools, tmp_path):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    acme = await company(owner, ws, "Acme")
    text = f"Remember: @[Acme](record:{acme}) wants every message in French."
    async with app.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens["member"])
        assert principal is not None
        await record_message(conn, principal, MessageInput("c1", "user", text))
    child = Child(qdsn, tmp_path / "passes.txt", 60, "real")
    try:
        await eventually(lambda: child.lines(), within=30)
        child.process.send_signal(signal.SIGKILL)
        child.process.wait(timeout=10)
    finally:
        child.stop()
    assert await souvenirs(owner, ws) == []  # killed while its reader read: nothing written
    timing = BatchTiming(group_wait=timedelta(0))
    options = WorkerOptions(
        concurrency=1, poll=timedelta(seconds=0.2), heartbeat=timedelta(seconds=HEARTBEAT)
    )
    other = Worker(qdsn, app, PassSettings(timing=timing), options)
    async with running(other):
        await eventually(lambda: souvenirs(owner, ws), within=30)
        await asyncio.sleep(1)  # the same job again, or a second pass, would write twice
    [line] = await souvenirs(owner, ws)
    assert line == "Acme wants every message in French."
    statuses = await owner.fetch("SELECT status FROM memory_items WHERE workspace_id = $1", ws.id)
    assert [row["status"] for row in statuses] == ["read"]


async def souvenirs(conn: asyncpg.Pool, ws: Workspace) -> list[str]:
    rows = await conn.fetch(
        "SELECT text FROM memory_lines WHERE workspace_id = $1 AND kind = 'souvenir'", ws.id
    )
    return [row["text"] for row in rows]


async def test_sigterm_lets_the_pass_under_way_finish(qdsn, pools, tmp_path):
    owner, app = pools
    ws = await make_workspace(owner, "Queue")
    agent = uuid.uuid4()
    key = f"dreamer:{ws.id}:agent:{agent}"
    await add_waiting(app, ws.id, "agent", agent, arrived_at=LONG_AGO)
    child = Child(qdsn, tmp_path / "passes.txt", sleep=1.0)
    try:
        await eventually(lambda: child.lines(), within=30)
        child.process.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(child.process.wait, 20)
    finally:
        output = child.stop()
    assert code == 0, output
    pid = child.process.pid
    assert child.lines() == [f"start {key} {pid}", f"end {key} {pid}"]
    # Its job is done and logged: a successful pass, not left to run again.
    statuses = [r["status"] for r in await owner.fetch("SELECT status::text FROM pgqueuer_log")]
    assert statuses[-1] == "successful"
    assert await owner.fetch("SELECT 1 FROM pgqueuer") == []


def skillmem_worker(dsn: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*command(), "worker", *args],
        env=environment(dsn, SKILLMEM_WORKER_POLL_SECONDS="0.2"),
        cwd=CHECKOUT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


async def test_skillmem_worker_runs_until_a_signal(qdsn):
    process = skillmem_worker(qdsn, "--concurrency", "2")
    try:
        assert process.stdout is not None
        first = await asyncio.to_thread(process.stdout.readline)
        assert first.startswith("Dreamer worker running (2 at once)"), first
        process.send_signal(signal.SIGINT)
        code = await asyncio.to_thread(process.wait, 20)
        rest = process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)
    assert code == 0, rest
    assert "Stopping" in rest


async def test_skillmem_worker_refuses_a_concurrency_below_one(qdsn):
    done = await asyncio.to_thread(
        subprocess.run,
        [*command(), "worker", "--concurrency", "0"],
        env=environment(qdsn),
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "must be 1 or more" in done.stderr
