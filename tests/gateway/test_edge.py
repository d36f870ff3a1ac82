"""The edge refuses what must never reach a resolver or hold the pool: text holding NUL,
slow bodies, request ids with control characters."""

from __future__ import annotations

import asyncio
import base64
import socket
import time
from collections.abc import AsyncIterator

import httpx
import orjson
import pytest

from db.pool import create_pool
from gateway.app import create_app
from gateway.http.body import read_deadline
from gateway.http.graphql import MAX_BODY_BYTES as MAX_GRAPHQL_BODY_BYTES
from gateway.http.records import MAX_RECORDS_BODY_BYTES
from gateway.http.responses import MAX_JSON_BODY_BYTES
from gateway.settings import Settings
from resolvers.skills.archive.limits import MAX_ARCHIVE_BYTES
from tests.factories import codes, gql
from tests.gateway.server import serving


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def problem_fields(response: httpx.Response) -> list[object]:
    """Each problem's field, or (line, field) when it names a line."""
    body = response.json()
    if "errors" in body:
        problems = [p for e in body["errors"] for p in e["extensions"].get("problems", [])]
    else:
        problems = body["error"].get("problems", [])
    return [(p["line"], p.get("field")) if "line" in p else p["field"] for p in problems]


NUL_LITERALS = [
    ('{ records(object: "com\\u0000panies") { nodes { id } } }', ["records.object"]),
    (
        '{ r: records(object: "companies", filter: {labelContains: "a\\u0000"}) { nodes { id } } }',
        ["r.filter.labelContains"],
    ),
    (
        '{ records(object: "companies", filter: {values: [{attribute: "name",'
        ' equals: {any: ["x", "\\u0000"]}}]}) { nodes { id } } }',
        ["records.filter.values.0.equals.any.1"],
    ),
    ('{ skill(name: "a\\u0000b") { name } }', ["skill.name"]),
]


@pytest.mark.parametrize(("query", "fields"), NUL_LITERALS)
async def test_nul_in_a_literal_argument_is_refused_with_its_path(client, ws, query, fields):
    response = await gql(client, ws.tokens["admin"], query)
    assert response.status_code == 400, response.text
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert problem_fields(response) == fields


async def test_nul_in_variables_is_refused_listing_every_path(client, ws):
    query = """query($o: String!, $f: RecordFilter) {
      records(object: $o, filter: $f) { nodes { id } }
    }"""
    variables = {
        "o": "companies\x00",
        "f": {"labelContains": "\x00", "values": [{"attribute": "a", "equals": "b\x00"}]},
    }
    response = await gql(client, ws.tokens["admin"], query, variables)
    assert response.status_code == 400, response.text
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert problem_fields(response) == ["$o", "$f.labelContains", "$f.values.0.equals"]


async def test_nul_in_a_mutation_input_is_refused_and_nothing_is_written(client, ws):
    mutation = """mutation($i: CreateSkillInput!) { createSkill(input: $i) { name } }"""
    variables = {"i": {"name": "nul-skill", "description": "a\x00b", "content": "text"}}
    response = await gql(client, ws.tokens["admin"], mutation, variables)
    assert response.status_code == 400, response.text
    assert problem_fields(response) == ["$i.description"]
    found = await gql(client, ws.tokens["admin"], '{ skill(name: "nul-skill") { name } }')
    assert found.json()["data"]["skill"] is None


