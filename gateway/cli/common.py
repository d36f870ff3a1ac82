"""What the commands share: a migrated database's connection, the token from the
environment, and the way a command fails."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator

import asyncpg

from db.pool import connect
from gateway.app import database_url, prepare_database
from gateway.settings import Settings

# The exit status of a command refused for its arguments or its data.
USAGE_ERROR = 2


@contextlib.asynccontextmanager
async def database(settings: Settings) -> AsyncIterator[asyncpg.Connection]:
    """A migrated database's connection (starting the embedded server when needed)."""
    dsn, _server = await database_url(settings)
    await prepare_database(dsn)
    conn = await connect(dsn)
    try:
        yield conn
    finally:
        await conn.close()


def env_token() -> str | None:
    return os.environ.get("SKILLMEM_TOKEN")


def fail(message: str) -> int:
    print(f"skillmem: {message}", file=sys.stderr)
    return USAGE_ERROR
