"""Error codes and their HTTP statuses (DESIGN §8): authentication at the edge, masking of
unexpected failures, an unavailable database, and the plain routes' error bodies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from uuid import uuid4

import asyncpg
import httpx
import pytest

import schema.records.queries as record_queries
from db.pool import create_pool
from gateway.app import create_app
from gateway.http import readonly
from resolvers.common.errors import HTTP_STATUS, Code, DomainError
from tests.factories import gql, load_records, post_records

ME = "{ me { name } }"
OBJECTS = "{ objects { slug } }"
RECORD = "query($id: ID!) { me { name } record(id: $id) { id } }"
WELL_FORMED_UNKNOWN = "smk_" + "A" * 43

DESIGN_STATUS = {
    "SCHEMA_VALIDATION_FAILED": 400,
    "UNAUTHENTICATED": 401,
    "FORBIDDEN": 403,
    "SCHEMA_SYSTEM_ENTITY_IMMUTABLE": 403,
    "NOT_FOUND": 404,
    "MEMORY_PRECONDITION_FAILED": 409,
    "SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED": 429,
    "GRAPHQL_PARSE_FAILED": 400,
    "GRAPHQL_VALIDATION_FAILED": 400,
    "DB_UNAVAILABLE": 503,
    "INTERNAL": 500,
}


def test_every_code_has_its_design_status():
    assert {code.value: status for code, status in HTTP_STATUS.items()} == DESIGN_STATUS
    assert {code.value for code in Code} == set(DESIGN_STATUS)
    for code in Code:
        assert DomainError(code, "x").status == DESIGN_STATUS[code.value]


# -- UNAUTHENTICATED -------------------------------------------------------------------------

BAD_AUTHORIZATION = [
    None,
    "Bearer",
    "Bearer ",
    "Bearer    ",
    "Basic dXNlcjpwYXNz",
    "Token smk_" + "A" * 43,
    "Bearer not-a-token",
    "Bearer smk_short",
    "Bearer " + WELL_FORMED_UNKNOWN,
    "Bearer " + WELL_FORMED_UNKNOWN + "x",
]


def headers_for(authorization: str | None, **more: str) -> dict[str, str]:
    found = dict(more)
    if authorization is not None:
        found["authorization"] = authorization
    return found


def assert_graphql_401(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith("Bearer")
    body = response.json()
    assert "data" not in body
    assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAUTHENTICATED"]
    assert body["errors"][0]["message"]
    assert "requestId" not in body["errors"][0]["extensions"]


def assert_plain_401(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "UNAUTHENTICATED"
    assert error["message"]


@pytest.mark.parametrize("authorization", BAD_AUTHORIZATION)
async def test_graphql_refuses_without_a_valid_token(client, authorization):
    response = await client.post(
        "/graphql",
        json={"query": ME},
        headers=headers_for(authorization, **{"content-type": "application/json"}),
    )
    assert_graphql_401(response)
    assert response.headers["content-type"].startswith("application/graphql-response+json")


@pytest.mark.parametrize("authorization", BAD_AUTHORIZATION)
async def test_records_route_refuses_without_a_valid_token(client, authorization):
    response = await client.post(
        "/v1/records",
        json=[{"object": "companies", "external_id": "x", "label": "X"}],
        headers=headers_for(authorization),
    )
    assert_plain_401(response)


async def test_401_speaks_application_json_to_a_json_client(client):
    response = await client.post(
        "/graphql", json={"query": ME}, headers={"accept": "application/json"}
    )
    assert_graphql_401(response)
    assert response.headers["content-type"].startswith("application/json")


async def test_the_scheme_is_case_insensitive(client, ws):
    response = await client.post(
        "/graphql", json={"query": ME}, headers={"authorization": f"bEaReR {ws.tokens['member']}"}
    )
    assert response.status_code == 200
    assert response.json() == {"data": {"me": {"name": "Member"}}}


async def test_two_authorization_headers_are_refused(client, ws):
    request = client.build_request("POST", "/graphql", json={"query": ME})
    request.headers = httpx.Headers(
        [
            *request.headers.multi_items(),
            ("authorization", f"Bearer {ws.tokens['member']}"),
            ("authorization", f"Bearer {ws.tokens['admin']}"),
        ]
    )
    assert_graphql_401(await client.send(request))


async def test_a_revoked_token_is_refused_everywhere(client, ws):
    token = ws.tokens["agent"]
    assert (await gql(client, token, ME)).status_code == 200
    revoked = await gql(client, token, "mutation { revokeCurrentToken }")
    assert revoked.json() == {"data": {"revokeCurrentToken": True}}
    assert_graphql_401(await gql(client, token, ME))
    assert_plain_401(
        await client.post(
            "/v1/records",
            json=[{"object": "companies", "external_id": "x", "label": "X"}],
            headers={"authorization": f"Bearer {token}"},
        )
    )


async def test_a_token_of_another_workspace_still_works_for_its_own(client, ws, ws2):
    """Refusal is about the token, not about a shared state: ws2's token answers for ws2."""
    response = await gql(client, ws2.tokens["member"], "{ workspace { name } }")
    assert response.json() == {"data": {"workspace": {"name": "Rival"}}}