async def test_nul_in_get_variables_is_refused(client, ws):
    response = await client.get(
        "/graphql",
        params={
            "query": "query($n: String!) { skill(name: $n) { name } }",
            "variables": '{"n": "\\u0000"}',
        },
        headers={**auth(ws.tokens["admin"]), "accept": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert problem_fields(response) == ["$n"]


async def test_nul_in_a_plain_route_json_body_is_refused_with_its_path(client, ws):
    response = await client.post(
        "/v1/records",
        json=[{"object": "companies", "values": {"name": "a\x00b"}}],
        headers=auth(ws.tokens["admin"]),
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert problem_fields(response) == [(1, "values.name")]


async def test_nul_in_a_json_lines_body_is_refused_with_its_line(client, ws):
    response = await client.post(
        "/v1/records",
        content=b'{"object": "companies", "values": {"name": "ok"}}\n{"object": "com\\u0000"}\n',
        headers={**auth(ws.tokens["admin"]), "content-type": "application/x-ndjson"},
    )
    assert response.status_code == 400, response.text
    assert problem_fields(response) == [(2, "object")]


async def test_nul_in_export_names_is_refused(client, ws):
    response = await client.post(
        "/skills/export", json={"names": ["a\x00"]}, headers=auth(ws.tokens["admin"])
    )
    assert response.status_code == 400, response.text
    assert problem_fields(response) == ["names.0"]


async def test_nul_in_a_json_body_sent_as_json_lines_is_refused(client, ws):
    """The route reads its body as JSON whatever type it declares: the NUL check reads it both
    ways (a pretty-printed object declared as JSON lines reached PostgreSQL: 500)."""
    response = await client.post(
        "/skills/export",
        content=b'{\n "names": ["a\\u0000"]\n}',
        headers={**auth(ws.tokens["admin"]), "content-type": "application/x-ndjson"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert problem_fields(response) == ["names.0"]


async def test_a_json_body_spelling_nul_that_parses_neither_way_is_refused(client, ws):
    response = await client.patch(
        "/tenant/settings",
        content=b'{"memoryPersonMonthlyLimitUsd": "\\u0000',
        headers={**auth(ws.tokens["admin"]), "content-type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"


async def test_nul_in_a_skills_cursor_is_refused(client, ws):
    """A cursor decodes to text on the server: one holding NUL is not a cursor (it reached
    PostgreSQL: 500)."""
    cursor = base64.urlsafe_b64encode(b"after:a\x00b").decode().rstrip("=")
    response = await gql(
        client,
        ws.tokens["admin"],
        "query($c: String) { skills(after: $c) { edges { cursor } } }",
        {"c": cursor},
    )
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"], response.text


@pytest.mark.parametrize(
    ("path", "method", "cap"),
    [
        ("/tenant/settings", "PATCH", MAX_JSON_BODY_BYTES),
        ("/graphql", "POST", MAX_GRAPHQL_BODY_BYTES),
        ("/v1/records", "POST", MAX_RECORDS_BODY_BYTES),
    ],
)
async def test_a_body_past_its_routes_cap_is_refused_before_it_is_read(
    client, ws, path, method, cap
):
    """Each route's own cap applies before the body is read (not the largest route's), with a
    token or without a valid one: a declared length past it is refused unread, a streamed body
    is read no further than the cap."""
    consumed = 0

    async def stream() -> AsyncIterator[bytes]:
        nonlocal consumed
        for _ in range(cap // 65536 + 10):
            consumed += 65536
            yield b" " * 65536

    declared = {"content-length": str(cap + 1), "content-type": "application/json"}
    for token in (ws.tokens["viewer"], "smk_not_a_token"):
        response = await client.request(
            method, path, content=b" " * (cap + 1), headers={**auth(token), **declared}
        )
        assert response.status_code == 413, response.text
        assert f"larger than {cap} bytes" in response.text
    response = await client.request(
        method,
        path,
        content=stream(),
        headers={**auth(ws.tokens["viewer"]), "content-type": "application/json"},
    )
    assert response.status_code == 413, response.text
    assert consumed <= cap + 2 * 65536


def test_a_large_declared_upload_gets_time_to_arrive():
    assert read_deadline(30.0, 0) == 30.0
    assert read_deadline(30.0, MAX_ARCHIVE_BYTES) >= 30.0 + MAX_ARCHIVE_BYTES / (64 * 1024)


async def test_a_request_id_with_control_characters_is_replaced(client, ws):
    response = await gql(
        client, ws.tokens["member"], "{ me { name } }", **{"x-request-id": "a\x01b"}
    )
    assert response.status_code == 200
    assert response.headers["x-request-id"] != "a\x01b"
    assert all(0x21 <= ord(c) <= 0x7E for c in response.headers["x-request-id"])
    kept = await gql(client, ws.tokens["member"], "{ me { name } }", **{"x-request-id": "req-42"})
    assert kept.headers["x-request-id"] == "req-42"


def test_a_request_id_the_http_parser_refuses_gets_a_json_error_with_its_code(dsn):
    with serving(dsn) as base_url:
        port = int(base_url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\x01b\r\n\r\n")
            answer = b""
            while chunk := conn.recv(4096):
                answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    assert b"content-type: application/json" in head
    assert orjson.loads(body)["error"]["code"] == "SCHEMA_VALIDATION_FAILED"


async def test_pooled_connections_bound_statements_and_idle_transactions(api_pool):
    async with api_pool.acquire() as conn:
        assert await conn.fetchval("SHOW statement_timeout") == "30s"
        assert await conn.fetchval("SHOW idle_in_transaction_session_timeout") == "30s"


@pytest.fixture
async def small_app(dsn: str) -> AsyncIterator[httpx.AsyncClient]:
    """The app over a pool of two connections, bodies timed out after half a second."""
    from db.pool import api_dsn

    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=2)
    app = create_app(Settings(database_url=None, body_read_timeout=0.5), pool=pool)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client
    await pool.close()


async def _trickle() -> AsyncIterator[bytes]:
    """A body sent a byte at a time, slowly, for longer than the read timeout."""
    for byte in b'{"query": "{ me { name } }"}':
        yield bytes([byte])
        await asyncio.sleep(0.2)


async def test_slow_bodies_hold_no_connection_and_time_out(small_app, ws):
    slow = [
        asyncio.create_task(
            small_app.post(
                "/graphql",
                content=_trickle(),
                headers={**auth(ws.tokens["viewer"]), "content-type": "application/json"},
            )
        )
        for _ in range(6)
    ]
    await asyncio.sleep(0.1)
    started = time.monotonic()
    response = await gql(small_app, ws.tokens["member"], "{ me { name } }")
    assert response.status_code == 200, response.text
    assert time.monotonic() - started < 0.4
    answers = await asyncio.gather(*slow)
    assert {a.status_code for a in answers} == {408}
    assert {c for a in answers for c in codes(a)} == {"GRAPHQL_PARSE_FAILED"}
