"""MCP with the SDK's own client, over streamable HTTP (the app under uvicorn, /mcp) and over
stdio (`python -m gateway.cli mcp`): every tool, the forbidden writes, bad input, another
workspace's ids, and skills as resources."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl

from gateway.cli.main import main
from resolvers.common import ids
from tests.factories import bearer
from tests.gateway.mcp_kit import (
    SCRIPT,
    SKILL_BODY,
    answer,
    over_http,
    over_stdio,
    refusal,
    scene,
)
from tests.gateway.server import serving

Opener = Callable[[str], contextlib.AbstractAsyncContextManager[ClientSession]]
TOOLS = {
    "search",
    "copy",
    "read",
    "propose_memory",
    "recall",
    "turn_context",
    "write_records",
    "trash_record",
}


@pytest.fixture(scope="module")
def served(dsn: str) -> Iterator[str]:
    with serving(dsn) as url:
        yield url


@pytest.fixture(params=["http", "stdio"])
def opener(request: pytest.FixtureRequest, dsn: str) -> Opener:
    """A session as a token, over the transport of the test's parameter."""
    if request.param == "http":
        url = request.getfixturevalue("served")
        return lambda token: over_http(url, token)
    return lambda token: over_stdio(dsn, token)


@contextlib.asynccontextmanager
async def as_(opener: Opener, token: str) -> AsyncIterator[ClientSession]:
    async with opener(token) as session:
        yield session


async def call(session: ClientSession, name: str, **arguments: Any) -> Any:
    return await session.call_tool(name, arguments)


async def test_tools_are_listed_with_their_schemas(opener, ws):
    async with as_(opener, ws.tokens["mcp_client"]) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(listed) == TOOLS
    search = listed["search"].inputSchema
    assert search["required"] == ["query"]
    assert search["additionalProperties"] is False
    assert search["properties"]["kinds"]["items"]["enum"] == ["memory", "skill", "catalog"]
    assert listed["propose_memory"].inputSchema["properties"]["recordId"]
    assert listed["read"].annotations is not None and listed["read"].annotations.readOnlyHint


async def test_search_then_read_what_it_found(opener, pool, ws):
    made = await scene(pool, ws)
    async with as_(opener, ws.tokens["mcp_client"]) as session:
        found = answer(await call(session, "search", query="invoices", kinds=["memory"]))
        assert [(h["kind"], h["id"]) for h in found["hits"]] == [("memory", made.page)]
        page = answer(await call(session, "read", ref=found["hits"][0]["ref"]))
        skills = answer(await call(session, "search", query="invoices", kinds=["skill"]))
        skill = answer(await call(session, "read", ref=f"skill:{made.skill}"))
        file = answer(await call(session, "read", ref=f"skill:{made.skill}/scripts/remind.py"))
        record = answer(await call(session, "read", ref=f"record:{made.acme}"))
    assert page["name"] == "Acme" and "60 days" in page["content"]
    assert [h["ref"] for h in skills["hits"]] == [f"skill:{made.skill}"]
    assert skill["body"] == SKILL_BODY
    assert skill["files"] == [{"path": "scripts/remind.py", "size": len(SCRIPT), "script": True}]
    assert (file["content"], file["encoding"]) == (SCRIPT.decode(), "utf-8")
    assert (record["label"], record["object"]) == ("Acme", "companies")


async def test_recall_and_the_turns_cards(opener, pool, ws):
    made = await scene(pool, ws)
    async with as_(opener, ws.tokens["mcp_client"]) as session:
        recalled = answer(await call(session, "recall", query="invoices"))
        turn = answer(
            await call(session, "turn_context", message=f"Chase @[Acme](record:{made.acme})")
        )
    assert "60 days" in recalled["text"]
    assert [s["name"] for s in recalled["skills"]] == [made.skill]
    assert [(c["label"], c["signal"]) for c in turn["cards"]] == [("Acme", "mention")]
    assert "60 days" in turn["cards"][0]["souvenirs"][0]["line"]
    assert turn["text"] == turn["cards"][0]["text"]


