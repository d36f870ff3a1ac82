"""Persisted operations on /graphql against the real app: Apollo's automatic persisted queries
(the two-step round trip, hash mismatches, GET, the registry's bounds and walls), GET's caching
headers, and the trusted-documents mode."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gql import Client, gql
from gql.transport.exceptions import TransportQueryError
from graphql import parse, print_ast
from pydantic import ValidationError

from gateway.app import create_app
from gateway.cli.main import main
from gateway.settings import Settings
from tests.factories import bearer, codes
from tests.gateway.server import NO_OUTSIDE, serving_app
from tests.gateway.test_subscriptions import WAIT_SECONDS, transport, until_subscribed

ME = "query Me { me { name } }"
WORKSPACE = "query Workspace { workspace { name } }"
REVOKE = "mutation Revoke { revokeCurrentToken }"
# As a client sends it (gql and Apollo Client send the printed document; a manifest holds it).
MEMORY_UPDATED = print_ast(parse("subscription Updates { memoryUpdated { pageId line } }"))
PROPOSAL_DECIDED = "subscription Decided { proposalDecided { id status } }"
ME_DATA = {"data": {"me": {"name": "Member"}}}
NOT_FOUND = {
    "errors": [
        {"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}
    ]
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def apq(text_or_hash: str, *, is_hash: bool = False, version: Any = 1) -> dict[str, Any]:
    """The persistedQuery extension of a text (or of a hash given as is)."""
    sha256 = text_or_hash if is_hash else sha(text_or_hash)
    return {"persistedQuery": {"version": version, "sha256Hash": sha256}}


async def post(client: httpx.AsyncClient, token: str, **body: Any) -> httpx.Response:
    return await client.post("/graphql", json=body, headers=bearer(token))


async def get(
    client: httpx.AsyncClient, token: str, headers: dict[str, str] | None = None, **params: Any
) -> httpx.Response:
    """GET /graphql with ``params``, the JSON ones (extensions, variables) encoded."""
    encoded = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    return await client.get("/graphql", params=encoded, headers=bearer(token, **(headers or {})))


@pytest.fixture
async def app_client(api_pool) -> AsyncIterator[Any]:  # type: ignore[no-untyped-def]
    """An app of its own with these settings (so that its registry is its own)."""
    clients: list[httpx.AsyncClient] = []

    async def make(**more: Any) -> httpx.AsyncClient:
        settings = Settings(database_url=None, worker=False, **NO_OUTSIDE, **more)  # type: ignore[arg-type]
        app = create_app(settings, pool=api_pool)
        made = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
        clients.append(made)
        return made

    yield make
    for made in clients:
        await made.aclose()


# -- automatic persisted queries -------------------------------------------------------------


async def test_the_two_step_round_trip(client, ws):
    token = ws.tokens["member"]
    first = await post(client, token, extensions=apq(ME))
    assert first.status_code == 200  # as Apollo Server answers it: the client's cue, no failure
    assert first.json() == NOT_FOUND
    assert first.headers["cache-control"] == "private, no-cache, must-revalidate"
    second = await post(client, token, query=ME, extensions=apq(ME))
    assert second.status_code == 200
    assert second.json() == ME_DATA
    third = await post(client, token, extensions=apq(ME), operationName="Me")
    assert third.status_code == 200
    assert third.json() == ME_DATA
    # Any member of the workspace runs it by hash from then on.
    admin = await post(client, ws.tokens["admin"], extensions=apq(ME))
    assert admin.json() == {"data": {"me": {"name": "Admin"}}}


async def test_a_hash_with_variables(client, ws):
    query = 'query Page($n: Int) { records(object: "companies", first: $n) { nodes { id } } }'
    token = ws.tokens["member"]
    await post(client, token, query=query, variables={"n": 1}, extensions=apq(query))
    again = await post(client, token, variables={"n": "many"}, extensions=apq(query))
    assert again.status_code == 400
    assert codes(again) == ["GRAPHQL_VALIDATION_FAILED"]
    good = await post(client, token, variables={"n": 2}, extensions=apq(query))
    assert good.json() == {"data": {"records": {"nodes": []}}}


async def test_a_hash_that_does_not_match_registers_nothing(client, ws):
    token = ws.tokens["member"]
    wrong = sha(WORKSPACE)
    refused = await post(client, token, query=ME, extensions=apq(wrong, is_hash=True))
    assert refused.status_code == 400
    body = refused.json()
    assert "data" not in body
    assert codes(refused) == ["PERSISTED_QUERY_HASH_MISMATCH"]
    assert "does not match" in body["errors"][0]["message"]
    for hashed in (wrong, sha(ME)):
        missing = await post(client, token, extensions=apq(hashed, is_hash=True))
        assert missing.json() == NOT_FOUND


async def test_a_document_that_does_not_validate_is_not_registered(client, ws):
    token = ws.tokens["member"]
    bad = "{ me { shoeSize } }"
    refused = await post(client, token, query=bad, extensions=apq(bad))
    assert refused.status_code == 400
    assert codes(refused) == ["GRAPHQL_VALIDATION_FAILED"]
    missing = await post(client, token, extensions=apq(bad))
    assert missing.json() == NOT_FOUND


async def test_one_workspace_never_finds_anothers_documents(client, ws, ws2):
    """A hash is only known by knowing its text, but a hit would still tell that someone ran
    that exact text: each workspace finds only what it registered."""
    query = (
        '{ records(object: "companies", filter: { labelContains: "Secret merger" }) '
        "{ nodes { id } } }"
    )
    registered = await post(client, ws.tokens["member"], query=query, extensions=apq(query))
    assert registered.status_code == 200
    theirs = await post(client, ws2.tokens["member"], extensions=apq(query))
    assert theirs.json() == NOT_FOUND


@pytest.mark.parametrize(
    ("extensions", "says"),
    [
        ({"persistedQuery": "abc"}, "JSON object"),
        (apq(ME, version=2), "version"),
        (apq(ME, version="1"), "version"),
        (apq(ME, version=True), "version"),
        ({"persistedQuery": {"version": 1}}, "64 hexadecimal"),
        (apq("abc", is_hash=True), "64 hexadecimal"),
        (apq("z" * 64, is_hash=True), "64 hexadecimal"),
    ],
)
async def test_a_malformed_extension_is_400(client, ws, extensions, says):
    for body in ({"extensions": extensions}, {"query": ME, "extensions": extensions}):
        response = await post(client, ws.tokens["member"], **body)
        assert response.status_code == 400
        assert codes(response) == ["GRAPHQL_PARSE_FAILED"]
        assert says in response.json()["errors"][0]["message"]


async def test_no_query_and_no_hash_is_still_400(client, ws):
    for extensions in (None, {}, {"persistedQuery": None}):
        response = await post(client, ws.tokens["member"], extensions=extensions)
        assert response.status_code == 400
        assert codes(response) == ["GRAPHQL_PARSE_FAILED"]


async def test_a_hash_in_capitals_is_the_same_hash(client, ws):
    token = ws.tokens["member"]
    await post(client, token, query=ME, extensions=apq(ME))
    upper = await post(client, token, extensions=apq(sha(ME).upper(), is_hash=True))
    assert upper.json() == ME_DATA


# -- GET -------------------------------------------------------------------------------------


async def test_get_registers_and_runs_by_hash(client, ws):
    token = ws.tokens["member"]
    missing = await get(client, token, extensions=apq(WORKSPACE))
    assert missing.status_code == 200
    assert missing.json() == NOT_FOUND
    assert "etag" not in missing.headers
    registered = await get(client, token, query=WORKSPACE, extensions=apq(WORKSPACE))
    assert registered.json() == {"data": {"workspace": {"name": "Acmecorp"}}}
    by_hash = await get(client, token, extensions=apq(WORKSPACE), operationName="Workspace")
    assert by_hash.status_code == 200
    assert by_hash.json() == {"data": {"workspace": {"name": "Acmecorp"}}}


async def test_a_get_answer_is_private_and_revalidated_by_its_etag(client, ws):
    token = ws.tokens["member"]
    await post(client, token, query=ME, extensions=apq(ME))
    first = await get(client, token, extensions=apq(ME))
    assert first.status_code == 200
    cache_control = {part.strip() for part in first.headers["cache-control"].split(",")}
    assert cache_control == {"private", "no-cache"}
    assert "public" not in first.headers["cache-control"]
    assert "Authorization" in first.headers["vary"]
    etag = first.headers["etag"]
    same = await get(client, token, headers={"if-none-match": etag}, extensions=apq(ME))
    assert same.status_code == 304
    assert same.content == b""
    assert same.headers["etag"] == etag
    assert same.headers["cache-control"] == first.headers["cache-control"]
    # Another person's answer is not the same answer.
    other = await get(client, ws.tokens["admin"], headers={"if-none-match": etag}, query=ME)
    assert other.status_code == 200
    assert other.json() == {"data": {"me": {"name": "Admin"}}}
    assert other.headers["etag"] != etag
    # Nor is another media type's.
    as_json = await get(
        client, token, headers={"if-none-match": etag, "accept": "application/json"}, query=ME
    )
    assert as_json.status_code == 200
    assert as_json.json() == first.json()


async def test_a_post_answer_carries_no_validator(client, ws):
    response = await post(client, ws.tokens["member"], query=ME)
    assert response.status_code == 200
    assert "etag" not in response.headers


async def test_a_registered_mutation_is_refused_over_get(client, ws):
    # Registered over POST by the admin (whose token it revokes), then asked for by hash over
    # GET by a member: refused, and nothing runs.
    registered = await post(client, ws.tokens["admin"], query=REVOKE, extensions=apq(REVOKE))
    assert registered.json() == {"data": {"revokeCurrentToken": True}}
    token = ws.tokens["member"]
    refused = await get(client, token, extensions=apq(REVOKE))
    assert refused.status_code == 405
    assert refused.headers["allow"] == "POST"
    assert codes(refused) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "etag" not in refused.headers
    still = await post(client, token, query=ME)
    assert still.status_code == 200


async def test_a_mutation_sent_over_get_with_its_hash_is_neither_run_nor_registered(client, ws):
    token = ws.tokens["member"]
    refused = await get(client, token, query=REVOKE, extensions=apq(REVOKE))
    assert refused.status_code == 405
    assert (await post(client, token, query=ME)).status_code == 200
    missing = await post(client, token, extensions=apq(REVOKE))
    assert missing.json() == NOT_FOUND


@pytest.mark.parametrize("params", [{"extensions": apq(ME)}, {"extensions": "{}"}])
async def test_graphiql_exemption_never_covers_a_hash(client, params):
    encoded = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    response = await client.get("/graphql", params=encoded, headers={"accept": "text/html"})
    assert response.status_code == 401
    assert codes(response) == ["UNAUTHENTICATED"]


# -- the registry's bounds -------------------------------------------------------------------


async def test_the_registry_keeps_at_most_its_count(app_client, ws):
    client = await app_client(persisted_queries_max_documents=2)
    token = ws.tokens["member"]
    documents = [f"query Q{i} {{ me {{ name }} }}" for i in range(3)]
    for document in documents:
        assert (await post(client, token, query=document, extensions=apq(document))).is_success
    # The least recently used went out.
    assert (await post(client, token, extensions=apq(documents[0]))).json() == NOT_FOUND
    for document in documents[1:]:
        kept = await post(client, token, extensions=apq(document))
        assert kept.json() == ME_DATA


async def test_the_registry_keeps_at_most_its_characters(app_client, ws):
    small = "query A { me { name } }"
    large = "query B { me { name } }" + " " * 60
    client = await app_client(persisted_queries_max_chars=len(small) + len(large) - 1)
    token = ws.tokens["member"]
    await post(client, token, query=small, extensions=apq(small))
    assert (await post(client, token, extensions=apq(small))).json() == ME_DATA
    await post(client, token, query=large, extensions=apq(large))
    # Both do not fit: the older went out, the newer stays.
    assert (await post(client, token, extensions=apq(small))).json() == NOT_FOUND
    kept = await post(client, token, extensions=apq(large))
    assert kept.json() == ME_DATA
    # A document larger than the whole registry runs, and is never kept.
    huge = "query C { me { name } }" + " " * 200
    ran = await post(client, token, query=huge, extensions=apq(huge))
    assert ran.json() == ME_DATA
    assert (await post(client, token, extensions=apq(huge))).json() == NOT_FOUND
    assert (await post(client, token, extensions=apq(large))).json() == ME_DATA


async def test_persisted_queries_turned_off_say_so(app_client, ws):
    client = await app_client(persisted_queries=False)
    for body in ({"extensions": apq(ME)}, {"query": ME, "extensions": apq(ME)}):
        response = await post(client, ws.tokens["member"], **body)
        assert response.status_code == 200
        assert codes(response) == ["PERSISTED_QUERY_NOT_SUPPORTED"]
        assert response.json()["errors"][0]["message"] == "PersistedQueryNotSupported"
    plain = await post(client, ws.tokens["member"], query=ME)
    assert plain.json() == ME_DATA


# -- trusted documents -----------------------------------------------------------------------


def manifest(path: Path, *documents: tuple[str, str, str]) -> Path:
    """A persisted-query manifest of these (name, type, body), as Apollo's generator writes."""
    operations = [
        {"id": sha(body), "name": name, "type": kind, "body": body}
        for name, kind, body in documents
    ]
    path.write_text(
        json.dumps(
            {"format": "apollo-persisted-query-manifest", "version": 1, "operations": operations}
        )
    )
    return path


