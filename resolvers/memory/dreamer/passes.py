"""A pass of the Dreamer over one page owner's waiting items (issue 10): gather the batch, let
the reader propose, decide every verdict by code, write the pages, charge the payer.

Three steps on one connection: (1) lock and gather the waiting items, deferring what the
payer's allowance does not cover; (2) the reader, with no transaction open; (3) in one
transaction, the items still waiting are locked again, the pages re-read under lock, the
verdicts decided and written with the items marked read and the payer charged. A pass killed
before (3) commits wrote nothing; one re-run reads only what is still waiting, so nothing is
written twice. One owner's pass runs once at a time anywhere (a PostgreSQL advisory lock).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any, cast
from uuid import UUID, uuid4

import asyncpg

from db import dreamer_pass
from db.dreamer_pass import PassRow, WorkspaceFacts
from db.dreamer_schedule import DueOwner
from db.pool import begin_workspace
from resolvers.common import clock
from resolvers.memory.dreamer import apply, guard, schedule
from resolvers.memory.dreamer.batching import BatchTiming
from resolvers.memory.dreamer.gather import gather, named_actors
from resolvers.memory.dreamer.intake import AGENT_MEMORY_OFF
from resolvers.memory.dreamer.reader import Reader, ReaderAnswer, ReaderError
from resolvers.memory.dreamer.rules import RulesReader
from resolvers.memory.dreamer.spend import Prices, cost_usd
from resolvers.memory.dreamer.verdicts import decide
from resolvers.memory.mail import exchanges
from resolvers.memory.settings import (
    DEFAULT_PERSON_MONTHLY_LIMIT_USD,
    DEFAULT_TENANT_MONTHLY_LIMIT_USD,
)

log = logging.getLogger("skillmem.dreamer")
# Without AI credits a workspace's items wait; they are looked at again after this long.
NO_CREDITS_RETRY = timedelta(hours=1)
# A batch holds at most this many items and about this many characters (a longer item is
# read alone); the rest wait for the next pass, due at once.
MAX_BATCH_ITEMS = 50
MAX_BATCH_CHARS = 60_000
# A reader that fails (a malformed answer, a timeout, a server's error) is tried again later
# and later; after the last attempt its items are not read (``reader_failed``).
READER_RETRY_FIRST = timedelta(minutes=1)
READER_RETRY_LONGEST = timedelta(hours=1)
MAX_READER_ATTEMPTS = 6
READER_FAILED = "reader_failed"


@dataclass(frozen=True, slots=True)
class PassSettings:
    """What every pass runs with: the reader and its name, its prices, the batching."""

    reader: Reader = field(default_factory=RulesReader)
    reader_name: str = "rules"
    prices: Prices = Prices()
    timing: BatchTiming = BatchTiming()
    # Whether the process is stopping (the worker's SIGTERM): a pass then ends after the batch
    # under way, each batch being committed on its own; what still waits is read by the next
    # pass (another worker's), so a backlog never holds a stopping worker past its grace.
    stopping: Callable[[], bool] = field(default=lambda: False)


@dataclass(frozen=True, slots=True)
class PassReport:
    """What one pass did: items read, items left waiting (over the allowance, or the reader
    failed), verdicts by kind, and its cost."""

    owner: DueOwner
    read: int = 0
    waiting: int = 0
    written: int = 0
    refreshed: int = 0
    refused: int = 0
    cost_usd: Decimal = Decimal(0)
    note: str = ""
    # The batch was cut (MAX_BATCH_ITEMS, MAX_BATCH_CHARS): more items wait to be read now.
    cut: bool = False
    # Every verdict written, as (verdict, reason): what the metrics count by reason.
    reasons: tuple[tuple[str, str | None], ...] = ()


def month_of(moment: datetime) -> date:
    """The first day of ``moment``'s calendar month in UTC (whatever its own offset)."""
    return clock.utc_day(moment).replace(day=1)


def next_month(moment: datetime) -> datetime:
    """Midnight UTC on the first day of the month after ``moment``'s (UTC)."""
    first = month_of(moment)
    year, month = (first.year + 1, 1) if first.month == 12 else (first.year, first.month + 1)
    return datetime(year, month, 1, tzinfo=UTC)


def allowance(facts: WorkspaceFacts, payer_kind: str) -> Decimal:
    """The payer's monthly allowance (a person's, or the workspace's), as set or the default."""
    if payer_kind == "member":
        return Decimal(facts.person_limit or DEFAULT_PERSON_MONTHLY_LIMIT_USD)
    return Decimal(facts.tenant_limit or DEFAULT_TENANT_MONTHLY_LIMIT_USD)


