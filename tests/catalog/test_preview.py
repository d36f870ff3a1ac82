"""catalogPreview through the app, against a real PostgreSQL and a local GitHub-style fake: a
shipped skill, a community skill pinned to the fake's commit (files, sizes, which are scripts and
why), hostile or huge archives and folders the product refuses (every problem), a source not
found or not answering, a taken name, and references that would leave the configured server
refused before any request. Nothing is ever written."""

from __future__ import annotations

import tarfile
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest
from pytest_httpserver import HTTPServer

from gateway.app import create_app
from gateway.settings import Settings
from resolvers.catalog.shipped import shipped_skill
from tests.catalog.fakes import SHA, WRAPPER, repository, skill_md
from tests.factories import codes, data, gql, problems
from tests.skills.archive.archives import make_tar, tar_entry
from tests.skills.test_transfer import CREATE, assert_nothing_written

PREVIEW = """query($source: String!) {
  catalogPreview(source: $source) {
    source shipped name description skillMd visibility nameTaken acceptable
    problems { field message }
    repository path ref commit
    files { path size script scriptRule }
  }
}"""
ADD = "mutation($name: String!) { addShippedSkill(name: $name) { name } }"
COMMITS = "/repos/acme/skills/commits"
TARBALL = f"/repos/acme/skills/tarball/{SHA}"
HOSTILE_MD = skill_md("pdf", "Fills <script>alert(1)</script> PDF forms.")
PDF = [
    ("skills/pdf/SKILL.md", HOSTILE_MD),
    ("skills/pdf/scripts/fill.py", b"print('fill')\n"),
    ("skills/pdf/tools/run.sh", b"#!/bin/sh\n"),
    ("skills/pdf/notes.md", b"# notes\n"),
]


@pytest.fixture
async def client(
    api_pool: asyncpg.Pool, settings: Settings, httpserver: HTTPServer
) -> AsyncIterator[httpx.AsyncClient]:
    """The app with its catalogue's source at the test's fake."""
    changes = {
        "catalog_source_base_url": httpserver.url_for("/").rstrip("/"),
        "catalog_timeout": 2.0,
        "catalog_backoff": 0.01,
        "catalog_max_archive_bytes": 200_000,
        "catalog_max_retries": 2,  # the shared settings retry nothing (tests/gateway/server.py)
    }
    app = create_app(settings.model_copy(update=changes), pool=api_pool)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


def serve(server: HTTPServer, archive: bytes, ref: str = "HEAD") -> None:
    server.expect_request(f"{COMMITS}/{ref}").respond_with_json({"sha": SHA})
    server.expect_request(TARBALL).respond_with_data(archive, content_type="application/x-gzip")


def with_executable(entries: list[tuple[str, bytes]], path: str, size: int) -> bytes:
    """A repository archive, one more file at ``path`` with mode 0755 (zeros)."""
    extra = tar_entry(f"{WRAPPER}/{path}", tarfile.REGTYPE, size=size, mode=0o755)
    return make_tar([*((f"{WRAPPER}/{p}", c) for p, c in entries), extra], compress=True)


async def preview(client: httpx.AsyncClient, token: str, source: str) -> httpx.Response:
    return await gql(client, token, PREVIEW, {"source": source})


async def test_a_shipped_skill_is_previewed_then_flagged_once_added(client, pool, ws):
    found = shipped_skill("skillmem-write-skill")
    response = await preview(client, ws.tokens["viewer"], "shipped:skillmem-write-skill")
    shown = data(response, "catalogPreview")
    assert {k: shown[k] for k in ("source", "shipped", "name", "visibility", "acceptable")} == {
        "source": "shipped:skillmem-write-skill",
        "shipped": True,
        "name": "skillmem-write-skill",
        "visibility": "WORKSPACE",
        "acceptable": True,
    }
    assert shown["skillMd"] == found.skill_md
    assert (shown["repository"], shown["commit"], shown["problems"]) == (None, None, [])
    assert shown["nameTaken"] is False
    folder = found.folder.files
    assert [(f["path"], f["size"]) for f in shown["files"]] == [
        (path, len(folder[path].content)) for path in sorted(folder)
    ]
    scripts = {f["path"]: f["scriptRule"] for f in shown["files"] if f["script"]}
    assert scripts == {"scripts/form_check.py": "EXECUTABLE"}
    await assert_nothing_written(pool, ws)
    await gql(client, ws.tokens["admin"], ADD, {"name": "skillmem-write-skill"})
    again = await preview(client, ws.tokens["viewer"], "shipped:skillmem-write-skill")
    assert data(again, "catalogPreview")["nameTaken"] is True


async def test_a_shipped_name_the_product_does_not_ship_is_not_found(client, ws, httpserver):
    response = await preview(client, ws.tokens["viewer"], "shipped:../../etc/passwd")
    assert codes(response) == ["NOT_FOUND"]
    assert httpserver.log == []


async def test_a_community_skill_is_pinned_to_the_commit_with_its_files(
    client, pool, ws, httpserver
):
    serve(httpserver, with_executable(PDF, "skills/pdf/bin/fill", 12), ref="main")
    response = await preview(client, ws.tokens["member"], "acme/skills/skills/pdf@main")
    shown = data(response, "catalogPreview")
    assert {k: shown[k] for k in ("source", "repository", "path", "ref", "commit")} == {
        "source": "acme/skills/skills/pdf@main",
        "repository": "acme/skills",
        "path": "skills/pdf",
        "ref": "main",
        "commit": SHA,
    }
    assert (shown["shipped"], shown["visibility"], shown["nameTaken"]) == (False, "PRIVATE", False)
    assert (shown["name"], shown["acceptable"], shown["problems"]) == ("pdf", True, [])
    assert shown["skillMd"] == HOSTILE_MD.decode()  # plain text: the markup as written
    assert [(f["path"], f["size"], f["script"], f["scriptRule"]) for f in shown["files"]] == [
        ("SKILL.md", len(HOSTILE_MD), False, None),
        ("bin/fill", 12, True, "EXECUTABLE"),
        ("notes.md", 8, False, None),
        ("scripts/fill.py", 14, True, "SCRIPTS_FOLDER"),
        ("tools/run.sh", 10, True, "EXTENSION"),
    ]
    assert [r.path for r, _ in httpserver.log] == [f"{COMMITS}/main", TARBALL]
    await assert_nothing_written(pool, ws)


