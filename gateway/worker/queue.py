"""The Dreamer's jobs on pgqueuer: its object names, a job's payload, and the scheduler's tick
that queues one ``dreamer.pass`` job per page owner with items waiting, and one ``dreams.run``
job per dream to run (the request that asks for a dream cannot reach the queue: the
application role has no grant on it; its insert wakes the schedulers instead)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import cast
from uuid import UUID

import asyncpg
import orjson
from pgqueuer.adapters.persistence.qb import (
    QueryBuilderEnvironment,
    QueryQueueBuilder,
    QuerySchedulerBuilder,
)
from pgqueuer.db import AsyncpgPoolDriver
from pgqueuer.domain.settings import DBSettings, Durability
from pgqueuer.domain.types import Channel
from pgqueuer.queries import Queries

from db import dreamer_queue, dreams
from db.dreamer_schedule import DueOwner
from db.dreams import DueDream
from resolvers.memory.dreamer import schedule
from resolvers.memory.dreamer.batching import BatchTiming
from resolvers.memory.dreamer.guard import owner_key
from resolvers.stores.dreaming import dream_key

log = logging.getLogger("skillmem.worker")

PASS_ENTRYPOINT = "dreamer.pass"
DREAM_ENTRYPOINT = "dreams.run"


def queue_names() -> DBSettings:
    """pgqueuer's object names as migration 0012 made them, spelled out: pgqueuer would
    otherwise read them from the environment (PGQUEUER_* and bare names such as CHANNEL)."""
    return DBSettings(
        prefix="",
        db_schema=None,
        channel=Channel("ch_pgqueuer"),
        function="fn_pgqueuer_changed",
        statistics_table="pgqueuer_statistics",
        queue_status_type="pgqueuer_status",
        queue_table="pgqueuer",
        queue_table_log="pgqueuer_log",
        trigger="tg_pgqueuer_changed",
        schedules_table="pgqueuer_schedules",
        durability=Durability.durable,
    )


def queue_queries(queue_pool: asyncpg.Pool) -> Queries:
    """pgqueuer's queries over a pool of the queue's connections (the owner's DSN, plain
    asyncpg: pgqueuer encodes its own JSON)."""
    names = queue_names()
    return Queries(
        AsyncpgPoolDriver(queue_pool),
        qbe=QueryBuilderEnvironment(names),
        qbq=QueryQueueBuilder(names),
        qbs=QuerySchedulerBuilder(names),
    )


def payload(owner: DueOwner) -> bytes:
    """A job's payload: ids only, never a workspace's text."""
    return orjson.dumps(
        {
            "workspace_id": str(owner.workspace_id),
            "owner_kind": owner.owner_kind,
            "owner_id": None if owner.owner_id is None else str(owner.owner_id),
        }
    )


def payload_target(data: bytes | None) -> tuple[UUID, str, UUID | None]:
    """The (workspace, owner kind, owner id) a job's payload names."""
    fields = orjson.loads(data or b"{}")
    owner_id = fields.get("owner_id")
    return (
        UUID(fields["workspace_id"]),
        str(fields["owner_kind"]),
        UUID(owner_id) if owner_id else None,
    )


def target_of(owner: DueOwner) -> tuple[UUID, str, UUID | None]:
    return owner.workspace_id, owner.owner_kind, owner.owner_id


def delay_until(owner: DueOwner, now: datetime) -> timedelta:
    """How long from ``now`` until ``owner``'s pass is due (nothing when it is)."""
    return max(owner.due_at - now, timedelta(0))


async def enqueue_passes(
    queries: Queries, queue_conn: asyncpg.Connection, owners: Sequence[DueOwner], now: datetime
) -> int:
    """Queue one pass job per owner, to run once it is due, and return how many were queued.
    An owner whose job is queued or running already keeps that one job (the dedupe key),
    moved earlier when the owner is now due sooner."""
    if not owners:
        return 0
    keys = [owner_key(owner) for owner in owners]
    delays: list[timedelta | None] = [delay_until(owner, now) for owner in owners]
    await dreamer_queue.advance_jobs(
        queue_conn, PASS_ENTRYPOINT, keys, [delay or timedelta(0) for delay in delays]
    )
    ids = await queries.enqueue(
        [PASS_ENTRYPOINT] * len(owners),
        [payload(owner) for owner in owners],
        [0] * len(owners),
        execute_after=delays,
        dedupe_key=list[str | None](keys),
        on_conflict="skip",
    )
    return sum(1 for job_id in ids if job_id is not None)


async def schedule_passes(
    queries: Queries,
    queue_pool: asyncpg.Pool,
    pool: asyncpg.Pool,
    now: datetime,
    timing: BatchTiming,
) -> int:
    """The scheduler's tick: every owner with items waiting at ``now`` gets its pass queued
    (see ``enqueue_passes``); returns how many jobs were new."""
    async with pool.acquire() as proxy:
        owners = await schedule.waiting_owners(cast(asyncpg.Connection, proxy), now, timing)
    async with queue_pool.acquire() as queue_proxy:
        queue_conn = cast(asyncpg.Connection, queue_proxy)
        queued = await enqueue_passes(queries, queue_conn, owners, now)
    if queued:
        log.info("queued %d Dreamer pass(es) of %d owner(s) waiting", queued, len(owners))
    return queued


def dream_payload(due: DueDream) -> bytes:
    """A dream job's payload: ids only."""
    return orjson.dumps(
        {
            "workspace_id": str(due.workspace_id),
            "dream_id": str(due.dream_id),
            "created_at": due.created_at.isoformat(),
        }
    )


def dream_of(data: bytes | None) -> DueDream:
    """The dream a job's payload names."""
    fields = orjson.loads(data or b"{}")
    return DueDream(
        UUID(fields["workspace_id"]),
        UUID(fields["dream_id"]),
        datetime.fromisoformat(fields["created_at"]),
    )


async def schedule_dreams(queries: Queries, pool: asyncpg.Pool) -> int:
    """One ``dreams.run`` job per dream to run, unless one is queued or running already (the
    dedupe key); returns how many jobs were new."""
    async with pool.acquire() as proxy:
        due = await dreams.dreams_due(cast(asyncpg.Connection, proxy))
    if not due:
        return 0
    ids = await queries.enqueue(
        [DREAM_ENTRYPOINT] * len(due),
        [dream_payload(d) for d in due],
        [0] * len(due),
        dedupe_key=list[str | None]([dream_key(d.workspace_id, d.dream_id) for d in due]),
        on_conflict="skip",
    )
    queued = sum(1 for job_id in ids if job_id is not None)
    if queued:
        log.info("queued %d dream(s)", queued)
    return queued
