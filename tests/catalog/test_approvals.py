"""Approvals through the app, against a real PostgreSQL and a local fake source and directory:
an agent's copy from the catalogue and an agent's community search never run directly; each
waits for the person the agent works for, who approves (the pinned commit installed as them, the
card's exact texts sent), declines, or lets it expire; nobody else decides it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from tests.catalog.fakes import SHA, repository, skill_md
from tests.catalog.test_install import LATER, READ
from tests.catalog.test_preview import COMMITS, PDF, TARBALL, serve
from tests.factories import codes, data, gql, problems
from tests.skills.test_transfer import CREATE

SOURCE = "acme/skills/skills/pdf@main"
APPROVAL = """
  id kind status agentName createdAt expiresAt decidedAt
  install { source shipped name repository path commit visibility whoWillSee files scripts
            anyScript }
  search { text sent }
  outcome { skill version communityStatus results { name source installs exact } }
"""
COPY = f"""mutation($source: String!, $commit: String) {{
  copyFromCatalog(source: $source, commit: $commit) {{
    skill {{ name visibility }} approval {{ {APPROVAL} }}
  }}
}}"""
ASK_SEARCH = f"""mutation($text: String!) {{
  requestCatalogSearch(text: $text) {{ {APPROVAL} }}
}}"""
DECIDE = f"""mutation($id: ID!, $approve: Boolean!) {{
  decideApproval(id: $id, approve: $approve) {{ {APPROVAL} }}
}}"""
LIST = f"""query($statuses: [CatalogApprovalStatus!]) {{
  approvals(statuses: $statuses) {{ {APPROVAL} }}
}}"""
ONE = f"query($id: ID!) {{ approval(id: $id) {{ {APPROVAL} }} }}"
SKILL_SOURCE = "query($name: String!) { skill(name: $name) { name visibility source } }"
T0 = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


async def copy(client, token: str, source: str = SOURCE, commit: str | None = None):
    return await gql(client, token, COPY, {"source": source, "commit": commit})


async def ask_install(client, ws, httpserver: HTTPServer) -> dict[str, Any]:
    """The agent's copy of the pdf skill, pending, and the fake moved on to a later commit."""
    serve(httpserver, repository(PDF), ref="main")
    asked = data(await copy(client, ws.tokens["agent"]), "copyFromCatalog")
    assert asked["skill"] is None
    moved = [("skills/pdf/SKILL.md", skill_md("pdf", "A later commit sneaked in."))]
    httpserver.clear_all_handlers()
    httpserver.clear_log()
    httpserver.expect_request(f"{COMMITS}/main").respond_with_json({"sha": LATER})
    httpserver.expect_request(f"/repos/acme/skills/tarball/{LATER}").respond_with_data(
        repository(moved), content_type="application/x-gzip"
    )
    httpserver.expect_request(TARBALL).respond_with_data(
        repository(PDF), content_type="application/x-gzip"
    )
    approval: dict[str, Any] = asked["approval"]
    return approval


async def decide(client, token: str, approval_id: str, approve: bool):
    return await gql(client, token, DECIDE, {"id": approval_id, "approve": approve})


def directory(server: HTTPServer) -> list[str]:
    """The fake directory: one xlsx skill for any text; the texts it received, in order."""
    received: list[str] = []

    def answer(request: Request) -> Response:
        text = request.args["q"]
        received.append(text)
        found = [{"id": "acme/xlsx", "skillId": "xlsx", "name": "xlsx", "installs": 7,
                  "source": "acme/skills"}]  # fmt: skip
        body = {"query": text, "searchType": "fuzzy", "skills": found}
        return Response(orjson.dumps(body), content_type="application/json")

    server.expect_request("/api/search").respond_with_handler(answer)
    return received


# an install -------------------------------------------------------------------------------