async def _budget(
    conn: asyncpg.Connection, facts: WorkspaceFacts, rows: Sequence[asyncpg.Record], now: datetime
) -> tuple[list[asyncpg.Record], str]:
    """The items the payer's allowance lets this pass read (the rest deferred), and why not
    all: without AI credits none; over the allowance only proposals, the rest kept for the
    first day of next month (or the next pass once the allowance is raised)."""
    if not facts.ai_credits:
        await dreamer_pass.defer(conn, [row["id"] for row in rows], now + NO_CREDITS_RETRY)
        return [], "the workspace has no AI credits"
    payer_kind, payer_id = rows[0]["payer_kind"], rows[0]["payer_id"]
    mine = [row for row in rows if (row["payer_kind"], row["payer_id"]) == (payer_kind, payer_id)]
    spent = await dreamer_pass.spent(conn, payer_kind, payer_id, month_of(now))
    if spent < allowance(facts, payer_kind):
        return mine, ""
    kept = [row for row in mine if row["kind"] != "proposal"]
    await dreamer_pass.defer(conn, [row["id"] for row in kept], next_month(now))
    return [row for row in mine if row["kind"] == "proposal"], "over the allowance"


async def run_pass(pool: asyncpg.Pool, owner: DueOwner, settings: PassSettings) -> PassReport:
    """Run one page owner's pass to completion under its lock (``guard``); safe to re-run
    (idempotent per item). Another pass of the same owner running anywhere: this one does
    nothing."""
    async with guard.owner_lock(pool, owner) as taken:
        if not taken:
            return PassReport(owner, note="running elsewhere")
        return await run_unguarded(pool, owner, settings)


async def run_unguarded(pool: asyncpg.Pool, owner: DueOwner, settings: PassSettings) -> PassReport:
    """``run_pass`` for a caller that holds the owner's lock already (the worker). A batch cut
    to its size is followed by the next, until what the allowance lets it read is read."""
    async with pool.acquire() as proxy:
        return await run_on(cast(asyncpg.Connection, proxy), owner, settings)


async def run_on(conn: asyncpg.Connection, owner: DueOwner, settings: PassSettings) -> PassReport:
    """``run_unguarded`` on the caller's connection (the demo's, inside its own transaction,
    where its batches become savepoints)."""
    report = await _pass(conn, owner, settings)
    while report.cut:
        if settings.stopping():
            log.info("stopping: the pass of %s ends after its batch; the rest waits", key_of(owner))
            return replace(report, cut=False, note=report.note or "stopped after a batch")
        more = await _pass(conn, owner, settings)
        report = replace(
            more,
            read=report.read + more.read,
            written=report.written + more.written,
            refreshed=report.refreshed + more.refreshed,
            refused=report.refused + more.refused,
            cost_usd=report.cost_usd + more.cost_usd,
        )
    return report


async def _pass(conn: asyncpg.Connection, owner: DueOwner, settings: PassSettings) -> PassReport:
    # In UTC, whatever the clock's offset (`dreamer run --now` may give one): the pass's day,
    # its month of spend, and the 30 days of mail it reads.
    started = clock.now().astimezone(UTC)
    async with conn.transaction():
        await begin_workspace(conn, owner.workspace_id)
        rows = await dreamer_pass.waiting_items(
            conn, owner.owner_kind, owner.owner_id, started, exchanges.REACH
        )
        rows = await exchanges.without_closed(conn, rows)
        rows = await _without_memory_off(conn, rows, started)
        if not rows:
            return PassReport(owner, note="nothing waiting")
        facts = await dreamer_pass.workspace_facts(conn)
        allowed, note = await _budget(conn, facts, rows, started)
        readable = capped(allowed)
        if not readable:
            return PassReport(owner, waiting=len(rows), note=note)
        where = (owner.owner_kind, owner.owner_id)
        batch = (
            await gather(
                conn, owner.workspace_id, facts.name, where, readable, clock.utc_day(started)
            )
        ).batch
    try:
        answer = await settings.reader.read(batch)
    except Exception as error:  # noqa: BLE001 - any reader failure keeps the items for a retry
        log.warning(
            "dreamer reader %s failed for %s: %s", settings.reader_name, key_of(owner), error
        )
        note = await _reader_failed(conn, owner, settings, readable, error, started)
        return PassReport(owner, waiting=len(rows), note=note)
    report = await _write(conn, owner, settings, facts, readable, answer, started)
    cut = len(readable) < len(allowed) and report.read > 0
    return replace(report, waiting=len(rows) - report.read, note=note or report.note, cut=cut)


async def _without_memory_off(
    conn: asyncpg.Connection, rows: Sequence[asyncpg.Record], now: datetime
) -> list[asyncpg.Record]:
    """A pass's waiting rows but those that came through an agent whose memory is off now
    (``waiting_items``' memory_off), which are not read now (a proposal's too)."""
    off = [row["id"] for row in rows if row["memory_off"]]
    if off:
        await dreamer_pass.close_items(conn, off, AGENT_MEMORY_OFF, now)
    return [row for row in rows if not row["memory_off"]]


def capped(rows: Sequence[asyncpg.Record]) -> list[asyncpg.Record]:
    """The first rows a batch holds: at most MAX_BATCH_ITEMS, and no more text than
    MAX_BATCH_CHARS (the first row always, however long)."""
    kept: list[asyncpg.Record] = []
    length = 0
    for row in rows[:MAX_BATCH_ITEMS]:
        length += row["text_length"]
        if kept and length > MAX_BATCH_CHARS:
            break
        kept.append(row)
    return kept


