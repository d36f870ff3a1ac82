"""Dreams on the real queue (issue 14, item 5): the schedulers queue one `dreams.run` job per
dream however many see it, a worker runs the dream to `completed`, and the periodic job
(what `skillmem dreamer run` runs) runs a dream too. Every test has its own database: the
workers read the dreams across workspaces."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import UUID

import asyncpg
import pytest

from db.migrate import apply_migrations
from db.pool import api_dsn, begin_workspace, connect, create_pool
from gateway.worker.periodic import periodic_jobs, run_all
from gateway.worker.queue import DREAM_ENTRYPOINT, queue_queries, schedule_dreams
from gateway.worker.runner import Worker
from resolvers.common import clock
from resolvers.common.principals import principal_for_token
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.stores import dreaming, dreams, memories, stores
from tests.factories import Workspace, make_workspace
from tests.gateway.worker_kit import FAST, eventually, running

DUPLICATES = "- Prefers tea\n- prefers tea"


@pytest.fixture
async def pools(new_database) -> AsyncIterator[tuple[str, asyncpg.Pool, asyncpg.Pool]]:  # type: ignore[no-untyped-def]
    """A migrated database of this test's own: its URL, the owner's pool and the app's."""
    url = str(await new_database())
    conn = await connect(url)
    await apply_migrations(conn)
    await conn.close()
    owner = await create_pool(url, min_size=1, max_size=4)
    app = await create_pool(api_dsn(url), min_size=1, max_size=8)
    yield url, owner, app
    await app.close()
    await owner.close()


async def asked(pool: asyncpg.Pool, ws: Workspace) -> tuple[UUID, UUID]:
    """A store with a duplicate and a dream of it, asked by the admin: their ids."""
    async with pool.acquire() as conn, conn.transaction():
        admin = await principal_for_token(conn, ws.tokens["admin"])
        assert admin is not None
        store = await stores.create_store(conn, admin, stores.StoreInput("Tea"))
        await memories.create_memory(conn, admin, store.id, "/tea.md", DUPLICATES)
        given = dreams.DreamInput(
            store.id, "m", behavior="update_existing", output_store_id=store.id
        )
        dream = await dreams.create_dream(conn, admin, given)
    return store.id, dream.id


async def status_of(pool: asyncpg.Pool, ws: Workspace, dream_id: UUID) -> str:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        status: str = await conn.fetchval("SELECT status FROM dreams WHERE id = $1", dream_id)
    return status


async def test_a_dream_is_queued_once_and_run_by_a_worker(pools):
    url, owner, app = pools
    ws = await make_workspace(owner, "Dreams")
    _, dream_id = await asked(app, ws)
    queue_pool = await asyncpg.create_pool(url, min_size=1, max_size=4)
    try:
        queries = queue_queries(queue_pool)
        counts = await asyncio.gather(*(schedule_dreams(queries, app) for _ in range(3)))
        assert sum(counts) == 1
    finally:
        await queue_pool.close()
    [job] = await owner.fetch("SELECT entrypoint, dedupe_key, payload FROM pgqueuer")
    assert job["entrypoint"] == DREAM_ENTRYPOINT
    assert job["dedupe_key"] == dreaming.dream_key(ws.id, dream_id)
    assert str(dream_id) in job["payload"].decode()  # ids only
    worker = Worker(url, app, PassSettings(), FAST, periodic=())
    async with running(worker):

        async def done() -> bool:
            return await status_of(app, ws, dream_id) == "completed"

        await eventually(done)
        await eventually(lambda: _no_jobs(owner))


async def _no_jobs(owner: asyncpg.Pool) -> bool:
    return await owner.fetchval("SELECT count(*) FROM pgqueuer") == 0


async def test_the_periodic_job_runs_the_dreams_due(pools):
    _, owner, app = pools
    ws = await make_workspace(owner, "Dreams")
    store_id, dream_id = await asked(app, ws)
    [job] = [job for job in periodic_jobs() if job.name == dreaming.DREAMS_JOB]
    [line] = await run_all(app, clock.now(), PassSettings(), [job])
    assert f"dream {dream_id}" in line and "completed" in line
    assert await status_of(app, ws, dream_id) == "completed"
    async with app.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        content = await conn.fetchval(
            "SELECT content FROM store_memories WHERE store_id = $1", store_id
        )
    assert content == "- Prefers tea"
    assert await run_all(app, clock.now(), PassSettings(), [job]) == []
