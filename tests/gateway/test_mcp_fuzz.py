"""The MCP tools fuzzed over /mcp (the app under uvicorn, JSON-RPC posted as a client posts it):
each tool's arguments drawn by schemathesis from the input schema the tool lists, arguments
that schema accepts and arguments it refuses, strings sometimes the workspace's real ids and
refs; skills' resources read at any URI; as an admin, a member, an MCP client and an agent.
Every answer is a tool result, a coded refusal (DESIGN §8, never INTERNAL) or a JSON-RPC error
with its standard code: never a 5xx, an internal error, or a trace. Bounded and derandomized."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import strategies as st

from gateway.mcp.tools import TOOLS
from resolvers.common.errors import Code
from tests.factories import Workspace
from tests.fuzzing import HOSTILE_TEXT, mostly
from tests.gateway.fuzz_kit import Door, cases, collect, operations
from tests.gateway.mcp_kit import Scene, scene
from tests.gateway.server import serving

EXAMPLES_PER_TOOL = 12
EXAMPLES_OF_URIS = 12
# JSON-RPC's own codes for a refused message (parse error, invalid request, no such method,
# invalid params) and MCP's resource not found: coded answers. -32603 is an internal error.
RPC_CODES = {-32700, -32600, -32601, -32602, -32002}
# A 5xx's codes: the database is up, so neither may answer.
FAILED = {Code.INTERNAL.value, Code.DB_UNAVAILABLE.value}
CODES = {c.value for c in Code}
TOKENS = ("admin", "member", "mcp_client", "agent")
HEADERS = {"accept": "application/json, text/event-stream"}


def known(found: Scene) -> dict[str, list[Any]]:
    """Real values for the arguments the tools name, so that calls reach past "not found"."""
    refs = [f"memory:{found.page}", f"skill:{found.skill}", f"record:{found.acme}"]
    return {
        "ref": [*refs, f"skill:{found.skill}/scripts/remind.py", f"skill:{found.skill}/../x"],
        "recordId": [found.acme, found.page],
        "attachedRecordId": [found.acme],
        "id": [found.acme, found.page],
        "query": ["Acme", "invoice"],
        "message": [f"About @[Acme](record:{found.acme}) and @[X](record:nope)"],
        "records": [
            [{"object": "companies", "label": "Fuzz Co"}],
            [{"object": "memory", "label": "x"}],
            [{"id": found.acme, "values": {"name": "Acme"}}, {"object": "nope"}],
        ],
    }


def examples(found: Scene) -> dict[str, list[dict[str, Any]]]:
    """Calls of each tool that its checks accept, with the workspace's real ids."""
    refs = known(found)["ref"]
    return {
        "search": [{"query": "Acme"}, {"query": "invoice", "kinds": ["skill"], "first": 1}],
        "read": [{"ref": ref} for ref in refs],
        "propose_memory": [{"text": "Acme pays at 60 days", "recordId": found.acme}],
        "recall": [{"query": "Acme", "limit": 2, "maxChars": 300}, {}],
        "turn_context": [{"message": known(found)["message"][0], "attachedRecordId": found.acme}],
        "write_records": [{"records": lines} for lines in known(found)["records"]],
        "trash_record": [{"id": found.acme}],
        "copy": [{"from": "catalog:shipped:skillmem-move-skills"}],
    }


def rpc_problems(label: str, sent: Any, response: httpx.Response) -> list[str]:
    """What is wrong with an answer of /mcp (nothing when it is a result or a coded refusal)."""
    where = f"{label} {json.dumps(sent, default=str)[:300]}"
    if response.status_code >= 500 or "Traceback" in response.text:
        return [f"{where}: {response.status_code} {response.text[:300]}"]
    try:
        body = response.json()
    except ValueError:
        return [f"{where}: not JSON: {response.text[:200]}"]
    error = body.get("error")
    if error is not None:
        data = error.get("data")
        coded = error.get("code") in RPC_CODES and (
            not isinstance(data, dict) or data.get("code") in CODES - FAILED
        )
        return [] if coded else [f"{where}: {error}"]
    result = body.get("result") or {}
    if not result.get("isError"):
        return [] if isinstance(result.get("structuredContent", {}), dict) else [f"{where}: {body}"]
    refusal = (result.get("structuredContent") or {}).get("error") or {}
    return [] if refusal.get("code") in CODES - FAILED else [f"{where}: {refusal}"]


def as_json(body: Any) -> Any:
    """A drawn body as a JSON value: a negative draw may be raw bytes, sent as text."""
    return body.decode("latin-1") if isinstance(body, bytes) else body


@pytest.fixture
async def fuzzed(pool, ws) -> tuple[Workspace, Scene]:  # type: ignore[no-untyped-def]
    return ws, await scene(pool, ws, skill="fuzz-chase")


def post(http: httpx.Client, url: str, token: str, message: dict[str, Any]) -> httpx.Response:
    headers = {**HEADERS, "authorization": f"Bearer {token}"}
    return http.post(f"{url}/mcp", json=message, headers=headers)


def test_no_tool_call_or_resource_read_answers_an_uncoded_error(dsn, fuzzed):
    ws, found = fuzzed
    values, accepted = known(found), examples(found)
    # trash_record goes last: it moves the known record to the trash.
    doors = [Door("post", f"/tools/{tool.name}", body=tool.input_schema) for tool in TOOLS]
    failures: list[str] = []
    succeeded: set[str] = set()
    with serving(dsn) as url, httpx.Client(timeout=60) as http:
        for door, operation in zip(doors, operations(doors, values), strict=True):
            name = door.path.rsplit("/", 1)[1]

            def call(drawn: tuple[Any, str], name: str = name) -> None:
                case, who = drawn
                params = {"name": name, "arguments": as_json(case.body)}
                message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
                answer = post(http, url, ws.tokens[who], message)
                failures.extend(rpc_problems(f"{name} as {who}", params, answer))
                if answer.status_code == 200 and not answer.json().get("result", {}).get(
                    "isError", True
                ):
                    succeeded.add(name)

            strategy = st.tuples(cases(operation, door, accepted[name]), st.sampled_from(TOKENS))
            collect(EXAMPLES_PER_TOOL, strategy, call)

        def read(drawn: tuple[str, str]) -> None:
            uri, who = drawn
            message = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "resources/read",
                "params": {"uri": uri},
            }
            answer = post(http, url, ws.tokens[who], message)
            failures.extend(rpc_problems(f"resources/read as {who}", uri, answer))

        uris = mostly(
            st.sampled_from([v.replace("record:", "skill:") for v in values["ref"]]),
            st.one_of(HOSTILE_TEXT, HOSTILE_TEXT.map("skill:{}".format)),
        )
        collect(EXAMPLES_OF_URIS, st.tuples(uris, st.sampled_from(TOKENS)), read)
    assert not failures, "\n".join(failures[:10]) + f"\n({len(failures)} in all)"
    # Generated calls got past the arguments' checks: each tool answered some.
    assert succeeded == {tool.name for tool in TOOLS}
