"""The verbs that reach the server (`records search`, `schema inspect`, `agent create`) against
`skillmem serve --demo` in a subprocess, and every verb's mistakes: the server down, a bad token,
a bad file, a name or id that names nothing: one line on stderr, a documented exit code, never
a traceback. `workspace list`, `api-key create` and `token create` by a workspace's name or
GraphQL id run on the database, like `token create`."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import AsyncIterator

import httpx
import pytest
from pytest_httpserver import HTTPServer

from gateway.demo import DEMO_WORKSPACE_ID
from resolvers.common import ids
from tests.gateway.cli_kit import run_here, run_soon
from tests.gateway.test_cli import (
    CHECKOUT,
    ME,
    TOKEN,
    Server,
    api,
    api_key_token,
    data,
    environment,
    free_port,
    skillmem,
)

BAD_TOKEN = "smk_" + "A" * 43
DEMO_GRAPHQL_ID = ids.encode("Workspace", DEMO_WORKSPACE_ID, DEMO_WORKSPACE_ID)


@pytest.fixture(scope="module")
async def served(new_database) -> AsyncIterator[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """`skillmem serve --demo` on a fresh database: its URL, the demo token and the DSN."""
    dsn = await new_database()
    server = Server(dsn)
    try:
        token = await asyncio.to_thread(server.wait_for_token, 60)
        async with httpx.AsyncClient(timeout=10) as client:
            await server.wait_until_serving(client, 30)
        yield server.url, token, dsn
    finally:
        server.stop()


async def cli(
    served: tuple[str, str, str], *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """`skillmem ARGS` with the server's URL in SKILLMEM_HOST/SKILLMEM_PORT (the default --url)."""
    url, _, dsn = served
    host, port = url.removeprefix("http://").split(":")
    return await run_soon(
        args, environment(dsn, **{"SKILLMEM_HOST": host, "SKILLMEM_PORT": port, **env})
    )


def one_line_error(done: subprocess.CompletedProcess[str], code: int, message: str) -> None:
    assert done.returncode == code, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("skillmem: ")
    assert message in done.stderr.splitlines()[0], done.stderr


# over the server ---------------------------------------------------------------------------


async def test_records_search_memory_as_a_table_and_as_json(served):
    _, token, _ = served
    table = await cli(
        served, "records", "search", "memory", "--query", "francais", "--token", token
    )
    assert table.returncode == 0, table.stderr
    assert "Acme" in table.stdout and "Claire Morel" in table.stdout
    assert table.stdout.splitlines()[1].split() == [
        "┃",
        "id",
        "┃",
        "title",
        "┃",
        "snippet",
        "┃",
        "rank",
        "┃",
    ]
    found = await cli(
        served,
        "records",
        "search",
        "memory",
        "-q",
        "francais",
        "--format",
        "json",
        SKILLMEM_TOKEN=token,
    )
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert [(h["object"], h["title"]) for h in hits] == [("MEMORY", "Acme")]
    assert "français" in hits[0]["snippet"]
    nothing = await cli(
        served, "records", "search", "memory", "-q", "zzzz", "--format", "json", "--token", token
    )
    assert json.loads(nothing.stdout) == []


async def test_schema_inspect_skill_and_memory(served):
    _, token, _ = served
    skill = await cli(served, "schema", "inspect", "skill", "--token", token)
    assert skill.returncode == 0, skill.stderr
    lines = skill.stdout.splitlines()
    assert lines[0] == "object skill (Skill / Skills, kind SKILL)"
    assert lines[1] == "your rights: read yes, create yes, update yes, delete yes"
    assert "description" in skill.stdout and "latestVersion" in skill.stdout
    memory = await cli(served, "schema", "inspect", "memory", "--token", token)
    assert memory.returncode == 0, memory.stderr
    assert memory.stdout.startswith("object memory (Memory / Memories, kind MEMORY)")
    assert "SCHEMA_SYSTEM_ENTITY_IMMUTABLE" in memory.stdout
    assert "contentSha256" in memory.stdout


