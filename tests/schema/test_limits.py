"""Guards on documents: depth, aliases, tokens, no suggestions, page size, document cache."""

from __future__ import annotations

from uuid import uuid4

import pytest
from graphql import Source, parse, validate
from graphql.language import Lexer, TokenKind

import gateway.http.graphql as graphql_http
from gateway.http.graphql import MAX_SOURCE_LENGTH, DocumentCache
from gateway.settings import Settings
from schema.schema import schema
from tests.factories import codes, gql

RECORDS_FIRST = 'query($n: Int) { records(object: "companies", first: $n) { nodes { id } } }'


def nested(depth: int) -> str:
    """A query exactly ``depth`` fields deep, through relations { record { ... } }."""
    if depth % 2 == 0:
        head, tail, level = '{ record(id: "x") { ', " } }", 1
    else:
        head, tail, level = '{ records(object: "contacts") { nodes { ', " } } }", 2
    pairs = (depth - level - 1) // 2
    assert level + 2 * pairs + 1 == depth
    return head + "relations { record { " * pairs + "id" + " } }" * pairs + tail


def limit_errors(response, limit: str) -> list[dict]:
    """The errors of a refused document, all GRAPHQL_VALIDATION_FAILED, naming ``limit``."""
    assert response.status_code == 400, response.text
    body = response.json()
    assert "data" not in body
    assert set(codes(response)) == {"GRAPHQL_VALIDATION_FAILED"}
    found = [e for e in body["errors"] if e["extensions"].get("limit") == limit]
    assert found, body
    return found


def passed_validation(response) -> bool:
    return response.status_code == 200 and not {
        "GRAPHQL_VALIDATION_FAILED",
        "GRAPHQL_PARSE_FAILED",
    } & set(codes(response))


# -- depth -----------------------------------------------------------------------------------


def test_nested_builds_the_depth_it_says():
    from schema.limits import _height
    from schema.shape import parsed_shape

    for depth in range(3, 14):
        [operation] = parsed_shape(parse(nested(depth))).operations
        assert _height(operation.selections, {}, {}, set()) == depth


@pytest.mark.parametrize("offset", [0, -1])
async def test_query_at_the_depth_limit_passes(client, ws, settings, offset):
    response = await gql(client, ws.tokens["member"], nested(settings.max_depth + offset))
    assert passed_validation(response), response.text


@pytest.mark.parametrize("offset", [1, 2])
async def test_query_deeper_than_the_limit_is_refused(client, ws, settings, offset):
    depth = settings.max_depth + offset
    response = await gql(client, ws.tokens["member"], nested(depth))
    [error] = limit_errors(response, "depth")
    assert f"depth limit is {settings.max_depth}" in error["message"]
    assert f"{depth} levels" in error["message"]


async def test_depth_counts_through_fragments(client, ws, settings):
    inner = nested(settings.max_depth + 1)
    # The same over-deep selection, its middle moved into a named and an inline fragment.
    head = '{ records(object: "contacts") { nodes { ...Deep } } }'
    pairs = (settings.max_depth + 1 - 3) // 2
    fragment = (
        "fragment Deep on Record { ... on Record { "
        + "relations { record { " * pairs
        + "id"
        + " } }" * pairs
        + " } }"
    )
    assert inner.count("relations") == pairs
    response = await gql(client, ws.tokens["member"], f"{head} {fragment}")
    limit_errors(response, "depth")


async def test_depth_names_the_operation(client, ws, settings):
    query = "query Deep " + nested(settings.max_depth + 1)
    response = await gql(client, ws.tokens["member"], query)
    [error] = limit_errors(response, "depth")
    assert "'Deep'" in error["message"]


# -- aliases ---------------------------------------------------------------------------------


def aliased(count: int) -> str:
    return "{ " + " ".join(f"a{i}: me {{ name }}" for i in range(count)) + " }"


