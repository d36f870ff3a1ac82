"""`skillmem serve --workers N` (issue 16, item 5): N processes on one port against one
PostgreSQL, each with its own pool. Each worker is made to answer alone by stopping the other
(SIGSTOP) for one request: both serve a token's request from the one database."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil

from tests.gateway.test_cli import CHECKOUT, command, environment, free_port

ME = {"query": "{ me { name } }"}


def listening_children(parent: psutil.Process, port: int) -> list[psutil.Process]:
    """The parent's child processes that listen on ``port`` (not multiprocessing's helpers)."""
    found = []
    for child in parent.children():
        with contextlib.suppress(psutil.Error):
            if any(
                c.status == psutil.CONN_LISTEN and c.laddr.port == port
                for c in child.net_connections("tcp")
            ):
                found.append(child)
    return found


@contextlib.contextmanager
def stopped(processes: list[psutil.Process]) -> Iterator[None]:
    """The processes stopped for the block (well under uvicorn's 5 s liveness ping)."""
    for process in processes:
        os.kill(process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for process in processes:
            # uvicorn may have replaced one that stayed stopped too long: then it is gone.
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGCONT)


async def serving_workers(
    process: subprocess.Popen[bytes], port: int, n: int, log: Path
) -> list[psutil.Process]:
    """The n worker processes, once each listens."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        workers = listening_children(psutil.Process(process.pid), port)
        if len(workers) == n:
            return workers
        await asyncio.sleep(0.2)
    output = await asyncio.to_thread(log.read_text)
    raise AssertionError(f"{n} workers did not listen on {port}:\n{output}")


@contextlib.contextmanager
def serving(dsn: str, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`skillmem serve --workers 2` on ``port`` (no Dreamer worker), its output in ``log``."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command(), "serve", "--workers", "2", "--port", str(port)],
            env=environment(dsn, SKILLMEM_WORKER="false"),
            cwd=CHECKOUT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


async def test_two_workers_each_answer_from_their_own_process(dsn, ws, tmp_path):
    port, log = free_port(), tmp_path / "serve.log"
    with serving(dsn, port, log) as process:
        workers = await serving_workers(process, port, 2, log)
        assert len({w.pid for w in workers}) == 2
        headers = {"authorization": f"Bearer {ws.tokens['viewer']}"}
        for alone in workers:
            others = [w for w in workers if w.pid != alone.pid]
            # A fresh connection, accepted by the one worker still running.
            async with httpx.AsyncClient(timeout=20) as client:
                with stopped(others):
                    me = await client.post(
                        f"http://127.0.0.1:{port}/graphql", json=ME, headers=headers
                    )
            assert me.status_code == 200, me.text
            assert me.json() == {"data": {"me": {"name": "Viewer"}}}
