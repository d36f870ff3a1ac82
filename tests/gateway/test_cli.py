"""The `skillmem` console script, run as a subprocess against a fresh database of the session
server (DATABASE_URL is set, so no second embedded server is started)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from db.migrate import migrations
from db.pool import connect, create_pool
from gateway.app import create_app
from gateway.demo import DEMO_AGENT_WITHOUT_MEMORY, DEMO_MEMBER_EMAIL, DEMO_WORKSPACE_ID
from gateway.settings import Settings
from resolvers.common.principals import TOKEN_SHAPE
from tests.gateway.cli_kit import run_soon

CHECKOUT = Path(__file__).resolve().parents[2]
SKILLMEM = Path(sys.executable).with_name("skillmem")
TOKEN = re.compile(r"smk_[A-Za-z0-9_-]{43}")
DEMO_TOKEN_LINE = re.compile(r"demo token: (smk_[A-Za-z0-9_-]{43})")

ME = "{ me { kind name } }"
COMPANIES = '{ records(object: "companies", first: 100) { nodes { label } } }'
ACME = '{ records(object: "companies", filter: {labelContains: "Acme"}) { nodes { label } } }'


def command() -> list[str]:
    if SKILLMEM.exists():
        return [str(SKILLMEM)]
    return [sys.executable, "-m", "gateway.cli"]


def environment(dsn: str, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("SKILLMEM_") and key != "DATABASE_URL"
    }
    env.update(DATABASE_URL=dsn, PYTHONUNBUFFERED="1", SKILLMEM_LOG_LEVEL="warning", **extra)
    return env


async def skillmem(
    dsn: str, *args: str, cwd: Path = CHECKOUT, **env: str
) -> subprocess.CompletedProcess[str]:
    """`skillmem ARGS` against ``dsn``: in this process (tests/gateway/cli_kit.py) unless it must
    run in another folder."""
    if cwd == CHECKOUT:
        return await run_soon(args, environment(dsn, **env))
    return await asyncio.to_thread(
        subprocess.run,
        [*command(), *args],
        env=environment(dsn, **env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@contextlib.asynccontextmanager
async def api(dsn: str) -> AsyncIterator[httpx.AsyncClient]:
    """The app in this process over a pool to ``dsn``: to try the tokens the CLI printed."""
    pool = await create_pool(dsn, min_size=1, max_size=2)
    app = create_app(Settings(database_url=None, introspection=True, worker=False), pool=pool)
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            yield client
    finally:
        await pool.close()


async def ask(
    client: httpx.AsyncClient, token: str, query: str, variables: dict[str, Any] | None = None
) -> httpx.Response:
    return await client.post(
        "/graphql",
        json={"query": query, "variables": variables or {}},
        headers={"authorization": f"Bearer {token}", "accept": "application/json"},
    )


async def data(
    client: httpx.AsyncClient, token: str, query: str, variables: dict[str, Any] | None = None
) -> dict[str, Any]:
    response = await ask(client, token, query, variables)
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def demo_token(output: str) -> str:
    match = re.search(r"token for \S+: (smk_[A-Za-z0-9_-]{43})", output)
    assert match, output
    return match.group(1)


@pytest.fixture(scope="module")
async def demo_db(new_database) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A database the CLI migrated and loaded the demo into: (dsn, the demo token)."""
    dsn = await new_database()
    done = await skillmem(dsn, "demo")
    assert done.returncode == 0, done.stderr
    assert f"demo workspace loaded; token for {DEMO_MEMBER_EMAIL}:" in done.stdout
    return dsn, demo_token(done.stdout)


# migrate, demo, token, load, schema --------------------------------------------------------


async def test_migrate_applies_everything_once(new_database):
    dsn = await new_database()
    first = await skillmem(dsn, "migrate")
    assert first.returncode == 0, first.stderr
    assert "Migrations applied." in first.stdout
    conn = await connect(dsn)
    try:
        rows = await conn.fetch("SELECT version, applied_at FROM schema_migrations ORDER BY 1")
        assert [r["version"] for r in rows] == [m.version for m in migrations()]

        second = await skillmem(dsn, "migrate")
        assert second.returncode == 0, second.stderr
        assert await conn.fetch("SELECT version, applied_at FROM schema_migrations ORDER BY 1") == (
            rows
        )
    finally:
        await conn.close()


