"""Updates of a person's community skills, through the app against a real PostgreSQL and a local
GitHub-style fake: opening the catalogue checks each source (update available, with a warning
first when the skill was changed here; source not found; unavailable), and nothing changes
until an update names the new commit, which lands as a new version keeping its source."""

from __future__ import annotations

from typing import Any

from pytest_httpserver import HTTPServer

from tests.catalog.fakes import SHA, repository, skill_md
from tests.catalog.test_install import LATER, install
from tests.catalog.test_preview import COMMITS, PDF, serve
from tests.factories import codes, data, gql

SOURCE = "acme/skills/skills/pdf@main"
CHECK = """{ catalogUpdates {
  skill { name version } repository path ref installedCommit status latestCommit changedHere
  warning
} }"""
UPDATE = """mutation($name: String!, $commit: String!, $confirm: Boolean!) {
  catalogUpdate(name: $name, commit: $commit, confirm: $confirm) {
    name version description source
  }
}"""
EDIT = """mutation($name: String!, $input: UpdateSkillInput!) {
  updateSkill(name: $name, input: $input) { version }
}"""
NEWER = [
    ("skills/pdf/SKILL.md", skill_md("pdf", "Fills PDF forms, and signs them.")),
    ("skills/pdf/scripts/fill.py", b"print('fill v2')\n"),
]


async def installed(client, ws, httpserver: HTTPServer) -> None:
    """The member's pdf skill at SHA; then the fake's main moved on to LATER."""
    serve(httpserver, repository(PDF), ref="main")
    data(await install(client, ws.tokens["member"], SOURCE), "catalogInstall")
    httpserver.clear_all_handlers()
    httpserver.clear_log()
    httpserver.expect_request(f"{COMMITS}/main").respond_with_json({"sha": LATER})
    httpserver.expect_request(f"/repos/acme/skills/tarball/{LATER}").respond_with_data(
        repository(NEWER), content_type="application/x-gzip"
    )


async def checked(client, token: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = data(await gql(client, token, CHECK), "catalogUpdates")
    return found


async def update(client, token: str, commit: str = LATER, confirm: bool = False):
    variables = {"name": "pdf", "commit": commit, "confirm": confirm}
    return await gql(client, token, UPDATE, variables)


async def test_an_update_is_offered_then_lands_as_a_new_version(outside, ws, httpserver):
    await installed(outside, ws, httpserver)
    [check] = await checked(outside, ws.tokens["member"])
    assert check == {
        "skill": {"name": "pdf", "version": 1},
        "repository": "acme/skills",
        "path": "skills/pdf",
        "ref": "main",
        "installedCommit": SHA,
        "status": "UPDATE_AVAILABLE",
        "latestCommit": LATER,
        "changedHere": False,
        "warning": None,
    }
    assert [r.path for r, _ in httpserver.log] == [f"{COMMITS}/main"]  # nothing fetched yet
    updated = data(await update(outside, ws.tokens["member"]), "catalogUpdate")
    assert (updated["version"], updated["description"]) == (2, "Fills PDF forms, and signs them.")
    assert (updated["source"]["commit"], updated["source"]["version"]) == (LATER, 2)
    [again] = await checked(outside, ws.tokens["member"])
    assert (again["status"], again["installedCommit"], again["warning"]) == ("CURRENT", LATER, None)


async def test_a_skill_changed_here_warns_first(outside, ws, httpserver):
    await installed(outside, ws, httpserver)
    edit = {"name": "pdf", "input": {"content": "# pdf\n\nOur own steps.\n"}}
    assert data(await gql(outside, ws.tokens["member"], EDIT, edit), "updateSkill")["version"] == 2
    [check] = await checked(outside, ws.tokens["member"])
    assert (check["status"], check["changedHere"]) == ("UPDATE_AVAILABLE", True)
    assert "changed here" in check["warning"] and "Confirm" in check["warning"]
    refused = await update(outside, ws.tokens["member"])
    assert codes(refused) == ["MEMORY_PRECONDITION_FAILED"]
    assert refused.json()["errors"][0]["message"] == check["warning"]
    assert not any("tarball" in r.path for r, _ in httpserver.log)
    [still] = await checked(outside, ws.tokens["member"])
    assert still["skill"]["version"] == 2
    confirmed = data(await update(outside, ws.tokens["member"], confirm=True), "catalogUpdate")
    assert (confirmed["version"], confirmed["source"]["version"]) == (3, 3)


async def test_a_source_gone_is_not_found(outside, ws, httpserver):
    await installed(outside, ws, httpserver)
    httpserver.clear_all_handlers()
    httpserver.expect_request(f"{COMMITS}/main").respond_with_json({"message": "Not Found"}, 404)
    [check] = await checked(outside, ws.tokens["member"])
    assert (check["status"], check["latestCommit"]) == ("SOURCE_NOT_FOUND", None)


async def test_a_source_not_answering_is_unavailable(outside, ws, httpserver):
    await installed(outside, ws, httpserver)
    httpserver.clear_all_handlers()
    httpserver.expect_request(f"{COMMITS}/main").respond_with_data("down", 503)
    [check] = await checked(outside, ws.tokens["member"])
    assert check["status"] == "UNAVAILABLE"


async def test_a_source_on_the_same_commit_is_current(outside, ws, httpserver):
    await installed(outside, ws, httpserver)
    httpserver.clear_all_handlers()
    httpserver.expect_request(f"{COMMITS}/main").respond_with_json({"sha": SHA})
    [check] = await checked(outside, ws.tokens["member"])
    assert (check["status"], check["latestCommit"]) == ("CURRENT", SHA)


async def test_only_the_callers_own_community_skills_are_checked(outside, ws, httpserver):
    await installed(outside, ws, httpserver)
    add = 'mutation { addShippedSkill(name: "skillmem-write-skill") { name } }'
    assert data(await gql(outside, ws.tokens["member"], add), "addShippedSkill")
    assert await checked(outside, ws.tokens["other"]) == []
    assert [c["skill"]["name"] for c in await checked(outside, ws.tokens["member"])] == ["pdf"]


async def test_an_agent_does_not_update(outside, ws, httpserver):
    await installed(outside, ws, httpserver)
    assert codes(await update(outside, ws.tokens["agent"])) == ["FORBIDDEN"]
    other = await update(outside, ws.tokens["other"])
    assert codes(other) == ["NOT_FOUND"]  # another person's private skill
    assert not any("tarball" in r.path for r, _ in httpserver.log)
