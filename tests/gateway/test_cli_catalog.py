"""`skillmem catalog search TEXT [--community]` as a subprocess against the app under uvicorn,
its directory a local fake server: a table, JSON, the directory's texts, an unavailable
directory said on stderr, an agent's refusal as one line, never a traceback."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer

from tests.gateway.cli_kit import run_soon
from tests.gateway.server import serving_app
from tests.gateway.test_cli import environment

ANSWER = {
    "query": "xlsx",
    "searchType": "fuzzy",
    "skills": [
        {
            "id": "acme/skills/xlsx",
            "skillId": "xlsx",
            "name": "xlsx",
            "installs": 42,
            "source": "acme/skills",
        }
    ],
}


@pytest.fixture
def served(dsn: str, httpserver: HTTPServer) -> Iterator[str]:
    directory = httpserver.url_for("/").rstrip("/")
    with serving_app(dsn, catalog_directory_base_url=directory, catalog_timeout=2.0) as (url, _):
        yield url


async def cli(url: str, dsn: str, *args: str) -> subprocess.CompletedProcess[str]:
    return await run_soon(["catalog", "search", *args, "--url", url], environment(dsn))


async def test_catalog_search_as_a_table_and_as_json(served, dsn, ws, httpserver: HTTPServer):
    httpserver.expect_request("/api/search").respond_with_json(ANSWER)
    own = await cli(served, dsn, "propose", "--token", ws.tokens["member"])
    assert own.returncode == 0, own.stderr
    assert "skillmem-propose-memory" in own.stdout and "product" in own.stdout
    assert httpserver.log == []
    both = await cli(
        served, dsn, "xlsx", "--community", "--format", "json", "--token", ws.tokens["member"]
    )
    assert both.returncode == 0, both.stderr
    found = json.loads(both.stdout)
    assert [(h["origin"], h["name"], h["installs"]) for h in found["results"]] == [
        ("COMMUNITY", "xlsx", 42)
    ]
    assert [request.args["q"] for request, _ in httpserver.log] == ["xlsx"]


async def test_an_unavailable_directory_is_said_and_an_agent_refused(
    served, dsn, ws, httpserver: HTTPServer
):
    httpserver.expect_request("/api/search").respond_with_data("", status=503)
    down = await cli(served, dsn, "xlsx", "--community", "--token", ws.tokens["member"])
    assert down.returncode == 0, down.stderr
    assert "the community search is unavailable" in down.stderr
    assert "no skill matched" not in down.stderr
    agent = await cli(served, dsn, "xlsx", "--community", "--token", ws.tokens["agent"])
    assert agent.returncode != 0
    assert "Traceback" not in agent.stderr
    assert agent.stderr.startswith("skillmem: FORBIDDEN: ")
    assert "requestCatalogSearch" in agent.stderr.splitlines()[0]
