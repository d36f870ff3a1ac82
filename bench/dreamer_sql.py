"""The Dreamer benchmark's SQL statements (bench/dreamer.py), counted in-process:

- one job: ``Worker.handle`` for one owner (the schedule's check, the owner's lock, the pass,
  the unlock), on a pool whose connections log every statement; the second of two, so that
  the connections are warm;
- a worker at work: a real ``Worker`` (pgqueuer, the scheduler) running every pass of
  ``COUNTED_OWNERS`` owners due at once, both its pools logging: the pass pool's statements
  and the queue's (pgqueuer's dequeue, its log and heartbeats, its probes, the scheduler's
  enqueue), from the moment every job is queued to the moment every item is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import asyncpg
from asyncpg.connection import LoggedQuery
from pgqueuer.models import Job

from bench.dreamer_data import (
    DATABASE,
    RUN_DATABASE,
    Person,
    queued_jobs,
    record_all,
    remake,
    timing,
    wait_read,
    workspace_fetch,
)
from db.dreamer_schedule import DueOwner
from db.pool import POOL_SERVER_SETTINGS, SerialConnection, api_dsn, init_connection, keep_session
from db.sql import QUERIES_DIR, queries
from gateway.worker.queue import PASS_ENTRYPOINT, payload
from gateway.worker.runner import Worker, WorkerOptions
from resolvers.memory.dreamer.batching import FULL_BATCH
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.dreamer.reader import Batch, ReaderAnswer
from resolvers.memory.dreamer.rules import RulesReader

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
COUNTED_OWNERS = 20
# Statements that are no named query of db/queries/, by how they start.
KNOWN = (
    ("SELECT app_begin_workspace($1)", "pool.begin_workspace"),
    ("SELECT set_config('role', 'skillmem_app', true)", "dreamer_schedule.as_app_role"),
    ("SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL", "asyncpg.pool_reset"),
    ("SELECT current_setting('jit')", "asyncpg.introspection"),
    ("WITH RECURSIVE typeinfo_tree", "asyncpg.introspection"),
    ("SELECT set_config('jit'", "asyncpg.introspection"),
    ("WITH -- No entrypoint carries a concurrency limit", "pgqueuer.dequeue"),
    ("WITH -- Unpack per-entrypoint parameters", "pgqueuer.dequeue"),
    ("SELECT COUNT(*) AS queued_work", "pgqueuer.queued_work"),
    ("SELECT execute_after - NOW() AS eta", "pgqueuer.next_deferred_eta"),
    ("WITH job_status AS", "pgqueuer.log_job"),
    ("UPDATE pgqueuer SET heartbeat", "pgqueuer.heartbeat"),
    ("SELECT EXISTS", "pgqueuer.verify_structure"),
    ("SELECT enumlabel", "pgqueuer.verify_structure"),
    ("LISTEN", "pgqueuer.listen"),
    ("SELECT pg_notify", "pgqueuer.health_check"),
    ("WITH input AS MATERIALIZED", "pgqueuer.enqueue"),
)
LEAD = timedelta(seconds=1)


def statement_names() -> dict[str, str]:
    """Every named query's text, to its ``module.name``."""
    named = {}
    for path in sorted(QUERIES_DIR.glob("*.sql")):
        for name, text in queries(path.stem).items():
            named[text] = f"{path.stem}.{name}"
    return named


def statement_name(query: str, named: dict[str, str]) -> str:
    """A statement's name: its named query, BEGIN/COMMIT/..., a known statement's name, else
    its start."""
    text = query.strip()
    if text in named:
        return named[text]
    first = text.split()[0].rstrip(";").upper() if text else ""
    if first in TRANSACTION_CONTROL:
        return first
    flat = " ".join(text.split())
    return next((name for start, name in KNOWN if flat.startswith(start)), flat[:70])


def module_of(name: str) -> str:
    if name in TRANSACTION_CONTROL:
        return "transaction control"
    module, dot, _ = name.partition(".")
    return module if dot and " " not in module else "other"


