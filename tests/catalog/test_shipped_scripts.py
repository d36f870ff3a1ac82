"""The shipped skills' scripts run as an agent runs them, against the real server
(`skillmem serve --demo` in a subprocess): each does what its skill says; and a shipped skill
added to the workspace is pulled to disk, still valid for skills-ref."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from skills_ref.validator import validate

from resolvers.skills.fields import SHIPPED_SKILLS_DIR
from tests.gateway.test_cli import CHECKOUT, Server, command, environment

RUN_TIMEOUT = 20.0
ACME = """{ records(object: "companies", first: 5, filter: { labelContains: "acme" }) {
  edges { node { id label } } } }"""
ADD = """mutation($name: String!) { addShippedSkill(name: $name) { name } }"""


@pytest.fixture(scope="module")
async def served(new_database) -> AsyncIterator[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """The server's URL, the demo token and the database's DSN."""
    dsn = await new_database()
    server = Server(dsn)
    try:
        token = await asyncio.to_thread(server.wait_for_token, 30)
        async with httpx.AsyncClient(timeout=10) as client:
            await server.wait_until_serving(client)
        yield server.url, token, dsn
    finally:
        server.stop()


async def graphql(served: tuple[str, str, str], query: str, **variables: Any) -> Any:
    url, token, _ = served
    async with httpx.AsyncClient(timeout=10) as client:
        answer = await client.post(
            f"{url}/graphql",
            json={"query": query, "variables": variables},
            headers={"authorization": f"Bearer {token}"},
        )
    body = answer.json()
    assert "errors" not in body, body
    return body["data"]


async def script(
    served: tuple[str, str, str], skill: str, name: str, *args: str
) -> subprocess.CompletedProcess[str]:
    url, token, _ = served
    path = SHIPPED_SKILLS_DIR / skill / "scripts" / name
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-B", str(path), *args, "--url", url],
        env={"SKILLMEM_TOKEN": token, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )


async def acme_id(served: tuple[str, str, str]) -> str:
    edges = (await graphql(served, ACME))["records"]["edges"]
    return str(next(e["node"]["id"] for e in edges if e["node"]["label"] == "Acme"))


async def test_form_check_script_passes_on_an_added_shipped_skill(served):
    await graphql(served, ADD, name="skillmem-write-skill")
    run = await script(served, "skillmem-write-skill", "form_check.py", "skillmem-write-skill")
    assert run.returncode == 0, run.stderr
    assert [line.split(":")[0] for line in run.stdout.splitlines()] == [
        f"ok   {check}" for check in ("name", "purpose", "trigger", "steps", "check", "reflex")
    ]


async def test_form_check_script_fails_on_a_template_skill(served):
    create = """mutation { createSkill(input: {name: "from-template", description: "New."}) {
      name } }"""
    await graphql(served, create)
    run = await script(served, "skillmem-write-skill", "form_check.py", "from-template")
    assert run.returncode == 1
    assert "FAIL check: there is no check section" in run.stdout


async def test_propose_script_sends_a_proposal_and_refuses_a_bad_one(served):
    record = await acme_id(served)
    run = await script(
        served,
        "skillmem-propose-memory",
        "propose.py",
        "Acme prefers quarterly invoices",
        "--record",
        record,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[1] == "WAITING"
    mine = await graphql(served, "{ myMemoryProposals(first: 1) { text status } }")
    assert mine["myMemoryProposals"] == [
        {"text": "Acme prefers quarterly invoices", "status": "WAITING"}
    ]
    refused = await script(served, "skillmem-propose-memory", "propose.py", "x" * 2001)
    assert refused.returncode == 1
    assert "at most 2000 characters" in refused.stderr


async def test_card_script_prints_the_card_and_its_sources(served):
    record = await acme_id(served)
    run = await script(served, "skillmem-read-record-card", "card.py", record)
    assert run.returncode == 0, run.stderr
    assert "## Acme (company)" in run.stdout and "Souvenirs:" in run.stdout, run.stdout
    # Alice cannot open the deal behind one souvenir: shown closed, not offered to read.
    assert "→ deal from Bob Durand, 2026-10-23" in run.stdout
    assert "source to read: " not in run.stdout


async def test_an_added_shipped_skill_is_pulled_valid_for_skills_ref(served, tmp_path: Path):
    url, token, dsn = served
    await graphql(served, ADD, name="skillmem-move-skills")
    run = await asyncio.to_thread(
        subprocess.run,
        [
            *command(),
            "skills",
            "pull",
            str(tmp_path),
            "skillmem-move-skills",
            "--url",
            url,
            "--token",
            token,
        ],
        env=environment(dsn),
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert run.returncode == 0, run.stderr
    pulled = tmp_path / "skillmem-move-skills"
    assert validate(pulled) == []
    shipped = SHIPPED_SKILLS_DIR / "skillmem-move-skills"
    assert (pulled / "references" / "anthropic-sdk.md").read_bytes() == (
        shipped / "references" / "anthropic-sdk.md"
    ).read_bytes()
