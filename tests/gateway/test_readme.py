"""Every GraphQL, curl and CLI example of README.md, run in the README's order against the demo
workspace on a real server (issue 13, item 6): each must answer without an error and show
something. The convention is in tests/gateway/readme_examples.py and CONTRIBUTING.md."""

from __future__ import annotations

import asyncio
import inspect
import io
import json
import os
import shlex
import subprocess
import sys
import threading
import traceback
from collections.abc import AsyncIterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from db.migrate import apply_migrations
from db.pool import begin_workspace, connect
from gateway.cli.main import main
from gateway.demo import DEMO_MAILBOX, DEMO_MEMBER_EMAIL, DEMO_WORKSPACE_ID, ensure_demo
from resolvers.agents.skills import public_skill_id
from resolvers.common import ids
from resolvers.common.principals import issue_token
from resolvers.stores.workspace import WORKSPACE_STORE_ID
from resolvers.turns.attachments import public_store_id
from tests.gateway.readme_examples import (
    README,
    README_URL,
    Example,
    examples,
    fill,
    shows_something,
)
from tests.gateway.server import serving

EXAMPLES = examples(README.read_text())
COMMAND_SECONDS = 30
VENV_BIN = Path(sys.executable).parent

# The demo's objects each placeholder names, read again before every example (an example may
# have changed them): the query is Alice's.
CURRENT = """{
  me { person { id } }
  acme: records(object: "companies", filter: {labelContains: "Acme"}) { nodes { id } }
  deal: records(object: "deals", filter: {labelContains: "Acme renewal"}) { nodes { id } }
  myMemories { id contentSha256 }
}"""
ACME_PAGE = """query($id: ID!) { memoryPageByRecord(recordId: $id) {
  id contentSha256 souvenirs { key } } }"""


def placeholder_values(
    fixed: dict[str, str], now: dict[str, Any], page: dict[str, Any], month: str
) -> dict[str, str]:
    """Every README placeholder's value from the demo's CURRENT answer and Acme's page."""
    return {
        **fixed,
        "ALICE_ID": now["me"]["person"]["id"],
        "ACME_ID": now["acme"]["nodes"][0]["id"],
        "DEAL_ID": now["deal"]["nodes"][0]["id"],
        "ACME_PAGE_ID": page["id"],
        "ACME_PAGE_SHA256": page["contentSha256"],
        "SOUVENIR_KEY": page["souvenirs"][-1]["key"],
        "PROFILE_PAGE_ID": now["myMemories"]["id"],
        "PROFILE_PAGE_SHA256": now["myMemories"]["contentSha256"],
        "MONTH": month,
    }


@dataclass
class Demo:
    dsn: str
    url: str
    workdir: Path
    fixed: dict[str, str]  # tokens and ids that no example changes

    async def values(self, client: httpx.AsyncClient) -> dict[str, str]:
        """Every placeholder's value now."""
        now = await graphql(client, self.url, self.fixed["TOKEN"], CURRENT)
        acme = now["acme"]["nodes"][0]["id"]
        page = (await graphql(client, self.url, self.fixed["TOKEN"], ACME_PAGE, {"id": acme}))[
            "memoryPageByRecord"
        ]
        return placeholder_values(self.fixed, now, page, datetime.now(UTC).strftime("%Y-%m"))


async def graphql(
    client: httpx.AsyncClient,
    url: str,
    token: str,
    query: str,
    variables: dict[str, Any] | None = None,
    operation: str | None = None,
) -> dict[str, Any]:
    """An operation's data; fails the test on a status other than 200 or any error."""
    body: dict[str, Any] = {"query": query, "variables": variables or {}}
    if operation:
        body["operationName"] = operation
    response = await client.post(
        f"{url}/graphql", json=body, headers={"authorization": f"Bearer {token}"}
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert not answer.get("errors"), answer["errors"]
    return answer["data"]  # type: ignore[no-any-return]


async def _fixed_values(dsn: str) -> dict[str, str]:
    """Tokens (purpose `test`: `skillmem demo` in an example revokes only demo tokens) and the
    ids no example changes."""
    conn = await connect(dsn)
    try:
        async with conn.transaction():
            await begin_workspace(conn, DEMO_WORKSPACE_ID)
            ws = DEMO_WORKSPACE_ID
            alice = await conn.fetchval(
                "SELECT id FROM members WHERE email = $1", DEMO_MEMBER_EMAIL
            )
            claire = await conn.fetchval("SELECT id FROM members WHERE email LIKE 'claire@%'")
            key = await conn.fetchval("SELECT id FROM api_keys WHERE name = 'partner-sync'")
            routine = await conn.fetchval("SELECT id FROM routines WHERE name = 'Weekly digest'")
            mailbox = await conn.fetchval(
                "SELECT id FROM mailboxes WHERE external_id = $1", DEMO_MAILBOX
            )
            scout = await conn.fetchval("SELECT id FROM agents WHERE name = 'Scout'")
            skill = await conn.fetchval("SELECT id FROM skills WHERE name = 'invoice-followup'")
            token = await issue_token(conn, "member", member_id=alice, purpose="test")
            values = {
                "TOKEN": token,
                "SKILLMEM_TOKEN": token,
                "KEY": await issue_token(conn, "api_key", api_key_id=key, purpose="test"),
                "WORKSPACE_ID": str(ws),
                "CLAIRE_ID": ids.encode("Member", ws, claire),
                "ROUTINE_ID": ids.encode("Routine", ws, routine),
                "MAILBOX": ids.encode("Mailbox", ws, mailbox),
                "SCOUT_ID": ids.encode("Agent", ws, scout),
                "SKILL_ID": public_skill_id(ws, skill),
                "MEMORY_STORE_ID": public_store_id(ws, WORKSPACE_STORE_ID),
            }
            return values
    finally:
        await conn.close()


@pytest.fixture(scope="module")
async def demo(new_database, tmp_path_factory) -> AsyncIterator[Demo]:  # type: ignore[no-untyped-def]
    """A fresh database with the demo loaded, served by uvicorn on a free port."""
    dsn = await new_database()
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
        await ensure_demo(conn)
    finally:
        await conn.close()
    fixed = await _fixed_values(dsn)
    with serving(dsn) as url:
        yield Demo(dsn, url, tmp_path_factory.mktemp("readme"), fixed)


@pytest.fixture(scope="module")
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=COMMAND_SECONDS) as client:
        yield client


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
async def test_readme_example(example: Example, demo: Demo, client: httpx.AsyncClient):
    if example.skipped:
        pytest.skip(f"not run: {example.skipped}")
    values = await demo.values(client)
    if example.kind == "graphql":
        await _run_graphql(example, demo, client, values)
    else:
        await _run_shell(example, demo, values)