async def test_an_agents_copy_waits_with_its_card_and_nothing_lands(outside, ws, httpserver):
    approval = await ask_install(outside, ws, httpserver)
    assert approval["kind"] == "INSTALL"
    assert approval["status"] == "PENDING"
    assert approval["agentName"] == "Scout"
    card = approval["install"]
    assert card == {
        "source": SOURCE,
        "shipped": False,
        "name": "pdf",
        "repository": "acme/skills",
        "path": "skills/pdf",
        "commit": SHA,
        "visibility": "PRIVATE",
        "whoWillSee": "only Member",
        "files": 4,
        "scripts": ["scripts/fill.py", "tools/run.sh"],
        "anyScript": True,
    }
    assert codes(await gql(outside, ws.tokens["member"], READ, {"name": "pdf"})) == ["NOT_FOUND"]
    listed = data(await gql(outside, ws.tokens["member"], LIST, {}), "approvals")
    assert [a["id"] for a in listed] == [approval["id"]]


async def test_approved_the_pinned_commit_lands_as_the_person(outside, ws, httpserver):
    approval = await ask_install(outside, ws, httpserver)
    decided = data(
        await decide(outside, ws.tokens["member"], approval["id"], True), "decideApproval"
    )
    assert decided["status"] == "APPROVED"
    assert decided["outcome"]["skill"] == "pdf"
    assert decided["decidedAt"] is not None
    added = data(await gql(outside, ws.tokens["member"], SKILL_SOURCE, {"name": "pdf"}), "skill")
    assert added["visibility"] == "PRIVATE"
    assert added["source"]["commit"] == SHA  # not LATER, which the ref names by now
    assert [r.path for r, _ in httpserver.log] == [TARBALL]
    theirs = await gql(outside, ws.tokens["other"], READ, {"name": "pdf"})
    assert codes(theirs) == ["NOT_FOUND"]
    seen = data(await gql(outside, ws.tokens["agent"], ONE, {"id": approval["id"]}), "approval")
    assert (seen["status"], seen["outcome"]["skill"]) == ("APPROVED", "pdf")


async def test_declined_nothing_lands_and_it_cannot_be_decided_again(outside, ws, httpserver):
    approval = await ask_install(outside, ws, httpserver)
    decided = data(
        await decide(outside, ws.tokens["member"], approval["id"], False), "decideApproval"
    )
    assert (decided["status"], decided["outcome"]) == ("DECLINED", None)
    assert httpserver.log == []
    assert codes(await gql(outside, ws.tokens["member"], READ, {"name": "pdf"})) == ["NOT_FOUND"]
    again = await decide(outside, ws.tokens["member"], approval["id"], True)
    assert codes(again) == ["MEMORY_PRECONDITION_FAILED"]
    assert codes(await gql(outside, ws.tokens["member"], READ, {"name": "pdf"})) == ["NOT_FOUND"]


async def test_an_expired_approval_cannot_be_approved(outside, ws, httpserver, stand):
    stand(T0)
    approval = await ask_install(outside, ws, httpserver)
    assert approval["expiresAt"] == (T0 + timedelta(hours=1)).isoformat()
    stand(T0 + timedelta(hours=1, seconds=1))
    expired = data(await gql(outside, ws.tokens["member"], LIST, {"statuses": ["EXPIRED"]}))
    assert [a["id"] for a in expired["approvals"]] == [approval["id"]]
    pending = data(await gql(outside, ws.tokens["member"], LIST, {"statuses": ["PENDING"]}))
    assert pending["approvals"] == []
    answer = await decide(outside, ws.tokens["member"], approval["id"], True)
    assert codes(answer) == ["MEMORY_PRECONDITION_FAILED"]
    assert "expired" in answer.json()["errors"][0]["message"]
    assert httpserver.log == []
    assert codes(await gql(outside, ws.tokens["member"], READ, {"name": "pdf"})) == ["NOT_FOUND"]


async def test_nobody_else_decides_it(outside, ws, ws2, httpserver):
    approval = await ask_install(outside, ws, httpserver)
    for who in ("other", "admin"):  # another person, even an admin: as if it did not exist
        answer = await decide(outside, ws.tokens[who], approval["id"], True)
        assert codes(answer) == ["NOT_FOUND"]
        assert data(await gql(outside, ws.tokens[who], LIST, {}), "approvals") == []
    for who in ("agent", "api_key", "mcp_client"):
        answer = await decide(outside, ws.tokens[who], approval["id"], True)
        assert codes(answer) == ["FORBIDDEN"]
    elsewhere = await decide(outside, ws2.tokens["member"], approval["id"], True)
    assert codes(elsewhere) == ["NOT_FOUND"]  # another workspace's id: as a missing one
    assert httpserver.log == []
    still = data(await gql(outside, ws.tokens["member"], ONE, {"id": approval["id"]}))
    assert still["approval"]["status"] == "PENDING"