async def test_demo_is_loaded_once_and_each_run_revokes_the_last_token(demo_db):
    dsn, first_token = demo_db
    again = await skillmem(dsn, "demo")
    assert again.returncode == 0, again.stderr
    assert "demo workspace present" in again.stdout
    second_token = demo_token(again.stdout)
    assert second_token != first_token
    async with api(dsn) as client:
        assert (await data(client, second_token, ME))["me"] == {
            "kind": "MEMBER",
            "name": "Alice Martin",
        }
        assert (await ask(client, first_token, ME)).status_code == 401
        companies = (await data(client, second_token, COMPANIES))["records"]["nodes"]
        assert sorted(c["label"] for c in companies) == ["Acme", "Globex", "Initech"]


async def test_demo_memory_shows_a_private_source_only_as_its_kind_owner_and_day(demo_db):
    dsn, _ = demo_db
    again = await skillmem(dsn, "demo")
    token = demo_token(again.stdout)
    async with api(dsn) as client:
        found = await data(
            client,
            token,
            "{ memoryMission myMemories { souvenirs { aboutRecordId } }"
            ' records(object: "companies", filter: {labelContains: "Acme"}) { nodes { id } } }',
        )
        acme = found["records"]["nodes"][0]["id"]
        assert found["memoryMission"].startswith("Retenir qui décide")
        assert acme in [s["aboutRecordId"] for s in found["myMemories"]["souvenirs"]]
        page = await data(
            client,
            token,
            "query($id: ID!) { memoryPageByRecord(recordId: $id) { content } }",
            {"id": acme},
        )
    # Alice cannot open Bob's private deal: she sees its kind, owner and day, never its id.
    content = page["memoryPageByRecord"]["content"]
    assert "→ deal from Bob Durand, 2026-10-23 — Bob Durand" in content
    assert "record:" not in content


async def test_demo_has_an_agent_with_memory_and_one_without(demo_db):
    dsn, _ = demo_db
    token = demo_token((await skillmem(dsn, "demo")).stdout)
    turn = (
        "query($m: String!) { turnContext(input: {message: $m}) {"
        " profiles { workspace } cards { label souvenirs { line } } } }"
    )
    async with api(dsn) as client:
        found = await data(
            client,
            token,
            '{ agents { name toolGroups } records(object: "companies",'
            ' filter: {labelContains: "Acme"}) { nodes { id } } }',
        )
        assert found["agents"] == [
            {"name": DEMO_AGENT_WITHOUT_MEMORY, "toolGroups": ["core"]},
            {"name": "Scout", "toolGroups": ["core", "memory"]},
        ]
        message = f"@[Acme](record:{found['records']['nodes'][0]['id']}) news?"
        seen = {}
        for agent in ("Scout", DEMO_AGENT_WITHOUT_MEMORY):
            made = await skillmem(
                dsn,
                "token",
                "create",
                "--workspace",
                str(DEMO_WORKSPACE_ID),
                "--agent",
                agent,
                "--for",
                DEMO_MEMBER_EMAIL,
            )
            assert made.returncode == 0, made.stderr
            seen[agent] = (await data(client, made.stdout.strip(), turn, {"m": message}))[
                "turnContext"
            ]
    [scout_card] = seen["Scout"]["cards"]
    [ledger_card] = seen[DEMO_AGENT_WITHOUT_MEMORY]["cards"]
    assert scout_card["label"] == ledger_card["label"] == "Acme"
    assert scout_card["souvenirs"] and seen["Scout"]["profiles"]["workspace"]
    assert ledger_card["souvenirs"] == []
    assert seen[DEMO_AGENT_WITHOUT_MEMORY]["profiles"]["workspace"] is None


async def test_token_create_for_an_api_key(demo_db):
    dsn, _ = demo_db
    made = await skillmem(
        dsn, "token", "create", "--workspace", str(DEMO_WORKSPACE_ID), "--api-key", "partner-sync"
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert TOKEN_SHAPE.match(token), made.stdout
    async with api(dsn) as client:
        assert (await data(client, token, ME))["me"] == {"kind": "API_KEY", "name": "partner-sync"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workspace", str(DEMO_WORKSPACE_ID), "--api-key", "nope"], "no API key nope"),
        (
            ["--workspace", "00000000-0000-0000-0000-000000000000", "--member", "a@b.co"],
            "no workspace",
        ),
        (["--workspace", str(DEMO_WORKSPACE_ID), "--member", "nobody@x.example"], "no member"),
        (["--workspace", str(DEMO_WORKSPACE_ID), "--agent", "Scout"], "need --for"),
    ],
    ids=["api-key", "workspace", "member", "agent-without-for"],
)
async def test_token_create_refuses_unknown_principals(demo_db, args, message):
    dsn, _ = demo_db
    refused = await skillmem(dsn, "token", "create", *args)
    assert refused.returncode == 2
    assert message in refused.stderr
    assert not TOKEN.search(refused.stdout)