async def proposers(pool, ws) -> list[tuple[str, Any]]:
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT proposer_kind, on_behalf_of FROM memory_proposals WHERE workspace_id = $1"
            " ORDER BY created_at",
            ws.id,
        )
    return [(r["proposer_kind"], r["on_behalf_of"]) for r in rows]


async def test_proposals_act_for_the_person_and_agents_as_agents(opener, pool, ws):
    made = await scene(pool, ws)
    async with as_(opener, ws.tokens["mcp_client"]) as session:
        proposed = answer(
            await call(
                session, "propose_memory", text="Acme wants mail in French.", recordId=made.acme
            )
        )
    async with as_(opener, ws.tokens["agent"]) as session:
        answer(await call(session, "propose_memory", text="Acme's CFO decides alone."))
    assert proposed["recordId"] == made.acme
    person = ws.members["member"]
    assert await proposers(pool, ws) == [("mcp_client", person), ("agent", person)]


async def test_memory_records_are_never_written_and_nothing_changes(opener, pool, ws):
    made = await scene(pool, ws)
    page_record = ws.gid(ids.decode(made.page, "MemoryPage", ws.id))
    async with as_(opener, ws.tokens["mcp_client"]) as session:
        created = refusal(
            await call(
                session,
                "write_records",
                records=[
                    {"object": "companies", "label": "Beta"},
                    {"object": "memory", "label": "Acme", "values": {"content": "- x"}},
                ],
            )
        )
        trashed = refusal(await call(session, "trash_record", id=page_record))
        written = answer(
            await call(
                session, "write_records", records=[{"object": "companies", "label": "Gamma"}]
            )
        )
        page = answer(await call(session, "read", ref=f"memory:{made.page}"))
        beta = answer(await call(session, "search", query="Beta", kinds=["memory"]))
    assert created["code"] == "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"
    assert [(p["line"], p["code"]) for p in created["problems"]] == [
        (2, "SCHEMA_SYSTEM_ENTITY_IMMUTABLE")
    ]
    assert trashed["code"] == "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"
    assert written["created"] == 1
    assert "60 days" in page["content"] and beta["hits"] == []
    async with pool.acquire() as conn:
        labels = await conn.fetch(
            "SELECT label FROM records WHERE workspace_id = $1 AND label IN ('Beta', 'Gamma')",
            ws.id,
        )
    assert [r["label"] for r in labels] == ["Gamma"]


async def test_bad_input_lists_every_problem(opener, ws):
    async with as_(opener, ws.tokens["mcp_client"]) as session:
        search = refusal(await call(session, "search", query="", kinds=["mail"], first=0, x=1))
        ref = refusal(await call(session, "read", ref="page:1"))
        nul = refusal(await call(session, "read", ref="skill:a\x00b"))
        unknown = refusal(await call(session, "edit_memory_page", pageId="x"))
    assert search["code"] == "SCHEMA_VALIDATION_FAILED"
    assert sorted(p["field"] for p in search["problems"]) == ["first", "kinds.0", "query", "x"]
    assert (ref["code"], ref["problems"][0]["field"]) == ("SCHEMA_VALIDATION_FAILED", "ref")
    assert (nul["code"], nul["problems"][0]["field"]) == ("SCHEMA_VALIDATION_FAILED", "ref")
    assert unknown["code"] == "SCHEMA_VALIDATION_FAILED"