@pytest.mark.parametrize(
    "content",
    [
        b'{"query": "{ me { shoeSize } }"}',
        b'{"query": "{ me { name }"}',
        b"{not json",
        b'{"query": "mutation { revokeCurrentToken }"}',
    ],
)
@pytest.mark.parametrize("authorization", [None, "Bearer " + WELL_FORMED_UNKNOWN])
async def test_authentication_comes_before_anything_else(client, content, authorization):
    """An invalid token with an invalid request answers 401, not 400: nothing about the
    document is looked at (or executed) before the token is."""
    response = await client.post(
        "/graphql",
        content=content,
        headers=headers_for(authorization, **{"content-type": "application/json"}),
    )
    assert_graphql_401(response)


async def test_authentication_comes_before_the_media_type_checks(client):
    response = await client.post(
        "/graphql", content=b"{ me { name } }", headers={"content-type": "text/plain"}
    )
    assert_graphql_401(response)
    get = await client.get("/graphql", params={"query": "{ nope }"})
    assert_graphql_401(get)


async def test_unknown_route_needs_a_token_then_answers_404(client, ws):
    assert_plain_401(await client.get("/v2/nothing"))
    response = await client.get(
        "/v2/nothing", headers={"authorization": f"Bearer {ws.tokens['member']}"}
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


# -- the plain route's codes -----------------------------------------------------------------


async def test_records_route_answers_each_code_with_its_status(client, ws):
    token = ws.tokens["admin"]
    ok = await post_records(
        client, token, [{"object": "companies", "external_id": "a", "label": "A"}]
    )
    assert ok.status_code == 200 and ok.json()["created"] == 1

    invalid = await post_records(client, token, [{"object": "nope", "label": "A"}, {"label": 5}])
    assert invalid.status_code == 400
    error = invalid.json()["error"]
    assert error["code"] == "SCHEMA_VALIDATION_FAILED"
    assert len(error["problems"]) >= 2  # every problem, with its line
    assert {p.get("line") for p in error["problems"]} >= {1, 2}

    forbidden = await post_records(
        client, ws.tokens["viewer"], [{"object": "companies", "external_id": "b", "label": "B"}]
    )
    assert forbidden.status_code == 403
    assert forbidden.json()["error"]["code"] == "FORBIDDEN"

    missing = await post_records(
        client, token, [{"object": "companies", "id": ws.gid(uuid4()), "label": "C"}]
    )
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "NOT_FOUND"

    not_json = await post_records(client, token, b"[{")
    assert not_json.status_code == 400
    assert not_json.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"

    wrong_type = await post_records(client, token, b"a,b", **{"content-type": "text/csv"})
    assert wrong_type.status_code == 415


async def test_records_route_refuses_system_objects(client, ws):
    response = await post_records(
        client, ws.tokens["admin"], [{"object": "skill", "external_id": "s", "label": "S"}]
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"


# -- INTERNAL --------------------------------------------------------------------------------


def assert_masked(response: httpx.Response, *secrets: str) -> dict:
    text = response.text
    for secret in ("secret", "Traceback", "asyncpg", "SELECT", "INSERT", *secrets):
        assert secret not in text, secret
    [error] = response.json()["errors"]
    assert error["message"] == "Internal error."
    assert error["extensions"]["code"] == "INTERNAL"
    assert error["extensions"]["requestId"]
    return error


@pytest.fixture
def failing_objects(monkeypatch):
    """Make readable_objects, as the objects field calls it, raise ``error``."""

    def arm(error: BaseException) -> None:
        async def fail(*args, **kwargs):
            raise error

        monkeypatch.setattr(record_queries.objects, "readable_objects", fail)

    return arm


async def test_unexpected_error_is_masked(client, ws, failing_objects):
    failing_objects(RuntimeError("secret SQL text: SELECT * FROM tokens"))
    response = await gql(client, ws.tokens["member"], OBJECTS)
    assert response.status_code == 500
    error = assert_masked(response)
    assert error["path"] == ["objects"]
    assert response.json()["data"] is None


async def test_internal_error_carries_the_request_id_sent(client, ws, failing_objects):
    failing_objects(RuntimeError("secret"))
    response = await gql(client, ws.tokens["member"], OBJECTS, **{"x-request-id": "req-4711"})
    assert assert_masked(response)["extensions"]["requestId"] == "req-4711"


async def test_internal_error_request_ids_differ_without_one_sent(client, ws, failing_objects):
    failing_objects(RuntimeError("secret"))
    first = assert_masked(await gql(client, ws.tokens["member"], OBJECTS))
    second = assert_masked(await gql(client, ws.tokens["member"], OBJECTS))
    assert first["extensions"]["requestId"] != second["extensions"]["requestId"]


async def test_internal_error_in_a_nullable_field_keeps_the_rest(client, ws, monkeypatch):
    async def fail(*args, **kwargs):
        raise KeyError("secret_column")

    monkeypatch.setattr(record_queries.read, "record", fail)
    response = await gql(client, ws.tokens["member"], RECORD, {"id": ws.gid(uuid4())})
    assert response.status_code == 200
    assert response.json()["data"] == {"me": {"name": "Member"}, "record": None}
    assert assert_masked(response)["path"] == ["record"]


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.UniqueViolationError(
            'duplicate key value violates unique constraint "secret_idx": '
            "INSERT INTO secret_table (id) VALUES (1)"
        ),
        asyncpg.PostgresError("secret: SELECT password FROM members"),
        asyncpg.UndefinedTableError('relation "secret_table" does not exist'),
    ],
)
async def test_database_errors_are_masked(client, ws, failing_objects, error):
    failing_objects(error)
    response = await gql(client, ws.tokens["member"], OBJECTS)
    assert response.status_code == 500
    assert_masked(response, "violates", "relation")


