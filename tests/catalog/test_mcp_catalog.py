"""The catalogue over MCP, with the SDK's own client on the app's /mcp against a real
PostgreSQL and the test's fake source and directory: search with kinds catalog, read
catalog:<source>, an agent's copy and community search waiting as approvals for its person,
and read approval:<id> once decided."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import orjson
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from pytest_httpserver import HTTPServer

from gateway.app import create_app
from gateway.settings import Settings
from tests.catalog.fakes import SHA, repository
from tests.catalog.test_approvals import DECIDE, directory
from tests.catalog.test_preview import PDF, serve
from tests.factories import data, gql
from tests.gateway.mcp_kit import CALL_SECONDS

PROPOSE = "skillmem-propose-memory"


@contextlib.asynccontextmanager
async def session(
    api_pool: asyncpg.Pool, settings: Settings, token: str, server: HTTPServer
) -> AsyncIterator[ClientSession]:
    """The app's /mcp in this process (its lifespan run), the catalogue's outsides at the
    test's fake, the token in the Authorization header."""
    base = server.url_for("/").rstrip("/")
    changes = {
        "catalog_directory_base_url": base,
        "catalog_source_base_url": base,
        "catalog_max_retries": 0,
    }
    app = create_app(settings.model_copy(update=changes), pool=api_pool)
    headers = {"Authorization": f"Bearer {token}"}
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, headers=headers, timeout=CALL_SECONDS) as http,
        streamable_http_client("http://test/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as opened,
    ):
        await opened.initialize()
        yield opened


async def call(opened: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
    result = await opened.call_tool(name, arguments)
    answer: dict[str, Any] = orjson.loads(result.content[0].text)  # type: ignore[union-attr]
    assert not result.isError, answer
    return answer


async def test_an_agent_finds_reads_and_copies_a_shipped_skill(
    api_pool, settings, outside, ws, httpserver
):
    async with session(api_pool, settings, ws.tokens["agent"], httpserver) as opened:
        found = await call(opened, "search", query="propose", kinds=["catalog"])
        [hit] = found["hits"]
        assert (hit["kind"], hit["ref"]) == ("catalog", f"catalog:shipped:{PROPOSE}")
        read = await call(opened, "read", ref=hit["ref"])
        assert read["name"] == PROPOSE and read["skillMd"].startswith("---")
        copied = await call(opened, "copy", **{"from": hit["ref"]})
        assert copied["skill"] is None
        approval = copied["approval"]
        assert (approval["kind"], approval["status"]) == ("install", "pending")
        assert approval["card"]["whoWillSee"] == "everyone in the workspace"
        decided = await gql(
            outside, ws.tokens["member"], DECIDE, {"id": approval["id"], "approve": True}
        )
        assert data(decided, "decideApproval")["status"] == "APPROVED"
        seen = await call(opened, "read", ref=approval["ref"])
        assert (seen["status"], seen["outcome"]["skill"]) == ("approved", PROPOSE)
        skill = await call(opened, "read", ref=f"skill:{PROPOSE}")
        assert skill["name"] == PROPOSE


async def test_an_agent_reads_a_repository_pinned_to_its_commit(api_pool, settings, ws, httpserver):
    serve(httpserver, repository(PDF), ref="main")
    async with session(api_pool, settings, ws.tokens["agent"], httpserver) as opened:
        read = await call(opened, "read", ref="catalog:acme/skills/skills/pdf@main")
        copied = await call(opened, "copy", **{"from": "catalog:acme/skills/skills/pdf@main"})
    assert (read["commit"], read["visibility"], read["acceptable"]) == (SHA, "private", True)
    assert [f["path"] for f in read["files"] if f["script"]] == ["scripts/fill.py", "tools/run.sh"]
    card = copied["approval"]["card"]
    assert (card["commit"], card["files"], card["scripts"]) == (SHA, 4, read_scripts(read))


def read_scripts(read: dict[str, Any]) -> list[str]:
    return [f["path"] for f in read["files"] if f["script"]]


async def test_an_agents_community_search_waits_and_sends_nothing(
    api_pool, settings, outside, ws, httpserver
):
    received = directory(httpserver)
    async with session(api_pool, settings, ws.tokens["agent"], httpserver) as opened:
        found = await call(
            opened, "search", query="xlsx reports", kinds=["catalog"], community=True
        )
        assert received == []
        card = found["approval"]["card"]
        assert card["sent"] == ["xlsx reports", "xlsx", "reports"]
        answer = await gql(
            outside, ws.tokens["member"], DECIDE, {"id": found["approval"]["id"], "approve": True}
        )
        assert data(answer, "decideApproval")["status"] == "APPROVED"
        assert sorted(received) == sorted(card["sent"])
        seen = await call(opened, "read", ref=found["approval"]["ref"])
    assert seen["outcome"]["results"][0]["name"] == "xlsx"


async def test_copy_takes_only_a_catalogue_reference(api_pool, settings, ws, httpserver):
    async with session(api_pool, settings, ws.tokens["agent"], httpserver) as opened:
        result = await opened.call_tool("copy", {"from": "skill:anything"})
    assert result.isError
    assert orjson.loads(result.content[0].text)["code"] == "SCHEMA_VALIDATION_FAILED"  # type: ignore[union-attr]
