"""catalogInstall through the app, against a real PostgreSQL and a local GitHub-style fake: the
previewed commit installed even after the ref moved on, who sees what was added (a community
skill its adder only, a shipped one the workspace), the source kept on the skill, a taken name,
a caller without the right, an agent, hostile or huge archives and malformed references or
commits refused with nothing written."""

from __future__ import annotations

import tarfile
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from pytest_httpserver import HTTPServer

from gateway.settings import Settings
from tests.catalog import test_preview
from tests.catalog.fakes import SHA, WRAPPER, repository, skill_md
from tests.catalog.test_preview import COMMITS, PDF, TARBALL, preview, serve
from tests.factories import codes, data, gql, problems
from tests.skills.archive.archives import make_tar, tar_entry
from tests.skills.test_transfer import CREATE, assert_nothing_written

INSTALL = """mutation($source: String!, $commit: String) {
  catalogInstall(source: $source, commit: $commit) { name description visibility source }
}"""
READ = "query($name: String!) { skill(name: $name) { name visibility } }"
LATER = "fedcba9876543210fedcba9876543210fedcba98"
SOURCE = "acme/skills/skills/pdf@main"
KEPT = {
    "kind": "community",
    "repository": "acme/skills",
    "path": "skills/pdf",
    "ref": "main",
    "commit": SHA,
    "version": 1,
}


@pytest.fixture(name="client")
async def catalog_client(
    api_pool: asyncpg.Pool, settings: Settings, httpserver: HTTPServer
) -> AsyncIterator[httpx.AsyncClient]:
    """test_preview's app: its catalogue's source at the test's fake."""
    async for one in test_preview.client.__wrapped__(api_pool, settings, httpserver):
        yield one


async def install(client, token: str, source: str, commit: str | None = SHA):
    return await gql(client, token, INSTALL, {"source": source, "commit": commit})


async def test_the_previewed_commit_is_installed_after_the_ref_moved_on(client, ws, httpserver):
    serve(httpserver, repository(PDF), ref="main")
    previewed = data(await preview(client, ws.tokens["member"], SOURCE), "catalogPreview")
    assert previewed["commit"] == SHA
    httpserver.clear_all_handlers()
    httpserver.clear_log()
    moved = [("skills/pdf/SKILL.md", skill_md("pdf", "A later commit sneaked in."))]
    httpserver.expect_request(f"{COMMITS}/main").respond_with_json({"sha": LATER})
    httpserver.expect_request(f"/repos/acme/skills/tarball/{LATER}").respond_with_data(
        repository(moved), content_type="application/x-gzip"
    )
    httpserver.expect_request(TARBALL).respond_with_data(
        repository(PDF), content_type="application/x-gzip"
    )
    response = await install(client, ws.tokens["member"], SOURCE, previewed["commit"])
    added = data(response, "catalogInstall")
    assert added["description"] == "Fills <script>alert(1)</script> PDF forms."
    assert added["source"] == KEPT
    assert [r.path for r, _ in httpserver.log] == [TARBALL]


async def test_a_community_skill_is_private_to_its_adder(client, ws, httpserver):
    serve(httpserver, repository(PDF), ref="main")
    added = data(await install(client, ws.tokens["member"], SOURCE), "catalogInstall")
    assert (added["name"], added["visibility"]) == ("pdf", "PRIVATE")
    mine = await gql(client, ws.tokens["member"], READ, {"name": "pdf"})
    assert data(mine, "skill")["visibility"] == "PRIVATE"
    theirs = await gql(client, ws.tokens["other"], READ, {"name": "pdf"})
    assert codes(theirs) == ["NOT_FOUND"]


async def test_a_shipped_skill_is_visible_to_the_workspace(client, ws, httpserver):
    name = "skillmem-write-skill"
    response = await install(client, ws.tokens["member"], f"shipped:{name}", None)
    added = data(response, "catalogInstall")
    assert added["visibility"] == "WORKSPACE"
    assert added["source"] == {"kind": "shipped", "name": name}
    theirs = await gql(client, ws.tokens["other"], READ, {"name": name})
    assert data(theirs, "skill")["visibility"] == "WORKSPACE"
    assert httpserver.log == []