async def test_aliases_at_the_limit_pass(client, ws, settings):
    response = await gql(client, ws.tokens["member"], aliased(settings.max_aliases))
    assert response.status_code == 200
    data = response.json()["data"]
    assert len(data) == settings.max_aliases
    assert data["a0"] == {"name": "Member"}


async def test_one_alias_over_the_limit_is_refused(client, ws, settings):
    response = await gql(client, ws.tokens["member"], aliased(settings.max_aliases + 1))
    [error] = limit_errors(response, "aliases")
    assert f"alias limit is {settings.max_aliases}" in error["message"]


async def test_nested_aliases_count(client, ws, settings):
    pairs = settings.max_aliases // 2 + 1  # two aliases each: one over the limit at least
    query = "{ " + " ".join(f"a{i}: me {{ b{i}: name }}" for i in range(pairs)) + " }"
    response = await gql(client, ws.tokens["member"], query)
    limit_errors(response, "aliases")


# -- tokens and size -------------------------------------------------------------------------


def lexical_tokens(source: str) -> int:
    lexer = Lexer(Source(source))
    count = 0
    while lexer.advance().kind is not TokenKind.EOF:
        count += 1
    return count


def with_tokens(count: int) -> str:
    """A valid query of exactly ``count`` lexical tokens, padded by a long list literal
    (many equal fields would trip graphql-core's own overlap budget instead)."""
    template = (
        '{ records(object: "companies", filter: {values: [{attribute: "domain", '
        "equals: [%s]}]}) { nodes { id } } }"
    )
    padding = count - lexical_tokens(template % "")
    source = template % ("1 " * padding)
    assert lexical_tokens(source) == count
    return source


async def test_document_at_the_token_limit_passes(client, ws, settings):
    response = await gql(client, ws.tokens["member"], with_tokens(settings.max_tokens))
    assert response.status_code == 200, response.text[:300]
    assert response.json() == {"data": {"records": {"nodes": []}}}


async def test_document_over_the_token_limit_is_refused(client, ws, settings):
    response = await gql(client, ws.tokens["member"], with_tokens(settings.max_tokens + 1))
    [error] = limit_errors(response, "tokens")
    assert str(settings.max_tokens) in error["message"]


async def test_oversized_source_is_refused(client, ws):
    query = "{ me { name } }" + " " * MAX_SOURCE_LENGTH
    response = await gql(client, ws.tokens["member"], query)
    [error] = limit_errors(response, "length")
    assert str(MAX_SOURCE_LENGTH) in error["message"]


async def test_a_syntax_error_quoting_limit_words_is_no_limit(client, ws):
    """Only the parser's own limit errors name a limit; a client's text cannot fake one."""
    response = await gql(client, ws.tokens["member"], '{ "Document contains more than 5 " }')
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["extensions"] == {"code": "GRAPHQL_PARSE_FAILED"}


# -- no suggestions --------------------------------------------------------------------------

SUGGESTIVE = [
    "{ mee }",
    "{ me { nam } }",
    '{ records(objec: "x") { nodes { id } } }',
    '{ records(object: "x", filter: {labelContain: "x"}) { nodes { id } } }',
    "query($f: RecordFilte) { me { name } }",
    "{ ...F } fragment F on Quer { me { name } }",
    '{ record(id: "x") { ... on Recrd { id } } }',
]


@pytest.mark.parametrize("query", SUGGESTIVE)
def test_these_documents_would_draw_suggestions(query):
    """So the test below can fail: graphql-core suggests for each of them by default."""
    messages = [e.message for e in validate(schema._schema, parse(query))]
    assert any("Did you mean" in m for m in messages)


@pytest.mark.parametrize("query", SUGGESTIVE)
async def test_no_field_suggestions(client, ws, query):
    response = await gql(client, ws.tokens["member"], query)
    assert response.status_code == 400
    assert "Did you mean" not in response.text
    assert codes(response)


