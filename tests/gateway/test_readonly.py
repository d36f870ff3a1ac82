"""GraphQL queries that only read run in a READ ONLY transaction (gateway/http/readonly.py),
told apart before the transaction begins; everything else runs as before."""

from __future__ import annotations

import orjson
import pytest

from gateway.http.graphql import DocumentCache
from gateway.http.readonly import reads_only
from gateway.settings import Settings
from resolvers.common import ids
from schema.schema import schema
from tests.factories import gql, load_records, make_page, split

RECORDS = 'query Page { records(object: "companies", first: 5) { nodes { id label } } }'
TWO = RECORDS + " mutation Out { revokeCurrentToken }"
TURN = 'query { workspace { name } turnContext(input: {message: "hi"}) { text } }'
SKILLS = 'query { skillCatalog { name } skillActivation(name: "none") { name files { path } } }'


def scope(method: str = "POST", path: str = "/graphql", query_string: bytes = b"") -> dict:  # type: ignore[type-arg]
    return {"method": method, "path": path, "query_string": query_string}


@pytest.fixture
def documents() -> DocumentCache:
    cache = DocumentCache(schema._schema, Settings(database_url=None))  # type: ignore[call-arg]
    for text in (RECORDS, TWO, "{ objects { slug } ...on Query { workspace { name } } }"):
        assert cache.get(text).document is not None
    return cache


def body(query: str, **more: object) -> bytes:
    return orjson.dumps({"query": query, **more})


def test_a_reading_query_seen_before_is_read_only(documents):
    assert reads_only(documents, scope(), body(RECORDS))
    assert reads_only(documents, scope(), body(TWO, operationName="Page"))
    get = scope("GET", query_string=b"query=" + RECORDS.replace(" ", "+").encode())
    assert reads_only(documents, get, b"")


def test_anything_else_is_not(documents):
    assert not reads_only(documents, scope(), body(TWO, operationName="Out"))
    assert not reads_only(documents, scope(), body(TWO))  # two operations, none named
    assert not reads_only(documents, scope(), body("{ workspace { id } }"))  # not seen yet
    assert not reads_only(
        documents, scope(), body("{ objects { slug } ...on Query { workspace { name } } }")
    )
    assert not reads_only(documents, scope(), b"not json")
    assert not reads_only(documents, scope(), body(RECORDS, operationName=3))
    assert not reads_only(documents, scope(path="/v1/records"), body(RECORDS))
    assert not reads_only(None, scope(), body(RECORDS))
    assert documents.get(TURN).document is not None  # a query that writes (its turn, snapshot)
    assert not reads_only(documents, scope(), body(TURN))


async def test_the_records_page_begins_read_only(cached, ws):
    await gql(cached.client, ws.tokens["member"], RECORDS)
    cached.statements.clear()
    response = await gql(cached.client, ws.tokens["member"], RECORDS)
    assert "errors" not in response.json()
    control, _ = split(cached.statements)
    assert control[0].startswith("BEGIN READ ONLY;"), control


MEMORY = """query($id: ID!, $record: ID!) {
  memoryPage(id: $id) { content souvenirs { key line } }
  memoryPageByRecord(recordId: $record) { id }
  memoryProfile(kind: WORKSPACE) { id }
  myMemories { id }
}"""


async def test_a_memory_page_is_read_read_only(cached, pool, ws):
    [acme, deal] = await load_records(
        pool,
        ws.tokens["admin"],
        [
            {"object": "companies", "label": "Acme"},
            {"object": "deals", "label": "Secret", "visibility": "private"},
        ],
    )
    content = f"- Met Acme → record:{deal} — Claire, 2026-10-02 [relation]"
    page = await make_page(pool, ws, "record", ids.decode(acme, "Record", ws.id), content)
    token, variables = ws.tokens["member"], {"id": page, "record": acme}
    await gql(cached.client, token, MEMORY, variables)
    cached.statements.clear()
    body = (await gql(cached.client, token, MEMORY, variables)).json()
    assert "errors" not in body, body
    assert len(body["data"]["memoryPage"]["souvenirs"]) == 1
    assert body["data"]["memoryPageByRecord"] == {"id": page}
    control, _ = split(cached.statements)
    assert control[0].startswith("BEGIN READ ONLY;"), control


async def test_the_skills_catalog_and_activation_begin_read_only(cached, ws):
    await gql(cached.client, ws.tokens["member"], SKILLS)
    cached.statements.clear()
    response = await gql(cached.client, ws.tokens["member"], SKILLS)
    assert response.json()["data"] == {"skillCatalog": [], "skillActivation": None}
    control, _ = split(cached.statements)
    assert control[0].startswith("BEGIN READ ONLY;"), control


async def test_a_mutation_begins_read_write(cached, ws):
    token = ws.tokens["viewer"]
    await gql(cached.client, token, RECORDS)
    cached.statements.clear()
    response = await gql(cached.client, token, "mutation { revokeCurrentToken }")
    assert response.json()["data"] == {"revokeCurrentToken": True}
    control, _ = split(cached.statements)
    assert control[0].startswith("BEGIN;"), control
    # Revoked through the API: the very next request is refused.
    assert (await gql(cached.client, token, RECORDS)).status_code == 401