def grouped(sent: Sequence[LoggedQuery], per: int) -> dict[str, Any]:
    """``sent`` counted by module and by statement, divided by ``per`` (passes or items)."""
    named = statement_names()
    names = [statement_name(q.query, named) for q in sent]

    def share(counter: Counter[str]) -> dict[str, float]:
        return {key: round(n / per, 2) for key, n in counter.most_common()}

    return {
        "total": round(len(names) / per, 2),
        "transaction_control": round(sum(n in TRANSACTION_CONTROL for n in names) / per, 2),
        "by_module": share(Counter(module_of(n) for n in names)),
        "by_statement": share(Counter(names)),
    }


async def _log_statements(conn: asyncpg.Connection, sent: list[LoggedQuery]) -> None:
    conn.add_query_logger(sent.append)


@contextlib.asynccontextmanager
async def logged_pool(dsn: str, sent: list[LoggedQuery], size: int) -> AsyncIterator[asyncpg.Pool]:
    """A pool like ``db.pool.create_pool``'s whose connections log every statement."""

    async def init(conn: asyncpg.Connection) -> None:
        await init_connection(conn)
        await _log_statements(conn, sent)

    pool = await asyncpg.create_pool(
        dsn,
        min_size=size,
        max_size=size,
        init=init,
        command_timeout=30,
        connection_class=SerialConnection,
        reset=keep_session,
        server_settings=POOL_SERVER_SETTINGS,
    )
    try:
        yield pool
    finally:
        await pool.close()


@contextlib.contextmanager
def logged_queue_pools(sent: list[LoggedQuery]) -> Iterator[None]:
    """For the block, the pool a worker opens for its queue (``runner.Worker.run_once``, a
    plain ``asyncpg.create_pool``) logs every statement its connections send."""
    real = asyncpg.create_pool

    def create_pool(*args: Any, **kwargs: Any) -> Any:
        return real(*args, init=lambda conn: _log_statements(conn, sent), **kwargs)

    setattr(asyncpg, "create_pool", create_pool)  # noqa: B010 - for the block only
    try:
        yield
    finally:
        setattr(asyncpg, "create_pool", real)  # noqa: B010


class TimedReader:
    """The ``rules`` reader, timed: how long each of its reads took."""

    def __init__(self) -> None:
        self.reader = RulesReader()
        self.seconds: list[float] = []

    async def read(self, batch: Batch) -> ReaderAnswer:
        started = time.perf_counter()
        answer = await self.reader.read(batch)
        self.seconds.append(time.perf_counter() - started)
        return answer


def job_for(owner: DueOwner) -> Job:
    """The job pgqueuer hands a worker for ``owner``'s pass."""
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
        }
    )


async def one_job(
    server: str, workspace: UUID, people: Sequence[Person], items: int
) -> dict[str, Any]:
    """The statements of ``Worker.handle`` for one owner's job of ``items`` items, in order and
    grouped, and how many for jobs of 1 and of 19 items (the most a batch holds before it is
    due at once): each the second of two jobs of its size, on warm connections."""
    sizes = sorted({1, items, FULL_BATCH - 1})
    dsn = await remake(server, RUN_DATABASE, DATABASE)
    pairs = {size: people[2 * k : 2 * k + 2] for k, size in enumerate(sizes)}
    for size, pair in pairs.items():
        await record_all(dsn, pair, size, datetime.now(UTC))
    sent: list[LoggedQuery] = []
    counted: dict[int, list[LoggedQuery]] = {}
    reader_ms: dict[int, float] = {}
    reader = TimedReader()
    # Due at once: no quick wait.
    settings = PassSettings(reader=reader, timing=timing(0.0))
    async with logged_pool(api_dsn(dsn), sent, size=2) as pool:
        worker = Worker(dsn, pool, settings, WorkerOptions())
        for size, pair in pairs.items():
            for person in pair:
                await asyncio.sleep(0.01)
                sent.clear()
                owner = DueOwner(workspace, "member", person.member_id, datetime.now(UTC), size)
                await worker.handle(job_for(owner))
                await asyncio.sleep(0.01)  # loggers are called soon after, not inline
            counted[size] = list(sent)
            reader_ms[size] = round(1000 * reader.seconds[-1], 3)
    named = statement_names()
    mine = counted[items]
    return {
        "items": items,
        "statements": len(mine),
        "per_item": round(len(mine) / items, 2),
        **grouped(mine, 1),
        "order": [statement_name(q.query, named) for q in mine],
        "ms_by_statement": milliseconds(mine, named),
        "by_size": {
            str(size): {
                "statements": len(sent),
                "per_item": round(len(sent) / size, 2),
                "rules_reader_ms": reader_ms[size],
            }
            for size, sent in counted.items()
        },
        "pages": await pages_written(dsn, workspace),
        "verdicts": await verdicts_of(dsn, workspace),
    }