async def test_an_install_that_would_be_refused_is_not_asked(outside, pool, ws, httpserver):
    await gql(
        outside, ws.tokens["admin"], CREATE, {"input": {"name": "pdf", "description": "Mine."}}
    )
    serve(httpserver, repository(PDF), ref="main")
    answer = await copy(outside, ws.tokens["agent"])
    assert codes(answer) == ["SCHEMA_VALIDATION_FAILED"]
    assert [p["field"] for p in problems(answer)] == ["name"]
    async with pool.acquire() as conn:
        count = await conn.fetchval(
            "SELECT count(*) FROM catalog_approvals WHERE workspace_id = $1", ws.id
        )
    assert count == 0


async def test_a_shipped_skill_copied_by_an_agent_is_asked_then_seen_by_all(outside, ws):
    name = "skillmem-write-skill"
    asked = data(await copy(outside, ws.tokens["agent"], f"shipped:{name}"), "copyFromCatalog")
    card = asked["approval"]["install"]
    assert (card["shipped"], card["commit"], card["visibility"]) == (True, None, "WORKSPACE")
    assert card["whoWillSee"] == "everyone in the workspace"
    decided = await decide(outside, ws.tokens["member"], asked["approval"]["id"], True)
    assert data(decided, "decideApproval")["status"] == "APPROVED"
    seen = data(await gql(outside, ws.tokens["other"], READ, {"name": name}), "skill")
    assert seen["visibility"] == "WORKSPACE"


async def test_a_persons_copy_adds_at_once(outside, ws, httpserver):
    serve(httpserver, repository(PDF), ref="main")
    copied = data(await copy(outside, ws.tokens["member"], SOURCE, SHA), "copyFromCatalog")
    assert copied == {"skill": {"name": "pdf", "visibility": "PRIVATE"}, "approval": None}


# a community search -----------------------------------------------------------------------


async def test_the_search_card_shows_exactly_what_the_directory_receives(outside, ws, httpserver):
    received = directory(httpserver)
    text = "find the xlsx skill for quarterly reports"
    asked = data(await gql(outside, ws.tokens["agent"], ASK_SEARCH, {"text": text}))
    approval = asked["requestCatalogSearch"]
    assert approval["kind"] == "SEARCH"
    assert approval["search"]["text"] == text
    assert received == []  # nothing left before the person said yes
    decided = data(await decide(outside, ws.tokens["member"], approval["id"], True))
    assert sorted(received) == sorted(approval["search"]["sent"])
    assert approval["search"]["sent"] == [text, "xlsx", "quarterly", "reports"]
    outcome = decided["decideApproval"]["outcome"]
    assert outcome["communityStatus"] == "OK"
    assert outcome["results"] == [
        {"name": "xlsx", "source": "acme/skills", "installs": 7, "exact": True}
    ]
    seen = data(await gql(outside, ws.tokens["agent"], ONE, {"id": approval["id"]}), "approval")
    assert seen["outcome"]["results"][0]["name"] == "xlsx"


async def test_a_declined_search_sends_nothing(outside, ws, httpserver):
    received = directory(httpserver)
    asked = data(await gql(outside, ws.tokens["agent"], ASK_SEARCH, {"text": "xlsx"}))
    approval_id = asked["requestCatalogSearch"]["id"]
    decided = data(await decide(outside, ws.tokens["member"], approval_id, False))
    assert decided["decideApproval"]["status"] == "DECLINED"
    assert received == []


async def test_only_an_agent_asks(outside, ws, httpserver):
    answer = await gql(outside, ws.tokens["member"], ASK_SEARCH, {"text": "xlsx"})
    assert codes(answer) == ["FORBIDDEN"]
    assert httpserver.log == []
