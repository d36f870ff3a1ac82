"""Which passes are due (issue 10, item 3): the schedule across workspaces, with the batching
settings of ``batching.BatchTiming``."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from db import dreamer_schedule
from db.dreamer_schedule import DueOwner
from resolvers.memory.dreamer.batching import BatchTiming

DEFAULT_TIMING = BatchTiming()


async def due_owners(
    conn: asyncpg.Connection, now: datetime, timing: BatchTiming = DEFAULT_TIMING
) -> list[DueOwner]:
    """The page owners whose pass is due at ``now`` (due time reached), soonest first."""
    waiting = await waiting_owners(conn, now, timing)
    return [owner for owner in waiting if owner.due_at <= now]


async def waiting_owners(
    conn: asyncpg.Connection, now: datetime, timing: BatchTiming = DEFAULT_TIMING
) -> list[DueOwner]:
    """Every page owner with items waiting at ``now``, with when its pass is due."""
    return await dreamer_schedule.due_owners(
        conn, now, timing.group_wait, timing.quick_wait, timing.full_batch
    )
