"""One pass per page owner at a time, whoever runs it (issue 10, item 4): a worker of the queue,
another one on another machine, or `skillmem dreamer run` beside them. The queue already keeps
one job per owner; this lock holds even outside it. A PostgreSQL advisory lock per owner, taken
on a connection of its own for the whole pass and released in ``finally``; the session's end
releases it too, so a killed worker's lock goes with its connection."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, cast

import asyncpg

from db import dreamer_queue
from db.dreamer_schedule import DueOwner

if TYPE_CHECKING:
    from resolvers.memory.dreamer.passes import PassReport, PassSettings

# What runs one owner's pass (``passes.run_pass``, or a test's stand-in).
PassRunner = Callable[[asyncpg.Pool, DueOwner, "PassSettings"], Awaitable["PassReport"]]


def owner_key(owner: DueOwner) -> str:
    """The name of one page owner's pass: the queue's dedupe key and the lock's name (ids
    only, no text)."""
    return f"dreamer:{owner.workspace_id}:{owner.owner_kind}:{owner.owner_id or '-'}"


def owner_lock(pool: asyncpg.Pool, owner: DueOwner) -> contextlib.AbstractAsyncContextManager[bool]:
    """Hold ``owner``'s pass lock for the block when no other session holds it; yields
    whether it was taken. The connection is the pool's, kept out of it meanwhile."""
    return named_lock(pool, owner_key(owner))


@contextlib.asynccontextmanager
async def named_lock(pool: asyncpg.Pool, key: str) -> AsyncIterator[bool]:
    """``owner_lock`` for any name (consolidation's audiences use it too: one run per
    audience at a time)."""
    async with pool.acquire() as proxy:
        # The pool lends a proxy that forwards every method to its connection.
        conn = cast(asyncpg.Connection, proxy)
        taken = await _locking(conn, dreamer_queue.try_owner_lock(conn, key))
        try:
            yield taken
        finally:
            if taken:
                await _locking(conn, dreamer_queue.release_owner_lock(conn, key))


async def _locking(conn: asyncpg.Connection, step: Awaitable[bool]) -> bool:
    """Run a lock statement; if it is interrupted (cancelled, or the connection failed) the
    connection is closed, so that no pooled session keeps a lock nobody knows it holds."""
    try:
        return await step
    except BaseException:
        conn.terminate()
        raise


async def run_guarded(
    pool: asyncpg.Pool, owner: DueOwner, settings: PassSettings, run_pass: PassRunner
) -> PassReport | None:
    """Run ``owner``'s pass under its lock; None (nothing run) when another session runs it."""
    async with owner_lock(pool, owner) as taken:
        if not taken:
            return None
        return await run_pass(pool, owner, settings)