async def test_a_real_failed_statement_is_masked_and_leaves_the_pool_healthy(
    client, ws, monkeypatch
):
    async def bad_sql(conn, principal):
        await conn.fetch("SELECT secret_column FROM secret_table_that_is_not_there")

    monkeypatch.setattr(record_queries.objects, "readable_objects", bad_sql)
    for _ in range(3):  # more than once: the failed transaction must not poison a connection
        response = await gql(client, ws.tokens["member"], OBJECTS)
        assert response.status_code == 500
        assert_masked(response, "secret_table", "does not exist")
    monkeypatch.undo()
    for _ in range(3):
        response = await gql(client, ws.tokens["member"], OBJECTS)
        assert response.status_code == 200
        assert "companies" in {o["slug"] for o in response.json()["data"]["objects"]}


async def test_a_failed_statement_rolls_back_the_request(client, pool, ws, monkeypatch):
    """A write earlier in the same request is not kept when a statement fails after it
    (and the write itself is one the request could make: without the failure it sticks)."""
    keep, change = (f"Keep {uuid4().hex}", f"Change {uuid4().hex}")
    ids = await load_records(
        pool,
        ws.tokens["admin"],
        [
            {"object": "companies", "external_id": "k", "label": keep},
            {"object": "companies", "external_id": "c", "label": change},
        ],
    )

    def relabel(label: str, fail: bool):
        async def resolver(conn, principal):
            await conn.execute("UPDATE records SET label = 'Changed' WHERE label = $1", label)
            if fail:
                await conn.fetch("SELECT secret_column FROM secret_table_that_is_not_there")
            return []

        return resolver

    # `objects` only reads in the product, so it runs READ ONLY (gateway/http/readonly.py);
    # here it stands for a field that writes.
    monkeypatch.setattr(readonly, "READ_ONLY_FIELDS", frozenset())
    monkeypatch.setattr(record_queries.objects, "readable_objects", relabel(change, False))
    assert (await gql(client, ws.tokens["admin"], OBJECTS)).json() == {"data": {"objects": []}}
    monkeypatch.setattr(record_queries.objects, "readable_objects", relabel(keep, True))
    response = await gql(client, ws.tokens["admin"], OBJECTS)
    assert response.status_code == 500
    assert_masked(response, "secret_table")
    monkeypatch.undo()
    labels = await gql(
        client,
        ws.tokens["admin"],
        "query($a: ID!, $b: ID!) { a: record(id: $a) { label } b: record(id: $b) { label } }",
        {"a": ids[0], "b": ids[1]},
    )
    assert labels.json() == {"data": {"a": {"label": keep}, "b": {"label": "Changed"}}}


