"""MCP sessions with the SDK's own client, over either transport, and a workspace with
something to find: a company with a memory page, a skill with a file."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import asyncpg
import httpx
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from db.pool import api_dsn
from resolvers.common import ids
from resolvers.common.principals import principal_for_token
from resolvers.skills import writing
from resolvers.skills.versions import NewFile
from tests.factories import Workspace, load_records, make_page

ROOT = Path(__file__).resolve().parents[2]
CALL_SECONDS = 60.0
SOUVENIR = "- Acme pays its invoices at 60 days — Claire, 2026-10-02 [relation]"
SKILL_BODY = "# Invoice chase\n\n## When to use\n\nA payment is late.\n"
SCRIPT = b"print('remind')\n"


@contextlib.asynccontextmanager
async def over_http(url: str, token: str) -> AsyncIterator[ClientSession]:
    """A session on the app's /mcp, the token in the Authorization header."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=CALL_SECONDS) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def stdio_params(dsn: str, token: str | None) -> StdioServerParameters:
    """`python -m gateway.cli mcp` on the tests' database, the token from SKILLMEM_TOKEN."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", ""),
        "DATABASE_URL": dsn,
        "DATABASE_APP_URL": api_dsn(dsn),
        "SKILLMEM_WORKER": "false",
    }
    if token is not None:
        env["SKILLMEM_TOKEN"] = token
    return StdioServerParameters(
        command=sys.executable, args=["-m", "gateway.cli", "mcp"], env=env, cwd=str(ROOT)
    )


def quiet() -> TextIO:
    """Where the spawned server's standard error goes (its logs, not the protocol)."""
    return open(os.devnull, "w")


@contextlib.asynccontextmanager
async def over_stdio(dsn: str, token: str) -> AsyncIterator[ClientSession]:
    """A session with a `skillmem mcp` process spawned for it."""
    with quiet() as errors:
        async with (
            stdio_client(stdio_params(dsn, token), errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def answer(result: types.CallToolResult) -> dict[str, Any]:
    """A tool's answer; it must have succeeded."""
    assert not result.isError, result.content
    assert result.structuredContent is not None
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert json.loads(text.text) == result.structuredContent
    return result.structuredContent


def refusal(result: types.CallToolResult) -> dict[str, Any]:
    """A tool's refusal: its code, message and problems."""
    assert result.isError
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    body: dict[str, Any] = json.loads(text.text)
    assert result.structuredContent == {"error": body}
    assert "Traceback" not in text.text
    return body


@dataclass(frozen=True)
class Scene:
    acme: str
    page: str
    skill: str


async def scene(pool: asyncpg.Pool, ws: Workspace, skill: str = "invoice-chase") -> Scene:
    """Acme with a memory page, and a skill with a script, made by the workspace's member."""
    [acme] = await load_records(
        pool, ws.tokens["member"], [{"object": "companies", "label": "Acme"}]
    )
    page = await make_page(
        pool, ws, "record", ids.decode(acme, "Record", ws.id), SOUVENIR, name="Acme"
    )
    async with pool.acquire() as conn, conn.transaction():
        member = await principal_for_token(conn, ws.tokens["member"])
        assert member is not None
        await writing.create_skill(
            conn,
            member,
            name=skill,
            description="Chase late invoices politely.",
            content=SKILL_BODY,
            files=[NewFile("scripts/remind.py", SCRIPT)],
        )
    return Scene(acme, page, skill)