async def test_a_shipped_skill_takes_no_commit(client, pool, ws, httpserver):
    response = await install(client, ws.tokens["member"], "shipped:skillmem-write-skill")
    assert [p["field"] for p in problems(response)] == ["commit"]
    await assert_nothing_written(pool, ws)


async def test_a_taken_name_is_refused(client, pool, ws, httpserver):
    await gql(
        client, ws.tokens["admin"], CREATE, {"input": {"name": "pdf", "description": "Mine."}}
    )
    serve(httpserver, repository(PDF), ref="main")
    response = await install(client, ws.tokens["member"], SOURCE)
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert [p["field"] for p in problems(response)] == ["pdf/SKILL.md"]
    async with pool.acquire() as conn:
        count = await conn.fetchval("SELECT count(*) FROM skills WHERE workspace_id = $1", ws.id)
    assert count == 1


@pytest.mark.parametrize("who", ["viewer", "agent"])
async def test_a_caller_without_the_right_is_refused_before_any_request(
    client, pool, ws, httpserver, who
):
    serve(httpserver, repository(PDF), ref="main")
    response = await install(client, ws.tokens[who], SOURCE)
    assert codes(response) == ["FORBIDDEN"]
    assert httpserver.log == []
    await assert_nothing_written(pool, ws)


async def test_an_agent_is_pointed_to_the_copy_its_person_approves(client, ws, httpserver):
    response = await install(client, ws.tokens["agent"], "shipped:skillmem-write-skill", None)
    assert codes(response) == ["FORBIDDEN"]
    assert "copyFromCatalog" in response.json()["errors"][0]["message"]


async def test_a_hostile_archive_is_refused_with_nothing_written(client, pool, ws, httpserver):
    hostile = make_tar(
        [
            (f"{WRAPPER}/pdf/SKILL.md", skill_md("pdf")),
            (f"{WRAPPER}/../../etc/cron.d/evil", b"* * * * * root sh\n"),
            tar_entry(f"{WRAPPER}/pdf/link", tarfile.SYMTYPE, linkname="/etc/passwd"),
        ],
        compress=True,
    )
    serve(httpserver, hostile)
    response = await install(client, ws.tokens["member"], "acme/skills/pdf")
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert "has a '..' segment, which leaves its folder" in [
        p["message"] for p in problems(response)
    ]
    await assert_nothing_written(pool, ws)


async def test_a_huge_archive_is_refused_with_nothing_written(client, pool, ws, httpserver):
    serve(httpserver, repository(PDF) + b"\0" * 300_000)
    response = await install(client, ws.tokens["member"], "acme/skills/skills/pdf")
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert "more than the limit of 200000 bytes" in response.json()["errors"][0]["message"]
    await assert_nothing_written(pool, ws)


@pytest.mark.parametrize(
    ("source", "commit", "fields"),
    [
        (SOURCE, "main", ["commit"]),
        (SOURCE, SHA.upper(), ["commit"]),
        (SOURCE, None, ["commit"]),
        (SOURCE, f"{SHA}/../../x", ["commit"]),
        ("https://evil.example/acme/skills", SHA, ["source"]),
        ("acme/../etc", "x", ["commit", "source"]),
    ],
)
async def test_a_bad_reference_or_commit_is_refused_before_any_request(
    client, pool, ws, httpserver, source, commit, fields
):
    response = await install(client, ws.tokens["member"], source, commit)
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert sorted({p["field"] for p in problems(response)}) == fields
    assert httpserver.log == []
    await assert_nothing_written(pool, ws)


async def test_the_readme_example_runs(client, ws):
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    start = readme.index("mutation InstallShippedSkill")
    operation = readme[start : readme.index("```", start)]
    response = await gql(client, ws.tokens["admin"], operation, {})
    added = data(response, "catalogInstall")
    assert (added["name"], added["visibility"]) == ("skillmem-move-skills", "WORKSPACE")