async def test_a_hostile_archive_is_refused_with_its_problems(client, pool, ws, httpserver):
    hostile = make_tar(
        [
            (f"{WRAPPER}/pdf/SKILL.md", skill_md("pdf")),
            (f"{WRAPPER}/../../etc/cron.d/evil", b"* * * * * root sh\n"),
            tar_entry(f"{WRAPPER}/pdf/link", tarfile.SYMTYPE, linkname="/etc/passwd"),
        ],
        compress=True,
    )
    serve(httpserver, hostile)
    response = await preview(client, ws.tokens["member"], "acme/skills/pdf")
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    messages = [p["message"] for p in problems(response)]
    assert "has a '..' segment, which leaves its folder" in messages
    assert any("link" in m for m in messages)
    await assert_nothing_written(pool, ws)


async def test_a_huge_archive_is_refused_unread(client, pool, ws, httpserver):
    serve(httpserver, with_executable(PDF, "skills/pdf/big.bin", 0) + b"\0" * 300_000)
    response = await preview(client, ws.tokens["member"], "acme/skills/skills/pdf")
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert "more than the limit of 200000 bytes" in response.json()["errors"][0]["message"]
    await assert_nothing_written(pool, ws)


async def test_a_folder_the_product_refuses_is_shown_with_every_problem(
    client, pool, ws, httpserver
):
    body = b"---\nname: Word_X\n---\n# Word\n"
    serve(httpserver, repository([("pdf/SKILL.md", body), ("pdf/notes.md", b"x")]))
    response = await preview(client, ws.tokens["member"], "acme/skills/pdf")
    shown = data(response, "catalogPreview")
    assert (shown["acceptable"], shown["name"], shown["commit"]) == (False, "pdf", SHA)
    assert shown["skillMd"] == body.decode()
    assert [f["path"] for f in shown["files"]] == ["SKILL.md", "notes.md"]
    assert [(p["field"], p["message"]) for p in shown["problems"]] == [
        ("pdf/name", "The name must be lowercase."),
        ("pdf/name", "The name may use only a-z, 0-9 and '-'; found '_'."),
        ("pdf/name", "The folder 'pdf' must be named like the skill 'Word_X'."),
        ("pdf/description", "The frontmatter has no description."),
    ]
    await assert_nothing_written(pool, ws)


async def test_a_community_skill_named_like_a_shipped_one_is_refused(client, ws, httpserver):
    name = "skillmem-write-skill"
    serve(httpserver, repository([(f"{name}/SKILL.md", skill_md(name))]))
    response = await preview(client, ws.tokens["member"], f"acme/skills/{name}")
    shown = data(response, "catalogPreview")
    assert shown["acceptable"] is False
    assert [p["field"] for p in shown["problems"]] == [f"{name}/name"]


async def test_a_source_not_found_is_not_found(client, ws, httpserver):
    httpserver.expect_request(f"{COMMITS}/HEAD").respond_with_json({"message": "x"}, status=404)
    response = await preview(client, ws.tokens["member"], "acme/skills")
    assert codes(response) == ["NOT_FOUND"]
    assert response.json()["errors"][0]["message"] == "the source acme/skills was not found"


async def test_a_source_that_does_not_answer_is_a_clear_error(client, ws, httpserver):
    httpserver.expect_request(f"{COMMITS}/HEAD").respond_with_data("down", status=503)
    response = await preview(client, ws.tokens["member"], "acme/skills")
    [error] = response.json()["errors"]
    assert error["extensions"]["code"] == "INTERNAL"
    assert "acme/skills" in error["message"] and error["message"] != "Internal error."
    assert [p["field"] for p in error["extensions"]["problems"]] == ["source"]
    assert len(httpserver.log) == 3  # the first try and two retries


async def test_a_taken_name_is_flagged(client, ws, httpserver):
    await gql(
        client, ws.tokens["admin"], CREATE, {"input": {"name": "pdf", "description": "Mine."}}
    )
    serve(httpserver, repository(PDF))
    response = await preview(client, ws.tokens["member"], "acme/skills/skills/pdf")
    assert data(response, "catalogPreview")["nameTaken"] is True


@pytest.mark.parametrize(
    "source",
    [
        "acme/../etc",
        "../acme/skills",
        "acme/skills/../../x",
        "acme/skills@../../x",
        "acme/skills@x@y",
        "acme@evil.example/skills",
        "http://evil.example/x",
        "https://evil.example/acme/skills",
        "//evil.example/acme/skills",
        "evil.example:80/skills",
        "acme/skills?url=http://evil.example",
        "acme/skills#x",
        "acme/sk%2e%2e",
        "acme/skills/%2e%2e/x",
        "acme\\skills",
        "ac me/skills",
        "acme/skills@/etc",
        "acme",
        "",
    ],
)
async def test_a_reference_that_would_leave_the_source_is_refused_before_any_request(
    client, pool, ws, httpserver, source
):
    response = await preview(client, ws.tokens["member"], source)
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert problems(response)
    assert httpserver.log == []
    await assert_nothing_written(pool, ws)