async def test_a_bad_token_is_refused_in_one_line(served, tmp_path):
    for args in (
        ("records", "search", "memory", "-q", "x"),
        ("schema", "inspect", "memory"),
        ("agent", "create", "Helper"),
    ):
        refused = await cli(served, *args, "--token", BAD_TOKEN)
        one_line_error(refused, 1, "UNAUTHENTICATED")
        assert "check --token or SKILLMEM_TOKEN" in refused.stderr
    pulled = await cli(served, "skills", "pull", str(tmp_path / "out"), "--token", BAD_TOKEN)
    assert pulled.returncode == 1 and "UNAUTHENTICATED" in pulled.stderr
    assert "Traceback" not in pulled.stderr


async def test_the_server_down_is_exit_code_3_with_no_traceback(served, tmp_path):
    _, token, _ = served
    down = f"http://127.0.0.1:{free_port()}"
    for args in (
        ("records", "search", "memory", "-q", "x"),
        ("schema", "inspect", "skill"),
        ("agent", "create", "Helper"),
        ("skills", "pull", str(tmp_path / "out")),
        ("skills", "push", str(tmp_path)),
    ):
        refused = await cli(served, *args, "--token", token, "--url", down)
        one_line_error(refused, 3, f"cannot reach the server at {down}")
    # Without --url, SKILLMEM_PORT names the server.
    port = down.rsplit(":", 1)[1]
    refused = await cli(
        served, "records", "search", "memory", "-q", "x", "--token", token, SKILLMEM_PORT=port
    )
    one_line_error(refused, 3, f"cannot reach the server at {down}")


async def test_a_database_down_is_exit_code_3_with_no_traceback(tmp_path):
    dsn = f"postgresql://skillmem@127.0.0.1:{free_port()}/none"
    for args in (
        ("migrate",),
        ("workspace", "list"),
        ("token", "create", "-w", "Demo", "--member", "a@b.co"),
    ):
        refused = await skillmem(dsn, *args)
        one_line_error(refused, 3, "cannot reach the database")
    # A local server's unix socket that is not there (a stopped embedded server), for a
    # command that reads no file and for the worker.
    gone = tmp_path / "no-server"
    socket_dsn = f"postgresql://skillmem@/none?host={gone}"
    for args in (("workspace", "list"), ("worker",)):
        refused = await skillmem(socket_dsn, *args)
        one_line_error(refused, 3, "cannot reach the database: No such file or directory")


# agent create: the GraphQL mutation createAgent -------------------------------------------


