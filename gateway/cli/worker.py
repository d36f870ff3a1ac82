"""`skillmem worker`: one Dreamer worker until SIGTERM or SIGINT. Run as many as you like, on
as many machines, against one database: each owner's pass is queued once and run by one."""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import TYPE_CHECKING, Annotated

import typer

from gateway.cli.common import run, settings

if TYPE_CHECKING:
    from gateway.settings import Settings
    from gateway.worker.runner import Worker


def register(app: typer.Typer) -> None:
    app.command("worker")(worker_command)


def positive(text: str | int) -> int:
    """A count of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise typer.BadParameter(f"not a whole number: {text!r}") from None
    if value < 1:
        raise typer.BadParameter("must be 1 or more")
    return value


def worker_command(
    concurrency: Annotated[
        int | None,
        typer.Option(
            parser=positive,
            metavar="N",
            help="Passes run at once [default: SKILLMEM_WORKER_CONCURRENCY, 1].",
        ),
    ] = None,
) -> None:
    """Run a Dreamer worker (passes from the job queue) until stopped (Ctrl-C or SIGTERM)."""
    run(work(concurrency, settings()))


async def work(concurrency: int | None, settings: Settings) -> int:
    """Migrate, then work until the first SIGTERM or SIGINT: no new job is taken and the pass
    under way finishes (a second signal stops at once; its job is run again elsewhere)."""
    from db.pool import create_pool
    from gateway.app import database_url, prepare_database, request_dsn
    from gateway.observe import logs, metrics
    from gateway.supervisor import supervising
    from gateway.worker.config import pass_settings, worker_options
    from gateway.worker.runner import Worker

    logs.configure(settings.log_format, settings.log_level)
    logging.getLogger("skillmem.worker").setLevel(settings.log_level.upper())
    if settings.worker_metrics_port is not None:
        metrics.serve_worker_metrics(settings.host, settings.worker_metrics_port)
    dsn, server = await database_url(settings)
    await prepare_database(dsn)
    options = worker_options(settings, concurrency)
    pool = await create_pool(
        request_dsn(settings, dsn),
        min_size=1,
        max_size=max(settings.pool_max_size, 2 * options.concurrency + 2),
    )
    worker = Worker(dsn, pool, pass_settings(settings), options)
    try:
        # The embedded server this process started is watched here too (gateway/supervisor.py).
        async with supervising(server, settings.supervision()) as supervisor:
            if supervisor is not None:
                supervisor.on_restart.append(worker.resume)
            await run_until_signalled(worker, options.concurrency)
    finally:
        await pool.close()
        if server is not None:
            await asyncio.to_thread(server.cleanup)
    return 0


async def run_until_signalled(worker: Worker, concurrency: int) -> None:
    task = asyncio.ensure_future(worker.run())
    stop_on_signals(worker, task)
    print(f"Dreamer worker running ({concurrency} at once); stop with Ctrl-C.", flush=True)
    try:
        await task
    except asyncio.CancelledError:
        print("Dreamer worker stopped at once.", flush=True)


def stop_on_signals(worker: Worker, task: asyncio.Future[None]) -> None:
    """The first signal stops the worker gracefully, the next one cancels it."""
    loop = asyncio.get_running_loop()

    def on_signal() -> None:
        if worker.stopping.is_set():
            task.cancel()
        else:
            print("Stopping: the batch under way finishes (again to stop at once).", flush=True)
            worker.stop()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal)