async def test_no_suggestions_in_variable_errors(client, ws):
    query = 'query($f: RecordFilter) { records(object: "x", filter: $f) { nodes { id } } }'
    response = await gql(client, ws.tokens["member"], query, {"f": {"labelContain": "x"}})
    assert response.status_code == 400
    assert "labelContain" in response.text
    assert "Did you mean" not in response.text


# -- page size -------------------------------------------------------------------------------


@pytest.mark.parametrize("first", [0, 1, 100])
async def test_first_within_the_cap(client, ws, first):
    response = await gql(client, ws.tokens["member"], RECORDS_FIRST, {"n": first})
    assert response.status_code == 200
    assert response.json() == {"data": {"records": {"nodes": []}}}


@pytest.mark.parametrize("first", [101, -1, 10_000])
async def test_first_outside_the_cap(client, ws, first):
    response = await gql(client, ws.tokens["member"], RECORDS_FIRST, {"n": first})
    assert response.status_code == 200
    body = response.json()
    assert body["data"] is None
    [error] = body["errors"]
    assert error["extensions"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert error["extensions"]["problems"][0]["field"] == "first"
    assert error["path"] == ["records"]


async def test_first_literal_outside_the_cap(client, ws):
    query = '{ records(object: "companies", first: 101) { nodes { id } } }'
    response = await gql(client, ws.tokens["member"], query)
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert response.json()["errors"][0]["extensions"]["problems"][0]["field"] == "first"


# -- document cache --------------------------------------------------------------------------


def cache(size: int) -> DocumentCache:
    return DocumentCache(schema._schema, Settings(database_url=None, document_cache_size=size))


def test_cache_returns_the_same_prepared_document():
    documents = cache(4)
    first = documents.get("{ me { name } }")
    assert first.document is not None and first.errors == ()
    assert documents.get("{ me { name } }") is first
    assert documents.get("{ me { kind } }") is not first


def test_cache_keeps_no_refusals_and_no_huge_documents():
    documents = cache(4)
    refused = documents.get("{ mee }")
    assert refused.document is None
    assert refused.errors[0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    again = documents.get("{ mee }")
    assert again == refused and again is not refused
    huge = "{ me { name } }" + " " * 25_000
    assert documents.get(huge).document is not None
    assert documents.get(huge) is not documents.get(huge)
    assert len(documents.entries) == 0


def test_cache_evicts_the_least_recently_used():
    documents = cache(2)
    a = documents.get("{ me { name } }")
    b = documents.get("{ me { kind } }")
    assert documents.get("{ me { name } }") is a  # a is now the most recent
    documents.get("{ workspace { name } }")  # over size: b goes
    assert len(documents.entries) == 2
    assert documents.get("{ me { name } }") is a
    assert documents.get("{ me { kind } }") is not b


async def test_endpoint_parses_a_document_once(client, ws, monkeypatch):
    parsed: list[str] = []
    real_parse = graphql_http.parse

    def counting_parse(source, *args, **kwargs):
        parsed.append(source)
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(graphql_http, "parse", counting_parse)
    query = f"query Q{uuid4().hex} {{ me {{ name }} }}"
    for token in (ws.tokens["member"], ws.tokens["admin"]):
        response = await gql(client, token, query)
        assert response.status_code == 200
    assert parsed == [query]
    other = f"query Q{uuid4().hex} {{ me {{ name }} }}"
    await gql(client, ws.tokens["member"], other)
    assert parsed == [query, other]


def test_a_doubling_fragment_chain_validates_fast():
    """Each fragment spreads the next twice: 2**40 paths, measured once each."""
    import time

    chain = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(40))
    document = "{ ...F0 } " + chain + " fragment F40 on Query { me { name } }"
    documents = cache(4)
    started = time.perf_counter()
    prepared = documents.get(document)
    assert time.perf_counter() - started < 2.0
    assert prepared.document is not None, prepared.errors