async def api_key_token(dsn: str) -> str:
    made = await skillmem(
        dsn, "token", "create", "--workspace", str(DEMO_WORKSPACE_ID), "--api-key", "partner-sync"
    )
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def jsonl(path: Path, lines: list[Any]) -> Path:
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    )
    return path


async def company_labels(client: httpx.AsyncClient, token: str) -> list[str]:
    nodes = (await data(client, token, COMPANIES))["records"]["nodes"]
    return sorted(n["label"] for n in nodes)


async def test_load_creates_then_finds_records_unchanged(demo_db, tmp_path):
    dsn, _ = demo_db
    token = await api_key_token(dsn)
    file = jsonl(
        tmp_path / "partners.jsonl",
        [
            {"object": "companies", "external_id": "umbrella", "label": "Umbrella"},
            "",
            {
                "object": "contacts",
                "external_id": "wesker",
                "label": "Albert Wesker",
                "relations": {"company": {"external_id": "umbrella"}},
            },
            {"object": "companies", "external_id": "acme", "values": {"employees": 1300}},
        ],
    )
    loaded = await skillmem(dsn, "load", str(file), "--token", token)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "3 line(s): create 2, update 1, unchanged 0"
    again = await skillmem(dsn, "load", str(file), SKILLMEM_TOKEN=token)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "3 line(s): create 0, update 0, unchanged 3"
    async with api(dsn) as client:
        assert "Umbrella" in await company_labels(client, token)
        contact = await data(
            client,
            token,
            '{ records(object: "contacts", filter: {labelContains: "Wesker"}) {'
            ' nodes { relation(attribute: "company") { label } } } }',
        )
        assert contact["records"]["nodes"] == [{"relation": {"label": "Umbrella"}}]


async def test_load_of_a_bad_file_writes_nothing_and_lists_the_problems(demo_db, tmp_path):
    dsn, _ = demo_db
    token = await api_key_token(dsn)
    async with api(dsn) as client:
        before = await company_labels(client, token)
    file = jsonl(
        tmp_path / "bad.jsonl",
        [
            {"object": "companies", "external_id": "hooli", "label": "Hooli"},
            {"object": "companies", "label": "Pied Piper", "values": {"employees": "nine"}},
            {"object": "notes", "label": "Not for an API key"},
            {"object": "companies", "label": "Big", "values": {"employees": 2**64}},
        ],
    )
    refused = await skillmem(dsn, "load", str(file), "--token", token)
    assert refused.returncode == 1, refused.stdout
    assert "Traceback" not in refused.stderr
    assert "SCHEMA_VALIDATION_FAILED" in refused.stderr
    assert "line 2: values.employees: must be a number" in refused.stderr
    assert "line 3: object: no such object" in refused.stderr
    assert "line 4: values.employees:" in refused.stderr
    assert "line 1:" not in refused.stderr
    assert refused.stdout == ""
    async with api(dsn) as client:
        assert await company_labels(client, token) == before


async def test_load_of_a_file_that_is_not_json_lines_writes_nothing(demo_db, tmp_path):
    dsn, _ = demo_db
    token = await api_key_token(dsn)
    file = jsonl(
        tmp_path / "broken.jsonl",
        [{"object": "companies", "external_id": "vandelay", "label": "Vandelay"}, "{oops"],
    )
    refused = await skillmem(dsn, "load", str(file), "--token", token)
    assert refused.returncode != 0
    assert "line 2: not JSON" in refused.stderr
    async with api(dsn) as client:
        assert "Vandelay" not in await company_labels(client, token)


async def test_load_needs_a_valid_token(demo_db, tmp_path):
    dsn, _ = demo_db
    file = jsonl(tmp_path / "one.jsonl", [{"object": "companies", "label": "X"}])
    missing = await skillmem(dsn, "load", str(file))
    assert missing.returncode == 2
    assert "give --token" in missing.stderr
    wrong = await skillmem(dsn, "load", str(file), "--token", "smk_" + "A" * 43)
    assert wrong.returncode == 2
    assert "not valid" in wrong.stderr


