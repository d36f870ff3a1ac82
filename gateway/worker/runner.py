"""A Dreamer worker: pgqueuer's queue manager running ``dreamer.pass`` jobs, and a scheduler
that queues them. Any number of workers, in any number of processes and machines, share one
database: pgqueuer hands each job to one worker (``FOR UPDATE SKIP LOCKED``), the dedupe key
keeps one job per owner, the owner's advisory lock keeps one pass per owner even beside
`skillmem dreamer run`, and a job whose worker stopped beating is picked again by another."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, cast
from uuid import UUID

import asyncpg
from pgqueuer import QueueManager, SchedulerManager
from pgqueuer.domain.types import Channel
from pgqueuer.errors import RetryRequested
from pgqueuer.models import Job, Schedule
from pgqueuer.queries import Queries

from db.dreamer_queue import WAKE_CHANNEL
from db.dreamer_schedule import DueOwner
from gateway.observe import metrics
from gateway.worker.periodic import Periodic, periodic_jobs
from gateway.worker.queue import (
    DREAM_ENTRYPOINT,
    PASS_ENTRYPOINT,
    dream_of,
    payload_target,
    queue_names,
    queue_queries,
    schedule_dreams,
    schedule_passes,
    target_of,
)
from gateway.worker.reports import pass_line
from resolvers.common import clock
from resolvers.memory.dreamer import guard, passes, schedule
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.stores import dreaming

log = logging.getLogger("skillmem.worker")

# The longest a failing pass waits before it is tried again.
MAX_RETRY_DELAY = timedelta(hours=1)
# How long a worker whose queue failed (the database went away) waits before starting again.
RESTART_DELAY = timedelta(seconds=5)


@dataclass(frozen=True, slots=True)
class WorkerOptions:
    """How a worker runs: passes at once, the schedule's poll, the heartbeat timeout."""

    concurrency: int = 1
    poll: timedelta = timedelta(seconds=15)
    heartbeat: timedelta = timedelta(seconds=30)