async def test_connection_loss_inside_a_resolver_is_db_unavailable(client, ws, failing_objects):
    failing_objects(asyncpg.ConnectionDoesNotExistError("secret: connection was closed"))
    response = await gql(client, ws.tokens["member"], OBJECTS)
    assert response.status_code == 503
    assert "secret" not in response.text
    [error] = response.json()["errors"]
    assert error["extensions"]["code"] == "DB_UNAVAILABLE"
    assert error["extensions"]["requestId"]
    assert error["message"] == "The database is unavailable."


# -- DB_UNAVAILABLE --------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def down_client(dsn, settings) -> AsyncIterator[httpx.AsyncClient]:
    """The app over a pool that has been closed: the database cannot be reached."""
    closed = await create_pool(dsn, min_size=1, max_size=1)
    await closed.close()
    app = create_app(settings, pool=closed)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


RAW_DRIVER_TEXT = ("pool is closed", "InterfaceError", "asyncpg", "Traceback")


def assert_no_driver_text(response: httpx.Response) -> None:
    for text in RAW_DRIVER_TEXT:
        assert text not in response.text, text


async def test_graphql_answers_503_when_the_database_is_down(down_client, ws):
    response = await gql(down_client, ws.tokens["member"], ME, **{"x-request-id": "down-1"})
    assert response.status_code == 503
    assert_no_driver_text(response)
    body = response.json()
    assert "data" not in body
    [error] = body["errors"]
    assert error["extensions"] == {"code": "DB_UNAVAILABLE", "requestId": "down-1"}


async def test_records_route_answers_503_when_the_database_is_down(down_client, ws):
    response = await post_records(
        down_client, ws.tokens["admin"], [{"object": "companies", "external_id": "z", "label": "Z"}]
    )
    assert response.status_code == 503
    assert_no_driver_text(response)
    error = response.json()["error"]
    assert error["code"] == "DB_UNAVAILABLE"
    assert error["requestId"]


async def test_without_a_token_the_answer_is_still_401_when_down(down_client):
    assert_graphql_401(await gql(down_client, None, ME))


async def test_readyz_follows_the_database(client, down_client):
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready"}
    down = await down_client.get("/readyz", headers={"x-request-id": "ready-1"})
    assert down.status_code == 503
    assert_no_driver_text(down)
    assert down.json() == {
        "error": {
            "code": "DB_UNAVAILABLE",
            "message": "The database is unavailable.",
            "requestId": "ready-1",
        }
    }


async def test_healthz_answers_always(client, down_client):
    for which in (client, down_client):
        response = await which.get("/healthz")
        assert response.status_code == 200
        assert response.json() == {"status": "ok"}


async def test_a_null_variable_for_a_non_null_argument_is_the_clients_error(client, ws):
    # Valid for the document's rules (the argument has a default), refused by graphql-core at
    # execution: the client's input, coded, never a masked 500.
    query = 'query($c: Boolean) { catalogSearch(text: "pdf", community: $c) { status } }'
    response = await gql(client, ws.tokens["member"], query, {"c": None})
    [error] = response.json()["errors"]
    assert error["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    assert "community" in error["message"]
    assert response.status_code != 500