TRUSTED = (
    ("Me", "query", ME),
    ("Revoke", "mutation", REVOKE),
    ("Updates", "subscription", MEMORY_UPDATED),
)


@pytest.fixture
async def trusted(app_client, tmp_path) -> httpx.AsyncClient:  # type: ignore[no-untyped-def]
    client: httpx.AsyncClient = await app_client(
        trusted_documents=manifest(tmp_path / "manifest.json", *TRUSTED)
    )
    return client


async def test_trusted_mode_runs_a_listed_operation_by_text_or_hash(trusted, ws):
    token = ws.tokens["member"]
    for body in ({"query": ME}, {"extensions": apq(ME)}, {"query": ME, "extensions": apq(ME)}):
        response = await post(trusted, token, **body)
        assert response.status_code == 200, body
        assert response.json() == ME_DATA
    by_get = await get(trusted, token, extensions=apq(ME))
    assert by_get.json() == ME_DATA


async def test_trusted_mode_refuses_any_other_operation(trusted, ws):
    token = ws.tokens["member"]
    for text in (WORKSPACE, ME + " ", "{ me { name } }"):
        refused = await post(trusted, token, query=text)
        assert refused.status_code == 403
        assert codes(refused) == ["QUERY_NOT_IN_SAFELIST"]
        assert "trusted-documents manifest" in refused.json()["errors"][0]["message"]
        # Sending it with its hash neither runs nor registers it.
        also = await post(trusted, token, query=text, extensions=apq(text))
        assert codes(also) == ["QUERY_NOT_IN_SAFELIST"]
        by_hash = await post(trusted, token, extensions=apq(text))
        assert by_hash.status_code == 404
        assert codes(by_hash) == ["PERSISTED_QUERY_NOT_IN_LIST"]
    mismatch = await post(trusted, token, query=ME, extensions=apq(WORKSPACE))
    assert codes(mismatch) == ["PERSISTED_QUERY_HASH_MISMATCH"]