async def _run_graphql(
    example: Example, demo: Demo, client: httpx.AsyncClient, values: dict[str, str]
) -> None:
    query = fill(example.text, values)
    data = await graphql(client, demo.url, values["TOKEN"], query, operation=example.operation)
    empty = [field for field, value in data.items() if not shows_something(value)]
    assert not empty, f"{example.id}: nothing shown by {', '.join(empty)}: {data}"


# A curl that fails on an HTTP error (keeping the body to show it) and says what it got.
CURL = (
    "curl() { command curl --silent --show-error --fail-with-body"
    ' --write-out "\\n@@status=%{http_code} size=%{size_download}\\n" "$@"; }\n'
)


async def _run_shell(example: Example, demo: Demo, values: dict[str, str]) -> None:
    command = fill(README_URL.sub(demo.url, example.text), values)
    command = command.removeprefix(".venv/bin/")
    host, port = demo.url.removeprefix("http://").split(":")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLMEM_")}
    env.update(
        values,
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        DATABASE_URL=demo.dsn,
        SKILLMEM_HOST=host,
        SKILLMEM_PORT=port,
        SKILLMEM_URL=demo.url,
        SKILLMEM_WORKER="false",
    )
    argv = shlex.split(command, comments=True)
    if argv[0] == "skillmem" and not SHELL_SYNTAX.intersection(argv):
        # In this process (a new one takes seconds to import the app): the same main().
        code, stdout, stderr = await asyncio.to_thread(_skillmem, argv[1:], env, demo.workdir)
    else:
        done = await asyncio.to_thread(
            subprocess.run,
            ["bash", "-u", "-o", "pipefail", "-c", CURL + command],
            env=env,
            cwd=demo.workdir,
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
        )
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    said = f"{example.id}: {command}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    assert code == 0, said
    assert "Traceback" not in stderr, said
    if argv[0] == "curl":
        _check_curl(stdout, said)
    elif argv[0] == "printf":  # writes a file a later command reads
        redirected = argv[argv.index(">") + 1]
        assert (demo.workdir / redirected).read_text().strip(), said
    else:
        assert stdout.strip(), said


SHELL_SYNTAX = {"|", "||", "&&", ";", ">", ">>", "<", "&"}


def _skillmem(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    """``skillmem ARGV`` through the console script's own ``main``, in a thread of its own
    (it runs its own event loop), with that environment and folder; its exit code and
    output."""
    result: list[tuple[int, str, str]] = []

    def run() -> None:
        out, err = io.StringIO(), io.StringIO()
        code: int = 0
        with redirect_stdout(out), redirect_stderr(err):
            try:
                # main(argv), or a main() that reads sys.argv (a CLI library's entry point).
                code = (main(argv) if inspect.signature(main).parameters else main()) or 0
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
            except Exception:  # noqa: BLE001 - shown as the example's failure
                traceback.print_exc(file=err)
                code = 1
        result.append((code, out.getvalue(), err.getvalue()))

    saved, folder, saved_argv = dict(os.environ), Path.cwd(), sys.argv
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = ["skillmem", *argv]
    try:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(COMMAND_SECONDS)
    finally:
        sys.argv = saved_argv
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(saved)
    assert result, f"skillmem {' '.join(argv)} did not end within {COMMAND_SECONDS}s"
    return result[0]


def _check_curl(stdout: str, said: str) -> None:
    body, _, status = stdout.rpartition("@@status=")
    code, size = (int(part.split("=")[-1]) for part in status.split())
    assert 200 <= code < 300 and size > 0, said
    body = body.strip()
    if body.startswith(("{", "[")):
        answer = json.loads(body)
        if isinstance(answer, dict):
            assert not answer.get("errors") and not answer.get("error"), said
        assert shows_something(answer), said