def test_agent_create_sends_create_agent_and_prints_the_agent(httpserver: HTTPServer):
    # A server of the test's own answers as createAgent does (its mutation is h-tools' work).
    seen: list[dict[str, object]] = []

    def answer(request):  # type: ignore[no-untyped-def]
        from werkzeug import Response

        seen.append({"auth": request.headers["Authorization"], **json.loads(request.data)})
        agent = {"id": "QWdlbnQ6eA", "name": "Helper", "toolGroups": ["records", "memory"]}
        return Response(
            json.dumps({"data": {"createAgent": agent}}), content_type="application/json"
        )

    httpserver.expect_request("/graphql", method="POST").respond_with_handler(answer)
    done = run_here(
        [
            "agent",
            "create",
            "Helper",
            "--tool-group",
            "records",
            "--tool-group",
            "memory",
            "--url",
            httpserver.url_for("/"),
            "--token",
            "smk_" + "b" * 43,
        ],
        environment("postgresql://unused/none"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "agent Helper",
        "id: QWdlbnQ6eA",
        "tool groups: records, memory",
    ]
    (request,) = seen
    assert request["auth"] == "Bearer smk_" + "b" * 43
    assert "createAgent(name: $name, toolGroups: $toolGroups) { id name toolGroups }" in str(
        request["query"]
    )
    assert request["variables"] == {"name": "Helper", "toolGroups": ["records", "memory"]}


def test_agent_create_reports_the_servers_refusal_with_its_problems(httpserver: HTTPServer):
    error = {
        "message": "The input is not valid.",
        "extensions": {
            "code": "SCHEMA_VALIDATION_FAILED",
            "problems": [{"field": "name", "message": "taken"}],
        },
    }
    httpserver.expect_request("/graphql", method="POST").respond_with_json(
        {"data": None, "errors": [error]}
    )
    done = run_here(
        [
            "agent",
            "create",
            "Helper",
            "--url",
            httpserver.url_for("/"),
            "--token",
            BAD_TOKEN,
        ],
        environment("postgresql://unused/none"),
    )
    one_line_error(done, 1, "SCHEMA_VALIDATION_FAILED: The input is not valid.")
    assert "  name: taken" in done.stderr


@pytest.mark.skipif(
    "createAgent" not in (CHECKOUT / "schema.graphql").read_text(),
    reason="the createAgent mutation comes with h-tools (issue 13)",
)
async def test_agent_create_against_the_real_server(served):
    _, token, dsn = served
    made = await cli(served, "agent", "create", "Cli helper", "--token", token)
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[0] == "agent Cli helper"
    issued = await skillmem(
        dsn, "token", "create", "-w", "Demo", "--agent", "Cli helper", "--for", "alice@demo.example"
    )
    assert issued.returncode == 0, issued.stderr


# on the database: workspace list, api-key create, token create by name or GraphQL id --------


async def test_workspace_list_shows_ids_and_names(served):
    _, _, dsn = served
    listed = await skillmem(dsn, "workspace", "list")
    assert listed.returncode == 0, listed.stderr
    (row,) = [line for line in listed.stdout.splitlines() if str(DEMO_WORKSPACE_ID) in line]
    assert DEMO_GRAPHQL_ID in row and "Demo" in row


async def test_token_create_takes_a_workspace_name_or_graphql_id(served):
    _, _, dsn = served
    for workspace in ("Demo", DEMO_GRAPHQL_ID, str(DEMO_WORKSPACE_ID)):
        made = await skillmem(
            dsn, "token", "create", "--workspace", workspace, "--api-key", "partner-sync"
        )
        assert made.returncode == 0, made.stderr
        assert TOKEN.fullmatch(made.stdout.strip())
    unknown = await skillmem(
        dsn, "token", "create", "-w", "No such place", "--api-key", "partner-sync"
    )
    one_line_error(unknown, 2, "no workspace No such place")
    other_type = ids.encode("Record", DEMO_WORKSPACE_ID, DEMO_WORKSPACE_ID)
    wrong = await skillmem(dsn, "token", "create", "-w", other_type, "--api-key", "partner-sync")
    one_line_error(wrong, 2, f"no workspace {other_type}")


async def test_api_key_create_gives_a_key_with_its_role_and_a_token(served):
    _, _, dsn = served
    made = await skillmem(
        dsn, "api-key", "create", "cli-reader", "--workspace", "Demo", "--role", "viewer"
    )
    assert made.returncode == 0, made.stderr
    first, second = made.stdout.splitlines()
    assert first == f"api key cli-reader (role viewer) in workspace {DEMO_WORKSPACE_ID}"
    token = second.removeprefix("token: ")
    async with api(dsn) as client:
        assert (await data(client, token, ME))["me"] == {"kind": "API_KEY", "name": "cli-reader"}
        role = await data(client, token, "{ me { role { name } } }")
        assert role["me"]["role"]["name"] == "viewer"
    again = await skillmem(dsn, "api-key", "create", "cli-reader", "-w", "Demo", "--role", "nope")
    one_line_error(again, 1, "SCHEMA_VALIDATION_FAILED")
    assert "name: an API key cli-reader exists already" in again.stderr
    assert "role: no role nope" in again.stderr
    assert not TOKEN.search(again.stdout)


async def test_demo_says_it_revokes_the_previous_token(served):
    _, _, dsn = served
    done = await skillmem(dsn, "demo")
    assert done.returncode == 0, done.stderr
    assert "the previous demo token, if any, is revoked" in done.stdout


async def test_load_of_a_bad_file_is_one_line_and_exit_code_2(served, tmp_path):
    _, _, dsn = served
    token = await api_key_token(dsn)
    missing = await skillmem(dsn, "load", str(tmp_path / "none.jsonl"), "--token", token)
    one_line_error(missing, 2, f"cannot read {tmp_path / 'none.jsonl'}")
    folder = await skillmem(dsn, "load", str(tmp_path), "--token", token)
    one_line_error(folder, 2, f"cannot read {tmp_path}")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage\n")
    refused = await skillmem(dsn, "load", str(binary), "--token", token)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "line 1: not JSON" in refused.stderr
