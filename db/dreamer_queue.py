"""The Dreamer's queue beside pgqueuer: one advisory lock per page owner's pass, the channel
that wakes the schedulers, and moving a queued pass earlier (db/queries/dreamer_queue.sql)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import asyncpg

from db.sql import queries

Q = queries("dreamer_queue")

# NOTIFY'd by migration 0013's trigger when an item arrives (payload empty).
WAKE_CHANNEL = "skillmem_dreamer"


async def try_owner_lock(conn: asyncpg.Connection, key: str) -> bool:
    """Take the session-level advisory lock named ``key`` (hashed to 64 bits) unless another
    session holds it; True when taken. Released by ``release_owner_lock`` or the session's
    end (a killed worker's lock goes with its connection)."""
    taken: bool = await conn.fetchval(Q["try_owner_lock"], key)
    return taken


async def release_owner_lock(conn: asyncpg.Connection, key: str) -> bool:
    """Release the advisory lock named ``key``; False when this session did not hold it."""
    released: bool = await conn.fetchval(Q["release_owner_lock"], key)
    return released


async def advance_jobs(
    conn: asyncpg.Connection,
    entrypoint: str,
    dedupe_keys: Sequence[str],
    delays: Sequence[timedelta],
) -> int:
    """Move every queued ``entrypoint`` job named by a dedupe key to run after its delay from
    now, when that is sooner than it was queued for and it is not waiting to be tried again
    after a failure; return how many moved."""
    status: str = await conn.execute(Q["advance_jobs"], entrypoint, list(dedupe_keys), list(delays))
    return int(status.rsplit(" ", 1)[-1])


async def queue_job_counts(conn: asyncpg.Connection) -> list[tuple[str, str, int]]:
    """The queue's jobs as (entrypoint, state, jobs), read as the application role with no
    workspace (its own transaction)."""
    async with conn.transaction():
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        rows = await conn.fetch(Q["queue_job_counts"])
    return [(row["entrypoint"], row["state"], row["jobs"]) for row in rows]
