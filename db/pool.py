"""The asyncpg pool and the per-transaction workspace context."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from uuid import UUID

import asyncpg
import orjson


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


class SerialConnection(asyncpg.Connection):
    """A connection whose statements wait their turn.

    One request owns one connection, and GraphQL resolves sibling fields concurrently; this
    queues their statements on the request's connection instead of failing with "another
    operation is in progress".
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._turn = asyncio.Lock()

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        async with self._turn:
            return await super().execute(*args, **kwargs)

    async def executemany(self, *args: Any, **kwargs: Any) -> Any:
        async with self._turn:
            return await super().executemany(*args, **kwargs)

    async def fetch(self, *args: Any, **kwargs: Any) -> Any:
        async with self._turn:
            return await super().fetch(*args, **kwargs)

    async def fetchrow(self, *args: Any, **kwargs: Any) -> Any:
        async with self._turn:
            return await super().fetchrow(*args, **kwargs)

    async def fetchval(self, *args: Any, **kwargs: Any) -> Any:
        async with self._turn:
            return await super().fetchval(*args, **kwargs)


async def init_connection(conn: asyncpg.Connection) -> None:
    """Decode json and jsonb with orjson on every new connection."""
    for kind in ("json", "jsonb"):
        await conn.set_type_codec(kind, encoder=_dumps, decoder=orjson.loads, schema="pg_catalog")


async def keep_session(conn: asyncpg.Connection) -> None:
    """Reset nothing when a connection goes back to the pool.

    asyncpg otherwise sends a reset query (unlock, close cursors, unlisten, RESET ALL) after
    every request. Here the role and workspace are set with ``set_config(..., true)``, which
    ends with the transaction, and nothing else touches session state; an unfinished
    transaction is still rolled back by asyncpg before this runs.
    """


# Server-side bounds on every pooled connection, whatever role it logs in as: no statement runs
# longer, and no transaction sits idle longer (its session is then ended), so a stuck request
# cannot hold locks or a connection for good. Set in the startup packet: no round trip.
STATEMENT_TIMEOUT = "30s"
IDLE_IN_TRANSACTION_TIMEOUT = "30s"
POOL_SERVER_SETTINGS = {
    "statement_timeout": STATEMENT_TIMEOUT,
    "idle_in_transaction_session_timeout": IDLE_IN_TRANSACTION_TIMEOUT,
}


async def create_pool(dsn: str, *, min_size: int = 2, max_size: int = 10) -> asyncpg.Pool:
    """Open a pool of connections to ``dsn``."""
    pool = await asyncpg.create_pool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        init=init_connection,
        command_timeout=30,
        connection_class=SerialConnection,
        reset=keep_session,
        server_settings=POOL_SERVER_SETTINGS,
    )
    assert pool is not None
    return pool


async def connect(dsn: str) -> asyncpg.Connection:
    """Open one connection with the same codecs as the pool's."""
    conn = await asyncpg.connect(dsn, connection_class=SerialConnection)
    await init_connection(conn)
    return conn


API_ROLE = "skillmem_api"


def api_dsn(owner_dsn: str) -> str:
    """The same database reached as the login role the service runs as (for servers that
    trust local connections, like the embedded one)."""
    parts = urlsplit(owner_dsn)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{API_ROLE}@{host}"))


async def begin_workspace(conn: asyncpg.Connection, workspace_id: UUID) -> None:
    """Inside a transaction: act as the application role in ``workspace_id`` until it ends."""
    await conn.execute("SELECT app_begin_workspace($1)", workspace_id)