class Worker:
    """One worker. ``owner_dsn`` reaches pgqueuer's tables (the role that migrates: the queue
    is granted to no other); ``pool`` is what passes run on, as the application role inside
    each workspace's transaction. ``run_pass`` is the pass (tests give a stand-in)."""

    def __init__(
        self,
        owner_dsn: str,
        pool: asyncpg.Pool,
        pass_settings: PassSettings,
        options: WorkerOptions = WorkerOptions(),
        run_pass: guard.PassRunner = passes.run_unguarded,
        periodic: tuple[Periodic, ...] | None = None,
    ) -> None:
        self.owner_dsn = owner_dsn
        self.pool = pool
        self.options = options
        self.run_pass = run_pass
        self.passes_at_once = asyncio.Semaphore(options.concurrency)
        self.stopping = asyncio.Event()
        # A pass under way when the worker stops ends after its batch (PassSettings.stopping).
        self.pass_settings = replace(pass_settings, stopping=self.stopping.is_set)
        self.started = asyncio.Event()
        self.wake = asyncio.Event()
        self.resumed = asyncio.Event()
        # Times the worker started taking jobs (more than once: its database went away).
        self.starts = 0
        self.queue_manager: QueueManager | None = None
        self.scheduler_manager: SchedulerManager | None = None
        # Memory's periodic jobs (pgqueuer cron schedules: one worker runs each at its time).
        self.periodic = periodic_jobs() if periodic is None else periodic

    def stop(self) -> None:
        """Stop taking jobs; ``run`` returns once the passes under way have finished."""
        self.stopping.set()
        if self.queue_manager is not None:
            self.queue_manager.shutdown.set()
        if self.scheduler_manager is not None:
            self.scheduler_manager.shutdown.set()

    async def run(self) -> None:
        """Work until ``stop``; a failing queue (the database away) is started again."""
        while not self.stopping.is_set():
            self.resumed.clear()
            try:
                await self.run_once()
            except Exception:
                log.exception("the Dreamer worker failed; starting again")
                await self.pause(RESTART_DELAY)

    def resume(self) -> None:
        """The database is back (the embedded server's supervisor restarted it): a worker
        waiting to start again starts now, and one still on its lost connections stops them."""
        self.resumed.set()
        self.wake.set()

    async def pause(self, delay: timedelta) -> None:
        """Wait ``delay``, or less when stopped or resumed meanwhile."""
        waits = [
            asyncio.ensure_future(self.stopping.wait()),
            asyncio.ensure_future(self.resumed.wait()),
        ]
        try:
            await asyncio.wait(
                waits, timeout=delay.total_seconds(), return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for wait in waits:
                wait.cancel()

    async def run_once(self) -> None:
        queue_pool = await asyncpg.create_pool(
            self.owner_dsn, min_size=1, max_size=self.options.concurrency + 4
        )
        try:
            queries = queue_queries(queue_pool)
            manager = QueueManager(queries, Channel(queue_names().channel))
            manager.entrypoint(PASS_ENTRYPOINT)(self.handle)
            manager.entrypoint(DREAM_ENTRYPOINT)(self.handle_dream)
            self.queue_manager = manager
            self.scheduler_manager = self.cron_manager(queue_pool)
            if self.stopping.is_set():
                return
            helpers = [asyncio.create_task(self.schedule_loop(queries, queue_pool))]
            if self.scheduler_manager is not None:
                helpers.append(asyncio.create_task(self.scheduler_manager.run()))
            for helper in helpers:
                helper.add_done_callback(lambda _: manager.shutdown.set())
            try:
                await manager.run(**self.run_arguments())
            finally:
                if self.scheduler_manager is not None:
                    self.scheduler_manager.shutdown.set()
                helpers[0].cancel()
                failures = await asyncio.gather(*helpers, return_exceptions=True)
            for failed in failures:
                if isinstance(failed, Exception):
                    raise failed
        finally:
            self.queue_manager = None
            self.scheduler_manager = None
            self.started.clear()
            await queue_pool.close()

    def cron_manager(self, queue_pool: asyncpg.Pool) -> SchedulerManager | None:
        """pgqueuer's scheduler for the periodic jobs (none without any): each job's schedule
        is taken by one worker at its time, the others skip it."""
        if not self.periodic:
            return None
        scheduler = SchedulerManager(queue_queries(queue_pool))
        for job in self.periodic:
            scheduler.schedule(job.name, job.cron)(self.periodic_handler(job))
        return scheduler

    def periodic_handler(self, job: Periodic) -> Callable[[Schedule], Awaitable[None]]:
        async def run(_: Schedule) -> None:
            await self.run_periodic(job)

        return run

    async def run_periodic(self, job: Periodic) -> None:
        """Run one periodic job now; a failure is logged (the next time runs it again)."""
        try:
            lines = await job.run(self.pool, clock.now(), self.pass_settings)
        except Exception:
            log.exception("the periodic job %s failed", job.name)
            return
        for line in lines:
            log.info("%s: %s", job.name, line)

    def run_arguments(self) -> dict[str, Any]:
        """pgqueuer's loop: one job fetched at a time, at most ``concurrency`` + 1 held (the
        one waiting for a free pass: pgqueuer's floor is twice the batch), the poll as the
        longest wait between dequeues (a dead worker's job is seen within it)."""
        return {
            "dequeue_timeout": self.options.poll,
            "batch_size": 1,
            "max_concurrent_tasks": self.options.concurrency + 1,
            "heartbeat_timeout": self.options.heartbeat,
        }

    async def schedule_loop(self, queries: Queries, queue_pool: asyncpg.Pool) -> None:
        """Read the schedule every poll and whenever NOTIFY skillmem_dreamer arrives. When
        its connection is lost (the database went away) it fails, and with it the queue
        (pgqueuer's own connections would wait on a dead server): the worker starts again."""
        async with queue_pool.acquire() as listener:
            await listener.add_listener(WAKE_CHANNEL, self.on_wake)
            listener.add_termination_listener(self.on_wake)
            self.starts += 1
            self.started.set()
            try:
                while not self.stopping.is_set():
                    self.wake.clear()
                    await self.tick(queries, queue_pool)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.wake.wait(), self.options.poll.total_seconds())
                    if listener.is_closed():
                        raise ConnectionError("the queue's connection was lost")
            finally:
                if not listener.is_closed():
                    listener.remove_termination_listener(self.on_wake)
                    await listener.remove_listener(WAKE_CHANNEL, self.on_wake)

    def on_wake(self, *_: object) -> None:
        self.wake.set()

    async def tick(self, queries: Queries, queue_pool: asyncpg.Pool) -> None:
        try:
            await schedule_passes(
                queries, queue_pool, self.pool, clock.now(), self.pass_settings.timing
            )
            await schedule_dreams(queries, self.pool)
        except Exception:
            log.exception("reading the Dreamer's schedule failed")

    async def handle_dream(self, job: Job) -> None:
        """A ``dreams.run`` job: its dream to its end under the dream's lock (nothing when it
        runs elsewhere, or was canceled meanwhile); a failure fails the dream, not the job."""
        async with self.passes_at_once:
            line = await dreaming.run_dream(self.pool, dream_of(job.payload), self.pass_settings)
        if line:
            log.info("%s", line)

    async def handle(self, job: Job) -> None:
        """A ``dreamer.pass`` job: its owner's pass under the owner's lock, when something
        still waits and is due (another run may have read it meanwhile; an owner not due yet
        is queued again by the next tick). A pass that fails is tried again later and later
        (``retry_delay``), its job kept meanwhile so that no scheduler queues another."""
        async with self.passes_at_once:
            owner = await self.due_owner(payload_target(job.payload))
            if owner is None:
                return
            try:
                report = await guard.run_guarded(
                    self.pool, owner, self.pass_settings, self.run_pass
                )
            except Exception as error:
                delay = retry_delay(job.attempts, self.options.poll)
                log.exception("pass of %s failed; again in %s", guard.owner_key(owner), delay)
                raise RetryRequested(delay=delay, reason=f"the pass failed: {error!r}") from error
        if report is None:
            log.info("pass of %s skipped: another session runs it", guard.owner_key(owner))
        else:
            metrics.count_verdicts(report.reasons)
            log.info("pass done: %s", pass_line(report))

    async def due_owner(self, target: tuple[UUID, str, UUID | None]) -> DueOwner | None:
        """The job's owner as the schedule sees it now, if its pass is due."""
        now = clock.now()
        async with self.pool.acquire() as proxy:
            conn = cast(asyncpg.Connection, proxy)
            waiting = await schedule.waiting_owners(conn, now, self.pass_settings.timing)
        owner = next((o for o in waiting if target_of(o) == target), None)
        return owner if owner is not None and owner.due_at <= now else None


def retry_delay(attempts: int, poll: timedelta) -> timedelta:
    """How long after its ``attempts``-th failure a pass is tried again: the poll, doubled at
    each failure, at most ``MAX_RETRY_DELAY``."""
    doubled: timedelta = poll * 2 ** min(attempts, 20)
    return min(doubled, MAX_RETRY_DELAY)