async def test_schema_check_passes_from_the_checkout(tmp_path):
    checked = await skillmem("postgresql://unused/none", "schema", "--check")
    assert checked.returncode == 0, checked.stderr
    # Where there is no schema.graphql the check fails.
    elsewhere = await skillmem("postgresql://unused/none", "schema", "--check", cwd=tmp_path)
    assert elsewhere.returncode != 0
    assert "out of date" in elsewhere.stderr
    printed = await skillmem("postgresql://unused/none", "schema")
    assert printed.stdout == (CHECKOUT / "schema.graphql").read_text()


# serve -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """`skillmem serve --demo` in a subprocess, its output read line by line."""

    def __init__(self, dsn: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        self.process = subprocess.Popen(
            [*command(), "serve", "--demo", "--port", str(self.port)],
            env=environment(dsn),
            cwd=CHECKOUT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for_token(self, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            self.output.append(line)
            if match := DEMO_TOKEN_LINE.search(line):
                return match.group(1)
        raise AssertionError(
            f"no demo token within {timeout}s (exit {self.process.poll()}):\n"
            + "".join(self.output)
        )

    async def wait_until_serving(self, client: httpx.AsyncClient, within: float = 15) -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.TransportError):
                if (await client.get(f"{self.url}/healthz")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
        raise AssertionError(f"{self.url} did not answer within {within}s")

    def stop(self) -> int | None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        while not self.lines.empty():
            self.output.append(self.lines.get_nowait())
        return self.process.returncode


async def test_serve_demo_starts_answers_and_restarts_with_a_new_token(new_database):
    dsn = await new_database()  # not migrated: serve migrates it
    servers: list[Server] = []
    try:
        async with httpx.AsyncClient(timeout=10) as client:
            first = Server(dsn)
            servers.append(first)
            token = await asyncio.to_thread(first.wait_for_token)
            await first.wait_until_serving(client)
            assert any("Loaded the demo workspace." in line for line in first.output)

            page = await client.get(f"{first.url}/graphql", headers={"accept": "text/html"})
            assert page.status_code == 200
            assert page.headers["content-type"].startswith("text/html")
            assert "graphiql" in page.text.lower()

            graphql = f"{first.url}/graphql"
            me = await client.post(
                graphql,
                json={"query": "{ me { name } }"},
                headers={"authorization": f"Bearer {token}"},
            )
            assert me.status_code == 200, me.text
            assert me.json() == {"data": {"me": {"name": "Alice Martin"}}}

            headers = {"authorization": f"Bearer {token}"}
            acme = await client.post(graphql, json={"query": ACME}, headers=headers)
            assert acme.json()["data"]["records"]["nodes"] == [{"label": "Acme"}]
            companies = await client.post(graphql, json={"query": COMPANIES}, headers=headers)
            count = len(companies.json()["data"]["records"]["nodes"])
            assert count == 3

            # uvicorn shuts down gracefully, then re-raises the SIGTERM it caught.
            assert first.stop() in (0, -signal.SIGTERM), "".join(first.output)
            # It ran one Dreamer worker beside the API, and stopped it.
            assert any("Dreamer worker: one in this process" in line for line in first.output)

            second = Server(dsn)
            servers.append(second)
            new_token = await asyncio.to_thread(second.wait_for_token)
            await second.wait_until_serving(client)
            assert new_token != token
            assert not any("Loaded the demo workspace." in line for line in second.output)
            graphql = f"{second.url}/graphql"
            me = await client.post(
                graphql,
                json={"query": "{ me { name } }"},
                headers={"authorization": f"Bearer {new_token}"},
            )
            assert me.json() == {"data": {"me": {"name": "Alice Martin"}}}
            revoked = await client.post(
                graphql,
                json={"query": "{ me { name } }"},
                headers={"authorization": f"Bearer {token}"},
            )
            assert revoked.status_code == 401
            assert revoked.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
            companies = await client.post(
                graphql, json={"query": COMPANIES}, headers={"authorization": f"Bearer {new_token}"}
            )
            assert len(companies.json()["data"]["records"]["nodes"]) == count
    finally:
        for server in servers:
            server.stop()