def milliseconds(sent: Sequence[LoggedQuery], named: dict[str, str]) -> dict[str, float]:
    """The time each statement took, seen from the client (round trip included), by name."""
    spent: dict[str, float] = {}
    for q in sent:
        name = statement_name(q.query, named)
        spent[name] = spent.get(name, 0.0) + q.elapsed * 1000
    return {name: round(ms, 2) for name, ms in sorted(spent.items(), key=lambda kv: -kv[1])}


async def verdicts_of(dsn: str, workspace: UUID) -> dict[str, int]:
    """The verdicts of every pass so far, by kind and reason."""
    rows = await workspace_fetch(
        dsn, workspace, "SELECT verdict, reason, count(*) FROM memory_verdicts GROUP BY 1, 2"
    )
    return {f"{r['verdict']} {r['reason'] or ''}".strip(): r["count"] for r in rows}


async def pages_written(dsn: str, workspace: UUID) -> dict[str, int]:
    """How many pages the passes made, by what they are about."""
    rows = await workspace_fetch(
        dsn, workspace, "SELECT about_kind, count(*) FROM memory_pages GROUP BY 1 ORDER BY 1"
    )
    return {row["about_kind"]: row["count"] for row in rows}


async def worker_at_work(
    server: str, workspace: UUID, people: Sequence[Person], items: int
) -> dict[str, Any]:
    """The statements of a real worker (concurrency 1) running ``COUNTED_OWNERS`` passes due
    at once, from every job queued to every item read: per pass and per item, grouped."""
    dsn = await remake(server, RUN_DATABASE, DATABASE)
    counted = people[:COUNTED_OWNERS]
    arrived = datetime.now(UTC)
    await record_all(dsn, counted, items, arrived)
    quick_wait = (datetime.now(UTC) + LEAD - arrived).total_seconds()
    passes_sent: list[LoggedQuery] = []
    queue_sent: list[LoggedQuery] = []
    async with logged_pool(api_dsn(dsn), passes_sent, size=4) as pool:
        worker = Worker(dsn, pool, PassSettings(timing=timing(quick_wait)), WorkerOptions())
        with logged_queue_pools(queue_sent):
            task = asyncio.create_task(worker.run())
            try:
                await asyncio.wait_for(worker.started.wait(), 30)
                await queued_jobs(dsn, len(counted), LEAD.total_seconds())
                passes_sent.clear()
                queue_sent.clear()
                await wait_read(dsn, workspace, len(counted) * items)
                passes, queue = list(passes_sent), list(queue_sent)
            finally:
                worker.stop()
                await task
    return {
        "owners": len(counted),
        "items": len(counted) * items,
        "per_pass": {
            "pass pool": grouped(passes, len(counted)),
            "queue": grouped(queue, len(counted)),
        },
        "per_item": round((len(passes) + len(queue)) / (len(counted) * items), 2),
    }
