"""MCP over stdio (`skillmem mcp`): a desktop client spawns the process, which talks to the
database directly, every request as the token it was started with (each in its own
transaction, as over HTTP). Standard output carries only the protocol; logs go to standard
error."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

import asyncpg
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from db.pool import create_pool
from gateway.app import database_url, prepare_database, request_dsn
from gateway.mcp.server import acting, build_server
from gateway.settings import Settings
from resolvers.common.errors import DomainError

log = logging.getLogger("skillmem.mcp")

# Connections the stdio server keeps: one client, one request at a time or a few.
POOL_MAX_SIZE = 4


async def token_problem(pool: asyncpg.Pool, token: str) -> str | None:
    """Why the token will be refused, said once at start (each request checks it again)."""
    try:
        async with acting(pool, token):
            return None
    except DomainError as error:
        return error.message


async def serve_stdio(settings: Settings, token: str) -> int:
    """Serve MCP on stdin and stdout until the client closes them."""
    dsn, embedded = await database_url(settings)
    await prepare_database(dsn)
    pool = await create_pool(request_dsn(settings, dsn), min_size=1, max_size=POOL_MAX_SIZE)
    try:
        problem = await token_problem(pool, token)
        if problem is not None:
            print(f"skillmem mcp: {problem} Every request will be refused.", file=sys.stderr)

        def caller(_: Server[Any, Any]) -> tuple[asyncpg.Pool, str | None]:
            return pool, token

        server = build_server(caller, settings.catalog())
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await pool.close()
        if embedded is not None:
            await asyncio.to_thread(embedded.cleanup)
    return 0