async def test_trusted_mode_keeps_mutations_off_get(trusted, ws):
    token = ws.tokens["member"]
    refused = await get(trusted, token, extensions=apq(REVOKE))
    assert refused.status_code == 405
    assert (await post(trusted, token, query=ME)).status_code == 200


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("not json", "is not JSON"),
        ("[]", "must be a JSON object"),
        ('{"format": "other", "version": 2, "operations": {}}', "format must be"),
        ('{"format": "apollo-persisted-query-manifest", "version": 1}', "operations must be"),
    ],
)
def test_a_manifest_with_problems_stops_the_server(tmp_path, content, says):
    path = tmp_path / "manifest.json"
    path.write_text(content)
    with pytest.raises(ValidationError) as refused:
        Settings(trusted_documents=path)
    assert says in str(refused.value)


def test_every_problem_of_a_manifest_is_listed(tmp_path):
    path = tmp_path / "manifest.json"
    operations = [
        {"id": "abc", "name": "Me", "type": "query", "body": ME},
        {"id": sha("{ me"), "name": "Broken", "type": "query", "body": "{ me"},
        {"id": sha(ME), "name": "Me", "type": "query"},
        {"id": sha(ME), "name": 5, "type": "fetch", "body": ME},
    ]
    path.write_text(
        json.dumps(
            {"format": "apollo-persisted-query-manifest", "version": 1, "operations": operations}
        )
    )
    with pytest.raises(ValidationError) as refused:
        Settings(trusted_documents=path)
    said = str(refused.value)
    for problem in (
        "operations[0].id must be the SHA-256",
        "operations[1].body does not parse",
        "operations[2].body must be",
        "operations[3].name must be a string",
        "operations[3].type must be one of",
    ):
        assert problem in said
    with pytest.raises(ValidationError, match="cannot be read"):
        Settings(trusted_documents=tmp_path / "missing.json")