async def _reader_failed(
    conn: asyncpg.Connection,
    owner: DueOwner,
    settings: PassSettings,
    readable: Sequence[asyncpg.Record],
    error: Exception,
    started: datetime,
) -> str:
    """The items wait longer after each failure (1, 2, 4 ... minutes, at most an hour), then
    are not read; tokens a malformed answer spent are charged all the same."""
    item_ids = [row["id"] for row in readable]
    async with conn.transaction():
        await begin_workspace(conn, owner.workspace_id)
        attempts = await dreamer_pass.count_attempt(conn, item_ids, started)
        delay = min(READER_RETRY_FIRST * 2 ** max(attempts - 1, 0), READER_RETRY_LONGEST)
        if attempts >= MAX_READER_ATTEMPTS:
            await dreamer_pass.give_up(conn, item_ids, started)
        else:
            await dreamer_pass.defer(conn, item_ids, started + delay)
        if isinstance(error, ReaderError) and error.usage is not None:
            cost = cost_usd(error.usage, settings.prices)
            payer = readable[0]["payer_kind"], readable[0]["payer_id"]
            await dreamer_pass.charge(conn, *payer, month_of(started), cost)
    if attempts >= MAX_READER_ATTEMPTS:
        return f"the reader failed {attempts} times: {READER_FAILED}"
    return f"the reader failed ({type(error).__name__}); again in {delay}"


def key_of(owner: DueOwner) -> str:
    """How a pass's owner is named in the log."""
    return f"{owner.workspace_id}/{owner.owner_kind}/{owner.owner_id or '-'}"


def report_of(
    owner: DueOwner, read: int, waiting: int, cost: Decimal, verdicts: Sequence[dict[str, Any]]
) -> PassReport:
    """A written pass's report: its verdicts counted by kind, and each with its reason."""
    counts = {
        kind: sum(v["verdict"] == kind for v in verdicts)
        for kind in ("written", "refreshed", "refused")
    }
    reasons = tuple((v["verdict"], v["reason"]) for v in verdicts)
    return PassReport(owner, read=read, waiting=waiting, cost_usd=cost, reasons=reasons, **counts)


async def _write(
    conn: asyncpg.Connection,
    owner: DueOwner,
    settings: PassSettings,
    facts: WorkspaceFacts,
    readable: Sequence[asyncpg.Record],
    answer: ReaderAnswer,
    started: datetime,
) -> PassReport:
    """Step 3: the verdicts decided on the pages as they are now, written in one transaction."""
    async with conn.transaction():
        await begin_workspace(conn, owner.workspace_id)
        still = set(await dreamer_pass.still_waiting(conn, [row["id"] for row in readable]))
        rows = [row for row in readable if row["id"] in still]
        if not rows:
            return PassReport(owner, note="read by another pass")
        where = (owner.owner_kind, owner.owner_id)
        named = named_actors(answer, owner.workspace_id)
        gathered = await gather(
            conn,
            owner.workspace_id,
            facts.name,
            where,
            rows,
            clock.utc_day(started),
            lock_pages=True,
            named=named,
        )
        decisions = decide(gathered.batch, answer, gathered.context)
        finished = clock.now()
        pages = await apply.write_pages(conn, gathered, decisions, finished)
        cost = cost_usd(answer.usage, settings.prices)
        pass_id = uuid4()
        payer_kind, payer_id = rows[0]["payer_kind"], rows[0]["payer_id"]
        await dreamer_pass.insert_pass(
            conn,
            PassRow(
                pass_id,
                owner.owner_kind,
                owner.owner_id,
                payer_kind,
                payer_id,
                settings.reader_name,
                len(rows),
                answer.usage.input_tokens,
                answer.usage.output_tokens,
                cost,
                started,
                finished,
            ),
        )
        await dreamer_pass.charge(conn, payer_kind, payer_id, month_of(started), cost)
        verdicts = await apply.record(conn, gathered, rows, decisions, pages, pass_id, finished)
    return report_of(owner, len(rows), len(readable) - len(rows), cost, verdicts)


async def run_due(
    pool: asyncpg.Pool,
    now: datetime,
    settings: PassSettings,
    workspaces: Collection[UUID] | None = None,
) -> list[PassReport]:
    """Run every pass due at ``now`` to completion, soonest due first (only those of
    ``workspaces`` when given)."""
    async with pool.acquire() as proxy:
        due = await schedule.due_owners(cast(asyncpg.Connection, proxy), now, settings.timing)
    if workspaces is not None:
        due = [owner for owner in due if owner.workspace_id in workspaces]
    return [await run_pass(pool, owner, settings) for owner in due]


def owner_of(workspace_id: UUID, kind: str, owner_id: UUID | None) -> DueOwner:
    """A page owner to run a pass for by hand (tests, the worker's payload)."""
    return DueOwner(workspace_id, kind, owner_id, clock.now(), 0)
