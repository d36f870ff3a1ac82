"""A Dreamer worker in a process of its own, whose pass is a stand-in that writes
``start KEY PID`` to a file, sleeps, then writes ``end KEY PID``; signals as `skillmem worker`
handles them. For the tests that kill a worker or stop it (test_worker_process.py). With
``real``, the pass is the real one, its reader (the rules reader) noting ``start`` and
sleeping before it answers.

    python -m tests.gateway.worker_child DSN FILE SLEEP_SECONDS HEARTBEAT_SECONDS [real]
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import timedelta
from pathlib import Path

import asyncpg

from db.dreamer_schedule import DueOwner
from db.pool import api_dsn, create_pool
from gateway.cli.worker import stop_on_signals
from gateway.worker.runner import Worker, WorkerOptions
from resolvers.memory.dreamer.batching import BatchTiming
from resolvers.memory.dreamer.guard import owner_key
from resolvers.memory.dreamer.passes import PassReport, PassSettings
from resolvers.memory.dreamer.reader import Batch, ReaderAnswer
from resolvers.memory.dreamer.rules import answer


async def main(dsn: str, out: Path, sleep: float, heartbeat: float, real: bool) -> int:
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=6)

    def note(line: str) -> None:
        with out.open("a") as file:
            file.write(f"{line} {os.getpid()}\n")

    async def stand_in(pool: asyncpg.Pool, owner: DueOwner, settings: PassSettings) -> PassReport:
        note(f"start {owner_key(owner)}")
        await asyncio.sleep(sleep)
        note(f"end {owner_key(owner)}")
        return PassReport(owner=owner)

    class SlowRules:
        async def read(self, batch: Batch) -> ReaderAnswer:
            note(f"start {len(batch.items)}")
            await asyncio.sleep(sleep)
            return answer(batch)

    options = WorkerOptions(
        concurrency=1, poll=timedelta(seconds=0.2), heartbeat=timedelta(seconds=heartbeat)
    )
    timing = BatchTiming(group_wait=timedelta(0))
    if real:
        settings = PassSettings(reader=SlowRules(), reader_name="slow", timing=timing)
        worker = Worker(dsn, pool, settings, options)
    else:
        worker = Worker(dsn, pool, PassSettings(timing=timing), options, run_pass=stand_in)
    task = asyncio.ensure_future(worker.run())
    stop_on_signals(worker, task)
    await asyncio.wait_for(worker.started.wait(), 30)
    print("ready", flush=True)
    try:
        await task
    finally:
        await pool.close()
    return 0


if __name__ == "__main__":
    dsn, out, sleep, heartbeat = sys.argv[1:5]
    real = sys.argv[5:] == ["real"]
    sys.exit(asyncio.run(main(dsn, Path(out), float(sleep), float(heartbeat), real)))