async def test_trusted_mode_holds_over_websocket(dsn, ws, tmp_path):
    path = manifest(tmp_path / "manifest.json", *TRUSTED)
    init = {"authorization": f"Bearer {ws.tokens['member']}"}
    with serving_app(dsn, trusted_documents=path) as (base_url, app):
        async with Client(transport=transport(base_url, init)) as session:
            with pytest.raises(TransportQueryError) as refused:
                unlisted = session.subscribe(gql(PROPOSAL_DECIDED))
                await asyncio.wait_for(anext(unlisted), WAIT_SECONDS)
            assert refused.value.errors is not None
            assert refused.value.errors[0]["extensions"]["code"] == "QUERY_NOT_IN_SAFELIST"
            listed = session.subscribe(gql(MEMORY_UPDATED))
            first = asyncio.ensure_future(anext(listed))
            try:
                await until_subscribed(app, "memory", ws.id)
            finally:
                first.cancel()
                with contextlib.suppress(BaseException):
                    await first
                await listed.aclose()


# -- the manifest of one's own documents -----------------------------------------------------


def test_schema_manifest_writes_a_manifest_the_server_takes(tmp_path, capsys):
    (tmp_path / "me.graphql").write_text(f"\n{ME}\n")
    (tmp_path / "doc.md").write_text(
        f"Some text.\n\n```graphql\n{WORKSPACE}\n```\n\n```sh\ncurl x\n```\n"
        f"```graphql\n{REVOKE}\n```\n"
    )
    code = main(["schema", "manifest", str(tmp_path / "me.graphql"), str(tmp_path / "doc.md")])
    assert code == 0
    written = tmp_path / "manifest.json"
    written.write_text(capsys.readouterr().out)
    listed = json.loads(written.read_text())["operations"]
    assert [(o["name"], o["type"], o["body"]) for o in listed] == [
        ("Me", "query", ME),
        ("Workspace", "query", WORKSPACE),
        ("Revoke", "mutation", REVOKE),
    ]
    assert Settings(trusted_documents=written).trusted_documents == written


def test_schema_manifest_refuses_a_document_that_does_not_parse(tmp_path, capsys):
    (tmp_path / "bad.graphql").write_text("{ me ")
    code = main(["schema", "manifest", str(tmp_path / "bad.graphql")])
    assert code == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert "bad.graphql: a document does not parse" in said.err
