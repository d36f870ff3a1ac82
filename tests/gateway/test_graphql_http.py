"""GraphQL over HTTP: media types, status codes, request errors, GET and GraphiQL."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any
from uuid import uuid4

import httpx
import pytest

from gateway.app import create_app
from gateway.settings import Settings
from tests.factories import bearer, codes, gql

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
ME = "{ me { name } }"
RECORDS_N = 'query($n: Int) { records(object: "companies", first: $n) { nodes { id } } }'


async def post_raw(
    client: httpx.AsyncClient,
    token: str | None,
    content: bytes,
    content_type: str | None = JSON,
    accept: str | None = "*/*",
) -> httpx.Response:
    """POST exactly these bytes; ``None`` leaves a header out altogether."""
    headers = {} if token is None else bearer(token)
    if content_type is not None:
        headers["content-type"] = content_type
    request = client.build_request("POST", "/graphql", content=content, headers=headers)
    if accept is None:
        del request.headers["accept"]
    else:
        request.headers["accept"] = accept
    return await client.send(request)


def media(response: httpx.Response) -> str:
    return response.headers["content-type"].split(";")[0].strip()


def assert_standard(response: httpx.Response) -> dict[str, Any]:
    """A body any GraphQL client accepts: an object with data and/or errors, each error
    with a message and extensions.code."""
    body = response.json()
    assert isinstance(body, dict)
    assert set(body) <= {"data", "errors", "extensions"}
    assert "data" in body or "errors" in body
    for error in body.get("errors", []):
        assert isinstance(error["message"], str) and error["message"]
        assert isinstance(error["extensions"]["code"], str)
    return body


def assert_request_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """A request error: the status, no data key, and every error with ``code``."""
    assert response.status_code == status, response.text
    body = assert_standard(response)
    assert "data" not in body
    assert body["errors"]
    assert codes(response) == [code] * len(body["errors"])
    return body


# -- media types ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (GRAPHQL_RESPONSE, GRAPHQL_RESPONSE),
        (JSON, JSON),
        ("*/*", GRAPHQL_RESPONSE),
        (None, GRAPHQL_RESPONSE),
        ("application/*", GRAPHQL_RESPONSE),
        (f"text/html, {JSON};q=0.9", JSON),
        (f"{GRAPHQL_RESPONSE}, {JSON};q=0.9", GRAPHQL_RESPONSE),
    ],
)
async def test_response_media_type_follows_accept(client, ws, accept, expected):
    response = await post_raw(
        client, ws.tokens["member"], json.dumps({"query": ME}).encode(), accept=accept
    )
    assert response.status_code == 200
    assert media(response) == expected
    assert response.json() == {"data": {"me": {"name": "Member"}}}


@pytest.mark.parametrize("accept", ["text/plain", "text/html", "application/xml, text/csv"])
async def test_accept_without_a_json_type_is_406(client, ws, accept):
    response = await post_raw(
        client, ws.tokens["member"], json.dumps({"query": ME}).encode(), accept=accept
    )
    assert response.status_code == 406
    body = assert_standard(response)
    assert "data" not in body


# -- request errors ------------------------------------------------------------------------


async def test_syntax_error_is_400_parse_failed(client, ws):
    response = await gql(client, ws.tokens["member"], "{ me { name }")
    body = assert_request_error(response, 400, "GRAPHQL_PARSE_FAILED")
    assert body["errors"][0]["locations"] == [{"line": 1, "column": 14}]
    assert media(response) == GRAPHQL_RESPONSE


async def test_unknown_field_is_400_validation_failed(client, ws):
    response = await gql(client, ws.tokens["member"], "{ me { name shoeSize } }")
    body = assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")
    assert "shoeSize" in body["errors"][0]["message"]


async def test_every_validation_problem_is_listed(client, ws):
    response = await gql(client, ws.tokens["member"], "{ me { shoeSize } hatSize }")
    body = assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")
    messages = " ".join(e["message"] for e in body["errors"])
    assert "shoeSize" in messages and "hatSize" in messages


async def test_variable_that_does_not_coerce_is_400(client, ws):
    response = await gql(client, ws.tokens["member"], RECORDS_N, {"n": "abc"})
    body = assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")
    assert len(body["errors"]) == 1
    assert "$n" in body["errors"][0]["message"]


async def test_every_bad_variable_is_listed(client, ws):
    query = "query($n: Int, $o: String!) { records(object: $o, first: $n) { nodes { id } } }"
    response = await gql(client, ws.tokens["member"], query, {"n": "abc", "o": 5})
    body = assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")
    assert len(body["errors"]) == 2
    messages = [e["message"] for e in body["errors"]]
    assert any("$n" in m for m in messages) and any("$o" in m for m in messages)


async def test_missing_required_variable_is_400(client, ws):
    query = "query($o: String!) { records(object: $o) { nodes { id } } }"
    response = await gql(client, ws.tokens["member"], query, {})
    assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")


async def test_good_variables_execute(client, ws):
    response = await gql(client, ws.tokens["member"], RECORDS_N, {"n": 3})
    assert response.status_code == 200
    assert response.json() == {"data": {"records": {"nodes": []}}}


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"",
        b'[{"query": "{ me { name } }"}]',
        b'"{ me { name } }"',
        b"{}",
        b'{"variables": {}}',
        b'{"query": 42}',
        b'{"query": ["{ me { name } }"]}',
        b'{"query": ""}',
        b'{"query": "{ me { name } }", "variables": "{}"}',
        b'{"query": "{ me { name } }", "variables": [1]}',
        b'{"query": "{ me { name } }", "operationName": 5}',
        b'{"query": "{ me { name } }", "extensions": 5}',
    ],
)
async def test_malformed_request_body_is_400(client, ws, content):
    response = await post_raw(client, ws.tokens["member"], content)
    assert_request_error(response, 400, "GRAPHQL_PARSE_FAILED")


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "application/graphql", None],
)
async def test_non_json_content_type_is_415(client, ws, content_type):
    content = json.dumps({"query": ME}).encode()
    response = await post_raw(client, ws.tokens["member"], content, content_type=content_type)
    assert response.status_code == 415
    assert "data" not in assert_standard(response)


async def test_json_content_type_with_charset_is_accepted(client, ws):
    content = json.dumps({"query": ME}).encode()
    response = await post_raw(
        client, ws.tokens["member"], content, content_type="application/json; charset=utf-8"
    )
    assert response.status_code == 200
    assert response.json()["data"]["me"]["name"] == "Member"


TWO_OPERATIONS = "query A { me { name } } query B { workspace { name } }"


async def test_operation_name_picks_the_operation(client, ws):
    content = json.dumps({"query": TWO_OPERATIONS, "operationName": "B"}).encode()
    response = await post_raw(client, ws.tokens["member"], content)
    assert response.status_code == 200
    assert response.json() == {"data": {"workspace": {"name": "Acmecorp"}}}


async def test_unknown_operation_name_is_400(client, ws):
    content = json.dumps({"query": TWO_OPERATIONS, "operationName": "C"}).encode()
    response = await post_raw(client, ws.tokens["member"], content)
    body = assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")
    assert "'C'" in body["errors"][0]["message"]


async def test_unknown_operation_name_on_a_single_operation_is_400(client, ws):
    content = json.dumps({"query": "query A { me { name } }", "operationName": "Z"}).encode()
    response = await post_raw(client, ws.tokens["member"], content)
    assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")


async def test_several_operations_without_a_name_is_400(client, ws):
    response = await gql(client, ws.tokens["member"], TWO_OPERATIONS)
    assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")


# -- GET -------------------------------------------------------------------------------------


async def test_get_runs_a_query(client, ws):
    response = await client.get(
        "/graphql", params={"query": ME}, headers=bearer(ws.tokens["member"])
    )
    assert response.status_code == 200
    assert media(response) == GRAPHQL_RESPONSE
    assert response.json() == {"data": {"me": {"name": "Member"}}}


async def test_get_takes_variables_as_json(client, ws):
    response = await client.get(
        "/graphql",
        params={"query": RECORDS_N, "variables": json.dumps({"n": 2})},
        headers=bearer(ws.tokens["member"]),
    )
    assert response.status_code == 200
    assert response.json() == {"data": {"records": {"nodes": []}}}
    bad = await client.get(
        "/graphql",
        params={"query": RECORDS_N, "variables": json.dumps({"n": "abc"})},
        headers=bearer(ws.tokens["member"]),
    )
    assert_request_error(bad, 400, "GRAPHQL_VALIDATION_FAILED")


async def test_get_with_variables_that_are_not_json_is_400(client, ws):
    response = await client.get(
        "/graphql",
        params={"query": RECORDS_N, "variables": "{n: 2"},
        headers=bearer(ws.tokens["member"]),
    )
    assert_request_error(response, 400, "GRAPHQL_PARSE_FAILED")


async def test_get_with_operation_name(client, ws):
    response = await client.get(
        "/graphql",
        params={"query": TWO_OPERATIONS, "operationName": "A"},
        headers=bearer(ws.tokens["member"]),
    )
    assert response.status_code == 200
    assert response.json() == {"data": {"me": {"name": "Member"}}}


async def test_get_without_a_query_is_400(client, ws):
    response = await client.get("/graphql", headers=bearer(ws.tokens["member"]))
    assert_request_error(response, 400, "GRAPHQL_PARSE_FAILED")


async def still_valid(client: httpx.AsyncClient, token: str) -> bool:
    response = await gql(client, token, ME)
    if response.status_code == 401:
        return False
    assert response.status_code == 200, response.text
    return True


async def test_get_with_a_mutation_is_405_and_runs_nothing(client, ws):
    token = ws.tokens["member"]
    response = await client.get(
        "/graphql", params={"query": "mutation { revokeCurrentToken }"}, headers=bearer(token)
    )
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert "data" not in assert_standard(response)
    assert await still_valid(client, token)


async def test_get_picking_the_mutation_of_a_document_is_405(client, ws):
    token = ws.tokens["member"]
    document = "query Q { me { name } } mutation M { revokeCurrentToken }"
    response = await client.get(
        "/graphql", params={"query": document, "operationName": "M"}, headers=bearer(token)
    )
    assert response.status_code == 405
    assert await still_valid(client, token)
    allowed = await client.get(
        "/graphql", params={"query": document, "operationName": "Q"}, headers=bearer(token)
    )
    assert allowed.status_code == 200


async def test_head_never_runs_a_mutation(client, ws):
    """Starlette answers HEAD on the GET route: it must be as safe as GET."""
    token = ws.tokens["member"]
    body = json.dumps({"query": "mutation { revokeCurrentToken }"}).encode()
    await client.request(
        "HEAD", "/graphql", content=body, headers=bearer(token, **{"content-type": JSON})
    )
    response = await client.request(
        "HEAD",
        "/graphql",
        params={"query": "mutation { revokeCurrentToken }"},
        headers=bearer(token),
    )
    assert response.status_code == 405
    assert await still_valid(client, token)


async def test_post_mutation_revokes_the_token(client, ws):
    token = ws.tokens["member"]
    response = await gql(client, token, "mutation { revokeCurrentToken }")
    assert response.status_code == 200
    assert response.json() == {"data": {"revokeCurrentToken": True}}
    later = await gql(client, token, ME)
    assert later.status_code == 401
    assert codes(later) == ["UNAUTHENTICATED"]
    # Only the token the request carried.
    assert await still_valid(client, ws.tokens["admin"])


# -- field errors --------------------------------------------------------------------------


async def test_field_error_is_200_with_data(client, ws):
    missing = ws.gid(uuid4())
    response = await gql(
        client, ws.tokens["member"], "query($id: ID!) { record(id: $id) { id } }", {"id": missing}
    )
    assert response.status_code == 200
    body = assert_standard(response)
    assert body["data"] == {"record": None}
    assert codes(response) == ["NOT_FOUND"]
    assert body["errors"][0]["path"] == ["record"]


async def test_field_error_beside_data(client, ws):
    missing = ws.gid(uuid4())
    response = await gql(
        client,
        ws.tokens["member"],
        "query($id: ID!) { me { name } record(id: $id) { id } }",
        {"id": missing},
    )
    assert response.status_code == 200
    assert response.json()["data"] == {"me": {"name": "Member"}, "record": None}
    assert codes(response) == ["NOT_FOUND"]


async def test_record_of_another_workspace_is_not_found(client, ws, ws2):
    """An id naming another workspace answers exactly like a missing one."""
    query = "query($id: ID!) { record(id: $id) { id } }"
    theirs = await gql(client, ws.tokens["member"], query, {"id": ws2.gid(uuid4())})
    missing = await gql(client, ws.tokens["member"], query, {"id": ws.gid(uuid4())})
    assert theirs.status_code == missing.status_code == 200
    assert theirs.json() == missing.json()


# -- GraphiQL --------------------------------------------------------------------------------


async def test_graphiql_page_needs_no_token(client):
    response = await client.get("/graphql", headers={"accept": "text/html,*/*;q=0.8"})
    assert response.status_code == 200
    assert media(response) == "text/html"
    page = response.text
    assert "graphiql" in page.lower()
    assert "/static/graphiql.min.js" in page
    for cdn in ("unpkg", "jsdelivr", "cdnjs", "esm.sh", "https://", "http://"):
        assert cdn not in page


async def test_graphiql_assets_are_served_without_a_token(client):
    page = (await client.get("/graphql", headers={"accept": "text/html"})).text
    for asset in (
        "/static/graphiql.min.js",
        "/static/graphiql.min.css",
        "/static/react.production.min.js",
        "/static/react-dom.production.min.js",
    ):
        assert asset in page
        response = await client.get(asset)
        assert response.status_code == 200, asset
        assert len(response.content) > 1000


@pytest.mark.parametrize(
    "url",
    [
        "/graphql?query=%7Bme%7Bname%7D%7D",
        "/graphql?query=",
        # The same parameter, percent-encoded: the edge must see what the endpoint sees.
        "/graphql?quer%79=%7Bme%7Bname%7D%7D",
    ],
)
async def test_graphiql_exemption_never_covers_an_operation(client, url):
    response = await client.get(url, headers={"accept": "text/html, application/json"})
    assert response.status_code == 401
    assert codes(response) == ["UNAUTHENTICATED"]


async def test_introspection_answers_when_enabled(client, ws):
    response = await gql(client, ws.tokens["member"], "{ __schema { types { name } } }")
    assert response.status_code == 200
    names = {t["name"] for t in response.json()["data"]["__schema"]["types"]}
    assert {"Query", "Record", "Mutation"} <= names


@pytest.fixture(scope="module")
async def closed_client(pool) -> AsyncIterator[httpx.AsyncClient]:
    """The app with introspection (and so GraphiQL) turned off."""
    app = create_app(Settings(database_url=None, introspection=False), pool=pool)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


async def test_no_graphiql_page_without_introspection(closed_client, ws):
    response = await closed_client.get("/graphql", headers={"accept": "text/html"})
    assert response.status_code == 401
    assert "graphiql" not in response.text.lower()
    with_token = await closed_client.get(
        "/graphql", headers=bearer(ws.tokens["member"], accept="text/html")
    )
    assert "graphiql" not in with_token.text.lower()
    assert with_token.status_code in (400, 406)


@pytest.mark.parametrize(
    "query",
    ["{ __schema { types { name } } }", '{ __type(name: "Record") { name } }'],
)
async def test_introspection_refused_when_disabled(closed_client, ws, query):
    response = await gql(closed_client, ws.tokens["member"], query)
    assert_request_error(response, 400, "GRAPHQL_VALIDATION_FAILED")


async def test_typename_still_answers_without_introspection(closed_client, ws):
    response = await gql(closed_client, ws.tokens["member"], "{ __typename me { name } }")
    assert response.status_code == 200
    assert response.json() == {"data": {"__typename": "Query", "me": {"name": "Member"}}}
