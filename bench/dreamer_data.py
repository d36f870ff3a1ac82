"""The Dreamer benchmark's data (bench/dreamer.py): the prepared database, its copies, the
people's messages recorded through the real intake, and what a run reads back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast
from uuid import UUID, uuid4

import asyncpg

from bench.generate import with_database
from db import identity
from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from gateway.demo import CRM_OBJECTS
from resolvers.common import clock
from resolvers.common.principals import issue_token, principal_for_token
from resolvers.memory.dreamer import schedule
from resolvers.memory.dreamer.batching import GROUP_WAIT, BatchTiming
from resolvers.memory.dreamer.messages import MessageInput, record_message
from resolvers.records.workspaces import create_object, create_workspace, grant_standard_roles
from resolvers.records.write import write_records

DATABASE = "skillmem_bench_dreamer"
RUN_DATABASE = f"{DATABASE}_run"
# The longest a run may take to read every item.
RUN_TIMEOUT = 600.0
# How often a run looks whether every item is read.
POLL = 0.1
REMEMBER = (
    "Remember: {mention} wants every message in French.",
    "Remember: {mention} always signs contracts in March.",
    "From now on, {mention} wants the invoices addressed to Claire Morel.",
)
PLAIN = (
    "Thanks, that looks good.",
    "What did they answer last week?",
    "Let me think about it and come back to you.",
)


@dataclass(frozen=True, slots=True)
class Person:
    """A member who talks, with their token and the company they talk about."""

    number: int
    member_id: UUID
    token: str
    company: str  # the company record's global id

    def messages(self, count: int) -> list[str]:
        """The person's ``count`` messages: a remember-request first, then plain messages and
        remember-requests alternating."""
        mention = f"@[Company {self.number}](record:{self.company})"
        said = []
        for k in range(count):
            if k % 2 == 0:
                said.append(REMEMBER[(k // 2) % len(REMEMBER)].format(mention=mention))
            else:
                said.append(PLAIN[(k // 2) % len(PLAIN)])
        return said


@dataclass(frozen=True, slots=True)
class Prepared:
    """The prepared database: its DSN, its workspace and its people."""

    dsn: str
    workspace: UUID
    people: list[Person]


async def remake(server: str, name: str, template: str | None = None) -> str:
    """Drop and create database ``name`` (a copy of ``template`` when given); its DSN."""
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        copy = f' TEMPLATE "{template}"' if template else ""
        await admin.execute(f'CREATE DATABASE "{name}"{copy}')
    finally:
        await admin.close()
    return with_database(server, name)


async def drop(server: str, name: str) -> None:
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def prepare(server: str, people: int) -> Prepared:
    """Remake the prepared database: migrated, one workspace with the CRM objects, an admin,
    and ``people`` members, each with a company the admin made."""
    dsn = await remake(server, DATABASE)
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
        async with conn.transaction():
            made = await create_workspace(conn, "Bench")
            for slug, singular, plural, attributes in CRM_OBJECTS:
                object_id = await create_object(conn, slug, singular, plural, attributes)
                await grant_standard_roles(conn, made.roles, object_id)
            admin = await identity.insert_member(
                conn, uuid4(), "Admin", "admin@bench.example", made.roles["admin"]
            )
            admin_token = await issue_token(conn, "member", member_id=admin.id, purpose="test")
            as_admin = await principal_for_token(conn, admin_token)
            assert as_admin is not None
            companies = await write_records(
                conn,
                as_admin,
                [{"object": "companies", "label": f"Company {i}"} for i in range(people)],
            )
            found = []
            for i, company in enumerate(companies):
                member = await identity.insert_member(
                    conn, uuid4(), f"Person {i}", f"person{i}@bench.example", made.roles["member"]
                )
                token = await issue_token(conn, "member", member_id=member.id, purpose="test")
                found.append(Person(i, member.id, token, company.id))
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    return Prepared(dsn, made.workspace_id, found)


async def record_all(
    dsn: str, people: Sequence[Person], items: int, at: datetime, spread: float = 0.0
) -> float:
    """Every person's messages through the intake (``messages.record_message``, one
    transaction each, as the route and the mutation record them), the clock stood at ``at``
    (person ``i`` of ``n`` at ``at`` + ``i`` × ``spread`` / ``n``); the seconds it took."""
    started = time.perf_counter()
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=2)
    try:
        for index, person in enumerate(people):
            moment = at + timedelta(seconds=spread * index / len(people))
            clock.set_clock(stood(moment))
            for text in person.messages(items):
                async with pool.acquire() as proxy, proxy.transaction():
                    conn = cast(asyncpg.Connection, proxy)
                    principal = await principal_for_token(conn, person.token)
                    assert principal is not None
                    given = MessageInput(f"bench-{person.number}", "user", text, at=moment)
                    await record_message(conn, principal, given)
    finally:
        clock.set_clock(None)
        await pool.close()
    return time.perf_counter() - started


def stood(moment: datetime) -> Callable[[], datetime]:
    """A clock stood at ``moment``."""
    return lambda: moment


def timing(quick_wait: float) -> BatchTiming:
    """The batching the workers run with: the defaults, but this quick wait."""
    return BatchTiming(group_wait=GROUP_WAIT, quick_wait=timedelta(seconds=quick_wait))


async def due_times(dsn: str, now: datetime, quick_wait: float) -> dict[UUID | None, datetime]:
    """When each owner's pass is due, as the workers' schedule sees it."""
    conn = await connect(api_dsn(dsn))
    try:
        owners = await schedule.waiting_owners(conn, now, timing(quick_wait))
    finally:
        await conn.close()
    return {owner.owner_id: owner.due_at for owner in owners}


async def workspace_fetch(dsn: str, workspace: UUID, query: str) -> list[asyncpg.Record]:
    """``query``'s rows, read as the application inside the workspace."""
    conn = await connect(dsn)
    try:
        async with conn.transaction():
            await conn.execute("SELECT app_begin_workspace($1)", workspace)
            return list(await conn.fetch(query))
    finally:
        await conn.close()


