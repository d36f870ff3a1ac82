"""`skillmem catalog add SOURCE` as a subprocess against the app under uvicorn, its
repositories' API a local fake: a shipped skill added for the workspace, a community skill
installed at exactly the previewed commit, a folder the product refuses shown with every
problem and nothing written, no terminal without --yes refused, a bad token one line."""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
from collections.abc import Iterator

import httpx
import pytest
from pytest_httpserver import HTTPServer

from tests.catalog.fakes import SHA, repository
from tests.catalog.test_preview import PDF, TARBALL, serve
from tests.gateway.server import serving_app
from tests.gateway.test_cli import CHECKOUT, command, environment
from tests.skills.test_transfer import assert_nothing_written

READ = "query($name: String!) { skill(name: $name) { name visibility } }"


@pytest.fixture
def served(dsn: str, httpserver: HTTPServer) -> Iterator[str]:
    source = httpserver.url_for("/").rstrip("/")
    changes = {"catalog_source_base_url": source, "catalog_timeout": 2.0}
    with serving_app(dsn, **changes) as (url, _):
        yield url


async def cli(url: str, dsn: str, *args: str) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(
        subprocess.run,
        [*command(), "catalog", "add", *args, "--url", url],
        env=environment(dsn),
        cwd=CHECKOUT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def read(url: str, token: str, name: str) -> dict[str, object]:
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{url}/graphql",
            json={"query": READ, "variables": {"name": name}},
            headers={"Authorization": f"Bearer {token}"},
        )
    return answer.json()  # type: ignore[no-any-return]


async def test_a_shipped_skill_is_added_for_the_workspace(served, dsn, ws):
    name = "skillmem-read-record-card"
    added = await cli(served, dsn, f"shipped:{name}", "--yes", "--token", ws.tokens["member"])
    assert added.returncode == 0, added.stderr
    assert f"name:        {name}" in added.stdout
    assert "visible to:  the whole workspace" in added.stdout
    assert f"added {name} (version 1), visible to the whole workspace" in added.stdout
    theirs = await read(served, ws.tokens["other"], name)
    assert theirs["data"] == {"skill": {"name": name, "visibility": "WORKSPACE"}}


async def test_a_community_skill_is_installed_at_the_previewed_commit(
    served, dsn, ws, httpserver: HTTPServer
):
    serve(httpserver, repository(PDF), ref="main")
    source = "acme/skills/skills/pdf@main"
    added = await cli(served, dsn, source, "--yes", "--token", ws.tokens["member"])
    assert added.returncode == 0, added.stderr
    out = added.stdout
    assert f"commit:      {SHA}" in out and "visible to:  only you" in out
    assert "scripts/fill.py" in out and "script (scripts_folder)" in out
    assert "notes.md" in out
    assert "added pdf (version 1), visible to only you" in out
    # the preview resolved the ref once; the install fetched that commit, not the ref again
    paths = [request.path for request, _ in httpserver.log]
    assert paths == ["/repos/acme/skills/commits/main", TARBALL, TARBALL]
    mine = await read(served, ws.tokens["member"], "pdf")
    assert mine["data"] == {"skill": {"name": "pdf", "visibility": "PRIVATE"}}


async def test_a_refused_folder_shows_every_problem_and_adds_nothing(
    served, dsn, pool, ws, httpserver: HTTPServer
):
    body = b"---\nname: Word_X\n---\n# Word\n"
    serve(httpserver, repository([("pdf/SKILL.md", body), ("pdf/notes.md", b"x")]))
    refused = await cli(served, dsn, "acme/skills/pdf", "--yes", "--token", ws.tokens["member"])
    assert refused.returncode == 1, refused.stderr
    assert "Traceback" not in refused.stderr
    lines = refused.stderr.splitlines()
    assert lines[0] == "skillmem: acme/skills/pdf cannot be added"
    assert "  pdf/name: The name must be lowercase." in lines
    assert "  pdf/description: The frontmatter has no description." in lines
    assert len(lines) == 5
    assert "added" not in refused.stdout
    await assert_nothing_written(pool, ws)


async def test_no_terminal_without_yes_is_refused(served, dsn, pool, ws):
    asked = await cli(
        served, dsn, "shipped:skillmem-read-record-card", "--token", ws.tokens["member"]
    )
    assert asked.returncode == 2, asked.stderr
    assert asked.stderr == "skillmem: no terminal to confirm on: pass --yes to add it\n"
    await assert_nothing_written(pool, ws)


def on_terminal(url: str, dsn: str, answer: bytes, *args: str) -> subprocess.CompletedProcess[str]:
    """The command with a terminal as its stdin, ``answer`` typed into it."""
    main, secondary = pty.openpty()
    try:
        os.write(main, answer)
        return subprocess.run(
            [*command(), "catalog", "add", *args, "--url", url],
            env=environment(dsn),
            cwd=CHECKOUT,
            stdin=secondary,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(main)
        os.close(secondary)


async def test_on_a_terminal_it_asks_first(served, dsn, pool, ws):
    name = "skillmem-read-record-card"
    args = (f"shipped:{name}", "--token", ws.tokens["member"])
    declined = await asyncio.to_thread(on_terminal, served, dsn, b"n\n", *args)
    assert declined.returncode == 1, declined.stderr
    assert f"Add {name}?" in declined.stdout
    assert declined.stderr == "skillmem: not added: declined\n"
    await assert_nothing_written(pool, ws)
    accepted = await asyncio.to_thread(on_terminal, served, dsn, b"y\n", *args)
    assert accepted.returncode == 0, accepted.stderr
    assert f"added {name} (version 1)" in accepted.stdout


async def test_a_bad_token_is_one_line(served, dsn):
    bad = await cli(served, dsn, "shipped:skillmem-read-record-card", "--yes", "--token", "smk_x")
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    assert len(bad.stderr.splitlines()) == 1
    assert bad.stderr.startswith("skillmem: UNAUTHENTICATED: ")
