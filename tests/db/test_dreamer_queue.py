"""The Dreamer's queue in the database: pgqueuer's schema as migration 0012 installs it (what
the pinned pgqueuer expects, nothing to upgrade), the owner lock, moving a queued job earlier,
and the NOTIFY that wakes the schedulers when an item arrives."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

import asyncpg
import pgqueuer
import pytest
from pgqueuer import QueueManager
from pgqueuer.adapters.persistence.qb import QueryBuilderEnvironment

from db import dreamer_queue
from db.migrate import MIGRATIONS_DIR
from gateway.worker.queue import PASS_ENTRYPOINT, queue_names, queue_queries
from tests.factories import Workspace
from tests.gateway.dreamer_items import add_waiting, clear_items

INSTALL_MIGRATION = MIGRATIONS_DIR / "0012_job_queue.sql"


@pytest.fixture
async def queue_pool(dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """Plain connections as the tables' owner, as a worker's queue uses."""
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=3)
    assert pool is not None
    yield pool
    await pool.close()


def test_migration_0012_is_pgqueuers_install_verbatim():
    # 0012 is the install SQL of the version its header names; after an upgrade of pgqueuer it
    # stays as it is and the next migrations bring the schema up (the test below).
    text = INSTALL_MIGRATION.read_text()
    version = re.search(r"^-- pgqueuer (\S+) --", text, re.M)
    assert version is not None
    if version[1] == pgqueuer.__version__:
        names = queue_names()
        assert QueryBuilderEnvironment(names).build_install_query(create_schema=False) in text


def test_the_installed_pgqueuer_is_the_pinned_one():
    pyproject = (MIGRATIONS_DIR.parents[1] / "pyproject.toml").read_text()
    assert f'"pgqueuer=={pgqueuer.__version__}"' in pyproject


async def test_the_migrated_queue_is_what_pgqueuer_expects(queue_pool):
    # When pgqueuer is upgraded this fails until a migration brings its schema up
    # (CONTRIBUTING.md, "When pgqueuer is upgraded").
    queries = queue_queries(queue_pool)
    plan = await queries.plan_upgrade()
    assert plan.statements == ()
    await QueueManager(queries).verify_structure()


async def test_an_owner_lock_is_held_by_one_session_until_released(dsn):
    first, second = await asyncpg.connect(dsn), await asyncpg.connect(dsn)
    key = f"dreamer:{uuid.uuid4()}:member:{uuid.uuid4()}"
    try:
        assert await dreamer_queue.try_owner_lock(first, key)
        assert not await dreamer_queue.try_owner_lock(second, key)
        # Another owner's lock is another lock.
        assert await dreamer_queue.try_owner_lock(second, key + "x")
        assert await dreamer_queue.release_owner_lock(first, key)
        assert not await dreamer_queue.release_owner_lock(first, key)
        assert await dreamer_queue.try_owner_lock(second, key)
        # A session's end releases its locks (a killed worker's connection).
        await second.close()
        assert await dreamer_queue.try_owner_lock(first, key)
    finally:
        await first.close()
        if not second.is_closed():
            await second.close()


async def test_a_queued_job_moves_earlier_never_later(queue_pool):
    queries = queue_queries(queue_pool)
    key = f"dreamer:test:{uuid.uuid4()}"
    other = f"dreamer:test:{uuid.uuid4()}"
    await queries.enqueue(
        [PASS_ENTRYPOINT] * 2,
        [b"{}", b"{}"],
        [0, 0],
        execute_after=[timedelta(hours=1), timedelta(minutes=1)],
        dedupe_key=[key, other],
    )
    async with queue_pool.acquire() as conn:
        moved = await dreamer_queue.advance_jobs(
            conn, PASS_ENTRYPOINT, [key, other], [timedelta(minutes=5), timedelta(minutes=30)]
        )
        assert moved == 1
        waits = dict(
            await conn.fetch(
                "SELECT dedupe_key, execute_after - now() FROM pgqueuer WHERE dedupe_key = ANY($1)",
                [key, other],
            )
        )
        await conn.execute("DELETE FROM pgqueuer WHERE dedupe_key = ANY($1)", [key, other])
    assert timedelta(minutes=4) < waits[key] <= timedelta(minutes=5)
    assert waits[other] <= timedelta(minutes=1)


async def test_an_item_arriving_wakes_the_schedulers(dsn, pool, ws: Workspace):
    listener = await asyncpg.connect(dsn)
    heard: asyncio.Queue[str] = asyncio.Queue()
    await listener.add_listener(dreamer_queue.WAKE_CHANNEL, lambda *args: heard.put_nowait(args[3]))
    try:
        await add_waiting(pool, ws.id)
        assert await asyncio.wait_for(heard.get(), 5) == ""
    finally:
        await listener.close()
        await clear_items(pool, ws.id)