async def test_another_workspaces_ids_answer_not_found(opener, pool, ws, ws2):
    made = await scene(pool, ws, skill="acme-only")
    async with as_(opener, ws2.tokens["admin"]) as session:
        refs = [f"memory:{made.page}", f"record:{made.acme}", "skill:acme-only"]
        answers = [refusal(await call(session, "read", ref=ref)) for ref in refs]
        trashed = refusal(await call(session, "trash_record", id=made.acme))
        proposed = refusal(await call(session, "propose_memory", text="x y", recordId=made.acme))
        with pytest.raises(McpError) as resource:
            await session.read_resource(AnyUrl("skill:acme-only"))
    assert [a["code"] for a in answers] == ["NOT_FOUND"] * 3
    assert trashed["code"] == proposed["code"] == "NOT_FOUND"
    assert resource.value.error.data["code"] == "NOT_FOUND"
    assert "acme-only" not in str([answers, trashed, proposed])


async def test_skills_are_resources(opener, pool, ws):
    made = await scene(pool, ws)
    async with as_(opener, ws.tokens["agent"]) as session:
        listed = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resourceTemplates
        body = (await session.read_resource(AnyUrl(f"skill:{made.skill}"))).contents
        file = (
            await session.read_resource(AnyUrl(f"skill:{made.skill}/scripts/remind.py"))
        ).contents
        with pytest.raises(McpError) as missing:
            await session.read_resource(AnyUrl("skill:no-such-skill"))
    assert [(str(r.uri), r.name) for r in listed] == [(f"skill:{made.skill}", made.skill)]
    assert [t.uriTemplate for t in templates] == ["skill:{name}", "skill:{name}/{path}"]
    assert [(c.text, c.mimeType) for c in body] == [(SKILL_BODY, "text/markdown")]
    assert [c.text for c in file] == [SCRIPT.decode()]
    assert missing.value.error.data["code"] == "NOT_FOUND"


def spoiled(token: str) -> str:
    """A token of the right shape that no one was given."""
    return token[:-1] + ("x" if token[-1] != "x" else "y")


async def test_a_bad_token_is_refused_over_stdio(dsn, ws):
    async with over_stdio(dsn, spoiled(ws.tokens["mcp_client"])) as session:
        refused = refusal(await call(session, "search", query="invoices"))
        with pytest.raises(McpError) as listing:
            await session.list_resources()
    assert refused["code"] == "UNAUTHENTICATED"
    assert listing.value.error.data["code"] == "UNAUTHENTICATED"


async def test_a_bad_token_is_refused_over_http(served, ws):
    with pytest.raises(BaseException) as failed:
        async with over_http(served, spoiled(ws.tokens["mcp_client"])):
            pass
    assert "401 Unauthorized" in repr(failed.value.exceptions)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(base_url=served) as http:
        for headers in ({}, bearer(spoiled(ws.tokens["mcp_client"]))):
            refused = await http.post("/mcp", json=body, headers={**headers, **accept})
            assert refused.status_code == 401
            assert refused.json()["error"]["code"] == "UNAUTHENTICATED"
        agent = {**bearer(ws.tokens["agent"]), **accept}
        listed = await http.post("/mcp", json=body, headers=agent)
        # The README's call by hand: one JSON-RPC request, no session to open first.
        search = {"name": "search", "arguments": {"query": "preference"}}
        call = {**body, "method": "tools/call", "params": search}
        called = await http.post("/mcp", json=call, headers=agent)
    assert listed.status_code == 200
    assert {t["name"] for t in listed.json()["result"]["tools"]} == TOOLS
    assert called.json()["result"]["structuredContent"] == {"hits": [], "total": 0, "capped": False}


def test_the_stdio_command_needs_a_token(monkeypatch, capsys):
    monkeypatch.delenv("SKILLMEM_TOKEN", raising=False)
    assert main(["mcp"]) == 2
    assert capsys.readouterr().err == "skillmem: mcp needs a token: --token or SKILLMEM_TOKEN\n"


async def test_without_the_apps_lifespan_mcp_answers_an_error_body(client, ws):
    """An app whose lifespan did not run (an ASGI test client's) has no MCP session manager:
    /mcp says so in the error body, never with a trace."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    refused = await client.post("/mcp", json=body, headers=bearer(ws.tokens["agent"]))
    assert refused.status_code == 500
    assert refused.json()["error"]["code"] == "INTERNAL"
