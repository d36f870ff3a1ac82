"""Requests refused for their text alone take no connection (gateway/http/early.py) once their
token is known to the principal cache: not one statement is sent for them, and the answer is
the endpoint's own refusal; an unknown token is still looked up (and refused) first, and schema
errors and persisted queries go the usual way."""

from __future__ import annotations

import httpx
import orjson
import pytest

from tests.factories import codes, gql

DEEP = "{ " + "me { " * 40 + "name" + " }" * 40 + " }"
ALIASED = "{ " + " ".join(f"a{i}: me {{ name }}" for i in range(200)) + " }"
JSON = "application/json"

REFUSED_FOR_THEIR_TEXT = {
    "too deep": ({"query": DEEP}, 400, "GRAPHQL_VALIDATION_FAILED"),
    "too many aliases": ({"query": ALIASED}, 400, "GRAPHQL_VALIDATION_FAILED"),
    "does not parse": ({"query": "{ me { name }"}, 400, "GRAPHQL_PARSE_FAILED"),
    "NUL in a variable": (
        {"query": "{ me { name } }", "variables": {"x": "a\u0000b"}},
        400,
        "SCHEMA_VALIDATION_FAILED",
    ),
    "NUL in the text": ({"query": '{ records(object: "a\\u0000") { nodes { id } } }'}, 400, None),
}


ME = "{ me { name } }"
UNKNOWN = "smk_" + "A" * 43


async def post(client: httpx.AsyncClient, token: str, body: bytes) -> httpx.Response:
    headers = {"content-type": JSON, "authorization": f"Bearer {token}"}
    return await client.post("/graphql", content=body, headers=headers)


def without_extensions(response: httpx.Response) -> list[dict[str, object]]:
    return [{k: v for k, v in e.items() if k != "extensions"} for e in response.json()["errors"]]


@pytest.mark.parametrize("case", sorted(REFUSED_FOR_THEIR_TEXT))
async def test_a_request_refused_for_its_text_sends_no_statement(cached, ws, client, case):
    body, status, code = REFUSED_FOR_THEIR_TEXT[case]
    token = ws.tokens["member"]
    assert "errors" not in (await gql(cached.client, token, ME)).json()  # the token is known
    cached.statements.clear()
    early = await post(cached.client, token, orjson.dumps(body))
    assert cached.statements == []
    # The same answer as an app without the cache gives, with a connection and a principal.
    served = await post(client, token, orjson.dumps(body))
    assert early.status_code == served.status_code == status
    assert codes(early) == codes(served)
    assert code is None or code in codes(early)
    assert without_extensions(early) == without_extensions(served)


async def test_a_body_that_is_not_a_json_object_sends_no_statement(cached, ws):
    token = ws.tokens["member"]
    await gql(cached.client, token, ME)
    cached.statements.clear()
    for body in (b'{"query": "{ me { name } }", ', b"[1, 2]"):
        refused = await post(cached.client, token, body)
        assert (refused.status_code, codes(refused)) == (400, ["GRAPHQL_PARSE_FAILED"])
    assert cached.statements == []


async def test_authentication_still_comes_first_and_other_refusals_go_the_usual_way(cached, ws):
    """An unknown token with a document that does not parse is looked up and refused (401);
    a schema error and a persisted query are answered inside the request's transaction."""
    unknown = await post(cached.client, UNKNOWN, b'{"query": "{ me { name }"}')
    assert (unknown.status_code, codes(unknown)) == (401, ["UNAUTHENTICATED"])
    token = ws.tokens["member"]
    await gql(cached.client, token, ME)
    for body in (
        b'{"query": "{ nosuchfield }"}',
        b'{"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "ab"}}}',
    ):
        cached.statements.clear()
        answered = await post(cached.client, token, body)
        assert answered.status_code == 400 and "errors" in answered.json()
        assert any(s.startswith("BEGIN") for s in cached.statements), cached.statements
