"""Events that cross processes (issue 13, item 2): one dedicated connection per API process
LISTENs on ``skillmem_events`` (migration 0023: what a pass wrote, the proposals it decided;
ids only) and hands each event to the subscribers of its kind and workspace. A lost
connection is opened again, backing off; what was sent while it was down is not heard."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from uuid import UUID

import asyncpg
import orjson

log = logging.getLogger("skillmem.events")

CHANNEL = "skillmem_events"
KINDS = ("memory", "proposal")
# A subscriber that falls this far behind loses the oldest events.
QUEUE_SIZE = 1_000
# How long starting waits for the first LISTEN (the app starts anyway, and listens later).
START_SECONDS = 10.0
# How often the connection is checked when nothing arrives, and the longest wait to reconnect.
CHECK_SECONDS = 30.0
RECONNECT_FIRST_SECONDS = 0.5
RECONNECT_LONGEST_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Event:
    """Rows of one kind that changed in one workspace: their ids."""

    kind: str
    workspace_id: UUID
    ids: tuple[UUID, ...]


def parse(payload: str) -> Event | None:
    """The event a notification carries, or None when it is not one."""
    try:
        raw = orjson.loads(payload)
        kind = raw["kind"]
        event = Event(kind, UUID(raw["workspace"]), tuple(UUID(i) for i in raw["ids"]))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return event if kind in KINDS else None


class Listener:
    """The process's one LISTEN connection and its subscribers' queues."""

    def __init__(self, dsn: str, name: str = "skillmem-events") -> None:
        self.dsn = dsn
        # The connection's application_name (pg_stat_activity shows it).
        self.name = name
        # How many times it started listening (1, then one more each time it listened again).
        self.connections = 0
        # How many events it received (and handed to their subscribers' queues).
        self.received = 0
        self.queues: dict[tuple[str, UUID], set[asyncio.Queue[Event | None]]] = {}
        self.listening = asyncio.Event()
        # Other channels heard on the same connection (db/principal_cache.py), by name.
        self.channels: dict[str, Callable[[str], None]] = {}
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Connect and listen (waiting at most START_SECONDS for the first time), then stay
        connected."""
        self._task = asyncio.create_task(self._run())
        ready = asyncio.create_task(self.listening.wait())
        await asyncio.wait([ready], timeout=START_SECONDS)
        if not ready.done():
            ready.cancel()
            log.warning("events: not listening yet; subscriptions hear nothing until then")

    async def stop(self) -> None:
        """Stop listening; every subscription ends."""
        self._stopping.set()
        if self._task is not None:
            await self._task
        for queues in self.queues.values():
            for queue in queues:
                _put(queue, None)

    @contextlib.asynccontextmanager
    async def subscribe(
        self, kind: str, workspace_id: UUID
    ) -> AsyncIterator[asyncio.Queue[Event | None]]:
        """A queue of the events of ``kind`` in ``workspace_id`` (None: the listener stopped)."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue(QUEUE_SIZE)
        key = (kind, workspace_id)
        self.queues.setdefault(key, set()).add(queue)
        try:
            yield queue
        finally:
            found = self.queues.get(key)
            if found is not None:
                found.discard(queue)
                if not found:
                    del self.queues[key]

    def hear(self, channel: str, callback: Callable[[str], None]) -> None:
        """Call ``callback`` with each payload sent on ``channel`` (set before ``start``)."""
        self.channels[channel] = callback

    def _heard(self, conn: object, pid: int, channel: str, payload: object) -> None:
        callback = self.channels.get(channel)
        if callback is not None:
            callback(str(payload))

    def subscribers(self, kind: str, workspace_id: UUID) -> int:
        return len(self.queues.get((kind, workspace_id), ()))

    def _received(self, conn: object, pid: int, channel: str, payload: object) -> None:
        event = parse(str(payload))
        if event is None:
            log.warning("events: a notification that is no event was ignored")
            return
        self.received += 1
        for queue in self.queues.get((event.kind, event.workspace_id), ()):
            _put(queue, event)

    async def _run(self) -> None:
        delay = RECONNECT_FIRST_SECONDS
        while not self._stopping.is_set():
            try:
                await self._listen()
                delay = RECONNECT_FIRST_SECONDS
            except Exception as error:  # noqa: BLE001 - whatever breaks it, listen again
                self.listening.clear()
                log.warning("events: listening failed (%r); again in %.1f s", error, delay)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), delay)
                delay = min(delay * 2, RECONNECT_LONGEST_SECONDS)

    async def _listen(self) -> None:
        """Listen on one connection until it is lost (raises) or the listener stops."""
        conn = await asyncpg.connect(
            self.dsn, timeout=10, server_settings={"application_name": self.name}
        )
        lost = asyncio.Event()
        conn.add_termination_listener(lambda _: lost.set())
        try:
            await conn.add_listener(CHANNEL, self._received)
            for channel in self.channels:
                await conn.add_listener(channel, self._heard)
            self.connections += 1
            self.listening.set()
            while not self._stopping.is_set():
                either = [asyncio.ensure_future(e.wait()) for e in (self._stopping, lost)]
                await asyncio.wait(
                    either, timeout=CHECK_SECONDS, return_when=asyncio.FIRST_COMPLETED
                )
                for waiting in either:
                    waiting.cancel()
                if lost.is_set():
                    raise ConnectionError("the connection was closed")
                if not self._stopping.is_set():
                    await conn.fetchval("SELECT 1", timeout=10)
        finally:
            self.listening.clear()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 5)


def _put(queue: asyncio.Queue[Event | None], event: Event | None) -> None:
    """Queue ``event``, dropping the oldest one when the subscriber is too far behind."""
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(event)