async def wait_read(dsn: str, workspace: UUID, expected: int) -> float:
    """Wait until ``expected`` items are read and none waits, looking every ``POLL`` seconds on
    one connection; the seconds waited."""
    started = time.monotonic()
    conn = await connect(dsn)
    try:
        while True:
            async with conn.transaction():
                await conn.execute("SELECT app_begin_workspace($1)", workspace)
                row = await conn.fetchrow(
                    "SELECT count(*) FILTER (WHERE status = 'waiting') AS waiting,"
                    " count(*) FILTER (WHERE status = 'read') AS read FROM memory_items"
                )
            assert row is not None
            if row["waiting"] == 0 and row["read"] >= expected:
                return time.monotonic() - started
            if time.monotonic() - started > RUN_TIMEOUT:
                raise RuntimeError(f"{row['waiting']} items still wait after {RUN_TIMEOUT:.0f} s")
            await asyncio.sleep(POLL)
    finally:
        await conn.close()


async def queued_jobs(dsn: str, expected: int, within: float) -> dict[int, tuple[str, datetime]]:
    """pgqueuer's jobs once ``expected`` are queued (or ``within`` seconds passed): each job's
    dedupe key (its owner) and when it may run."""
    deadline = time.monotonic() + within
    conn = await asyncpg.connect(dsn)
    try:
        while True:
            rows = await conn.fetch("SELECT id, dedupe_key, execute_after FROM pgqueuer")
            if len(rows) >= expected or time.monotonic() > deadline:
                return {row["id"]: (row["dedupe_key"], row["execute_after"]) for row in rows}
            await asyncio.sleep(0.02)
    finally:
        await conn.close()


async def picked_times(dsn: str) -> dict[int, datetime]:
    """When pgqueuer handed each job to a worker (its log's first ``picked``)."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT job_id, min(created) AS at FROM pgqueuer_log WHERE status = 'picked'"
            " GROUP BY job_id"
        )
    finally:
        await conn.close()
    return {row["job_id"]: row["at"] for row in rows}
