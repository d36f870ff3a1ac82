"""Gateway and worker processes as an operator runs them (`skillmem serve`, `skillmem worker`),
on a database the soak names with DATABASE_URL, the requests' login role by DATABASE_APP_URL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import BinaryIO

import httpx
import psutil

from db.pool import api_dsn
from gateway.settings import CHECKOUT

HOST = "127.0.0.1"
START_SECONDS = 60.0
STOP_SECONDS = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def environment(dsn: str, **settings: str) -> dict[str, str]:
    """This process's environment without any skillmem setting, plus the soak's."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("SKILLMEM_") and key not in ("DATABASE_URL", "DATABASE_APP_URL")
    }
    env.update(
        DATABASE_URL=dsn,
        DATABASE_APP_URL=api_dsn(dsn),
        PYTHONUNBUFFERED="1",
        SKILLMEM_LOG_LEVEL="warning",
        SKILLMEM_INTROSPECTION="false",
        # The catalogue's outside is a closed local port: the soak never reaches the internet.
        SKILLMEM_CATALOG_DIRECTORY_BASE_URL="http://127.0.0.1:9",
        SKILLMEM_CATALOG_SOURCE_BASE_URL="http://127.0.0.1:9",
        **settings,
    )
    return env


@dataclass
class Process:
    """A child process of the soak (its output to a log file beside the report's)."""

    name: str
    process: asyncio.subprocess.Process
    port: int | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def signal(self, sig: int = signal.SIGTERM) -> None:
        if self.process.returncode is None:
            self.process.send_signal(sig)

    async def wait(self, seconds: float = STOP_SECONDS) -> int:
        """Its exit code, killing it when it does not exit in time."""
        try:
            return await asyncio.wait_for(self.process.wait(), seconds)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            return -9

    def cpu_seconds(self) -> float:
        """CPU time the process has used so far (user and system)."""
        times = psutil.Process(self.pid).cpu_times()
        return float(times.user + times.system)

    async def stop(self) -> int:
        self.signal(signal.SIGTERM)
        return await self.wait()


def _log_file(path: str) -> BinaryIO:
    return open(path, "ab")  # noqa: SIM115 (closed by _spawn)


async def _spawn(name: str, args: list[str], env: dict[str, str], log: str) -> Process:
    with _log_file(log) as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "gateway.cli",
            *args,
            cwd=CHECKOUT,
            env=env,
            stdout=out,
            stderr=out,
        )
    return Process(name, process)


async def wait_healthy(server: Process) -> None:
    deadline = time.monotonic() + START_SECONDS
    async with httpx.AsyncClient(timeout=2) as client:
        while time.monotonic() < deadline:
            if server.process.returncode is not None:
                raise RuntimeError(f"{server.name} exited with {server.process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(f"{server.base_url}/readyz")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise RuntimeError(f"{server.name} did not start")


async def gateway(name: str, dsn: str, log: str, **settings: str) -> Process:
    """`skillmem serve` on a free port of 127.0.0.1, ready; no worker in it unless asked."""
    port = free_port()
    settings.setdefault("SKILLMEM_WORKER", "false")
    env = environment(dsn, SKILLMEM_PORT=str(port), **settings)
    server = await _spawn(name, ["serve"], env, log)
    server.port = port
    await wait_healthy(server)
    return server


async def worker(name: str, dsn: str, log: str, **settings: str) -> Process:
    """`skillmem worker` with short timers (a late heartbeat is seen within two seconds)."""
    settings.setdefault("SKILLMEM_WORKER_POLL_SECONDS", "0.5")
    settings.setdefault("SKILLMEM_WORKER_HEARTBEAT_SECONDS", "2")
    settings.setdefault("SKILLMEM_DREAMER_GROUP_WAIT_SECONDS", "0.2")
    return await _spawn(name, ["worker"], environment(dsn, **settings), log)


@contextlib.asynccontextmanager
async def running(*started: Process) -> AsyncIterator[None]:
    """The processes stopped (SIGTERM, then SIGKILL) when the block ends."""
    try:
        yield
    finally:
        for process in started:
            if process.process.returncode is None:
                await process.stop()
