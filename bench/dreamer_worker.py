"""One Dreamer worker in a process of its own, for bench.dreamer: the real ``Worker`` (pgqueuer,
the scheduler, the owner's lock, the real pass with the ``rules`` reader), built as
`skillmem worker` builds it (gateway/cli/worker.py), its settings from ``Settings``.

    python -m bench.dreamer_worker DSN CONCURRENCY

It connects, prints ``ready``, then waits for one line ``go QUICK_WAIT_SECONDS`` on stdin: the
quick wait the benchmark chose so that every owner comes due just after the workers started.
It starts the worker, prints ``started`` once its scheduler listens, and works until SIGTERM
(the pass under way finishes), like `skillmem worker`.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from db.pool import api_dsn, create_pool
from gateway.cli.worker import stop_on_signals
from gateway.settings import Settings
from gateway.worker.config import pass_settings, worker_options
from gateway.worker.runner import Worker

READY_TIMEOUT = 30.0


async def main(dsn: str, concurrency: int) -> int:
    logging.getLogger("skillmem.worker").setLevel(logging.WARNING)
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=2 * concurrency + 2)
    try:
        print("ready", flush=True)
        line = await asyncio.to_thread(sys.stdin.readline)
        verb, _, quick_wait = line.strip().partition(" ")
        if verb != "go":
            return 1
        settings = Settings(
            database_url=dsn,
            dreamer_reader="rules",
            dreamer_quick_wait_seconds=float(quick_wait),
            worker_concurrency=concurrency,
        )
        worker = Worker(dsn, pool, pass_settings(settings), worker_options(settings))
        task = asyncio.ensure_future(worker.run())
        stop_on_signals(worker, task)
        await asyncio.wait_for(worker.started.wait(), READY_TIMEOUT)
        print("started", flush=True)
        await task
    finally:
        await pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], int(sys.argv[2]))))
