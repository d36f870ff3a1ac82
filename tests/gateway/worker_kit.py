"""What the worker's tests share: a stand-in pass that records its calls, workers with short
timers running for a block, and waiting until something is seen."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from uuid import UUID

import asyncpg

from db.dreamer_schedule import DueOwner
from db.pool import begin_workspace
from gateway.worker.runner import Worker, WorkerOptions
from resolvers.memory.dreamer.batching import BatchTiming
from resolvers.memory.dreamer.guard import owner_key
from resolvers.memory.dreamer.passes import PassReport, PassSettings

FAST = WorkerOptions(concurrency=2, poll=timedelta(seconds=0.2), heartbeat=timedelta(seconds=1))
DUE_AT_ONCE = PassSettings(timing=BatchTiming(group_wait=timedelta(0)))


@dataclass
class Call:
    key: str
    worker: str
    started: float
    ended: float = 0.0


@dataclass
class Recorder:
    """A pass that records who ran which owner when, sleeps, and (``mark_read``) marks the
    owner's items read as a real pass would, or (``fails``) raises. Owners of other workspaces
    than ``workspaces`` (other tests') are left alone and not recorded."""

    workspaces: set[UUID]
    sleep: float = 0.3
    mark_read: bool = True
    fails: bool = False
    calls: list[Call] = field(default_factory=list)
    running: set[str] = field(default_factory=set)
    overlaps: list[str] = field(default_factory=list)

    def pass_for(self, worker: str) -> Callable[..., object]:
        async def run_pass(
            pool: asyncpg.Pool, owner: DueOwner, settings: PassSettings
        ) -> PassReport:
            if owner.workspace_id not in self.workspaces:
                return PassReport(owner=owner)
            key = owner_key(owner)
            if key in self.running:
                self.overlaps.append(key)
            self.running.add(key)
            call = Call(key, worker, time.monotonic())
            try:
                await asyncio.sleep(self.sleep)
                if self.fails:
                    raise RuntimeError("the stand-in pass failed")
                if self.mark_read:
                    await mark_read(pool, owner)
            finally:
                self.running.discard(key)
                call.ended = time.monotonic()
                self.calls.append(call)
            return PassReport(owner=owner, read=owner.waiting)

        return run_pass

    def keys(self) -> list[str]:
        return sorted(call.key for call in self.calls)


async def mark_read(pool: asyncpg.Pool, owner: DueOwner) -> None:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, owner.workspace_id)
        await conn.execute(
            "UPDATE memory_items SET status = 'read', read_at = now()"
            " WHERE workspace_id = app_workspace_id() AND owner_kind = $1"
            " AND owner_id IS NOT DISTINCT FROM $2 AND status = 'waiting'",
            owner.owner_kind,
            owner.owner_id,
        )


@contextlib.asynccontextmanager
async def running(*workers: Worker) -> AsyncIterator[None]:
    """The workers running for the block (their schedulers listening), stopped after it."""
    tasks = [asyncio.create_task(worker.run()) for worker in workers]
    try:
        await asyncio.wait_for(asyncio.gather(*(w.started.wait() for w in workers)), 15)
        yield
    finally:
        for worker in workers:
            worker.stop()
        await asyncio.wait_for(asyncio.gather(*tasks), 15)


async def eventually(check: Callable[[], object], within: float = 15.0) -> None:
    """Wait until ``check()`` is true (awaiting it when it is a coroutine)."""
    deadline = time.monotonic() + within
    while True:
        outcome = check()
        if asyncio.iscoroutine(outcome):
            outcome = await outcome
        if outcome:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {within}s")
        await asyncio.sleep(0.05)
