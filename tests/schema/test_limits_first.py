"""The limits that need no schema are checked before graphql-core's validation (issue 16): a
document over the token, length, depth or alias limit is refused without the standard rules
running (they cost far more on such a document), with the same code and message as before."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import pytest
from graphql import FieldsOnCorrectTypeRule, parse, validate

import gateway.http.graphql as graphql_http
from gateway.http.graphql import MAX_SOURCE_LENGTH, DocumentCache
from gateway.settings import Settings
from schema.schema import schema
from tests.factories import gql
from tests.schema.test_limits import aliased, nested, with_tokens


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The documents graphql-core's validate is asked to check, in order."""
    seen: list[Any] = []
    real = graphql_http.validate

    def counting(schema: Any, document: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(document)
        return real(schema, document, *args, **kwargs)

    monkeypatch.setattr(graphql_http, "validate", counting)
    return seen


def refusal(message: str, limit: str, line: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"message": message}
    if line is not None:
        error["locations"] = [{"line": line, "column": 1}]
    error["extensions"] = {"limit": limit, "code": "GRAPHQL_VALIDATION_FAILED"}
    return error


def deep_message(name: str, depth: int, settings: Settings) -> str:
    return f"Operation '{name}' is {depth} levels deep; the depth limit is {settings.max_depth}."


def alias_message(count: int, settings: Settings) -> str:
    return f"The document has {count} aliases; the alias limit is {settings.max_aliases}."


async def test_a_document_within_the_limits_is_validated_once(client, ws, settings, validations):
    query = aliased(settings.max_aliases).replace("{ a0", "query AtTheLimits { a0", 1)
    response = await gql(client, ws.tokens["member"], query)
    assert response.status_code == 200, response.text
    assert len(validations) == 1  # the spy sees validation when it runs


@pytest.mark.parametrize("count", [1, 185])
async def test_too_many_aliases_are_refused_unvalidated(client, ws, settings, validations, count):
    aliases = settings.max_aliases + count
    response = await gql(client, ws.tokens["member"], aliased(aliases))
    assert response.status_code == 400
    assert response.json() == {"errors": [refusal(alias_message(aliases, settings), "aliases")]}
    assert validations == []


@pytest.mark.parametrize("depth", [12, 120])
async def test_too_deep_is_refused_unvalidated(client, ws, settings, validations, depth):
    response = await gql(client, ws.tokens["member"], nested(settings.max_depth + depth - 10))
    expected = deep_message("anonymous", settings.max_depth + depth - 10, settings)
    assert response.status_code == 400
    assert response.json() == {"errors": [refusal(expected, "depth", line=1)]}
    assert validations == []


async def test_every_limit_is_listed_in_the_order_validation_gave(
    client, ws, settings, validations
):
    """Each operation too deep in document order, then the aliases; the unknown field `mee`
    (a standard rule's finding) is not sought once a limit refuses the document."""
    deep_a, deep_b = nested(settings.max_depth + 2), nested(settings.max_depth + 4)
    query = (
        f"query A {deep_a}\nquery B {deep_b}\nquery C {{ mee }}\n"
        + "fragment Many on Query { "
        + " ".join(f"a{i}: me {{ name }}" for i in range(settings.max_aliases + 1))
        + " }"
    )
    response = await gql(client, ws.tokens["member"], query)
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            refusal(deep_message("A", settings.max_depth + 2, settings), "depth", line=1),
            refusal(deep_message("B", settings.max_depth + 4, settings), "depth", line=2),
            refusal(alias_message(settings.max_aliases + 1, settings), "aliases"),
        ]
    }
    assert validations == []


async def test_the_parsers_limits_are_refused_unvalidated(client, ws, settings, validations):
    tokens = await gql(client, ws.tokens["member"], with_tokens(settings.max_tokens + 1))
    [error] = tokens.json()["errors"]
    assert error["message"] == (
        f"Syntax Error: Document contains more than {settings.max_tokens} tokens. Parsing aborted."
    )
    assert error["extensions"] == {"limit": "tokens", "code": "GRAPHQL_VALIDATION_FAILED"}
    length = await gql(client, ws.tokens["member"], "{ me { name } }" + " " * MAX_SOURCE_LENGTH)
    [error] = length.json()["errors"]
    assert error["message"] == (
        f"Syntax Error: Source contains more than {MAX_SOURCE_LENGTH} code points. Parsing aborted."
    )
    assert error["extensions"] == {"limit": "length", "code": "GRAPHQL_VALIDATION_FAILED"}
    malformed = await gql(client, ws.tokens["member"], "{ me { name }")
    assert malformed.json()["errors"][0]["extensions"] == {"code": "GRAPHQL_PARSE_FAILED"}
    assert (tokens.status_code, length.status_code, malformed.status_code) == (400, 400, 400)
    assert validations == []


def test_limit_errors_stop_where_validation_stopped(validations):
    """Past graphql-core's 100 errors, one more saying validation was aborted, as before."""
    documents = DocumentCache(schema._schema, Settings(database_url=None, max_depth=1))
    query = " ".join(f"query Q{i} {{ me {{ name }} }}" for i in range(120))
    errors = documents.get(query).errors
    [too_many] = validate(schema._schema, parse("{ a b }"), [FieldsOnCorrectTypeRule], 1)[1:]
    assert [e["message"] for e in errors] == [
        *(f"Operation 'Q{i}' is 2 levels deep; the depth limit is 1." for i in range(100)),
        too_many.message,
    ]
    assert {e["extensions"]["code"] for e in errors} == {"GRAPHQL_VALIDATION_FAILED"}
    assert validations == []


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts graphql-core's parser is asked to parse, in order."""
    seen: list[str] = []
    real = graphql_http.parse

    def counting(source: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(graphql_http, "parse", counting)
    return seen


@pytest.mark.parametrize("kind", ["depth", "aliases"])
async def test_an_abusive_document_is_refused_unparsed(client, ws, settings, parses, kind):
    """Read from its text (schema/shape.py): the same refusal, and the parser never runs."""
    query = nested(120) if kind == "depth" else aliased(200)
    response = await gql(client, ws.tokens["member"], query)
    assert response.status_code == 400
    expected = deep_message("anonymous", 120, settings) if kind == "depth" else None
    [error] = response.json()["errors"]
    assert error == (
        refusal(expected, "depth", line=1)
        if expected
        else refusal(alias_message(200, settings), "aliases")
    )
    assert parses == []
    fresh = f"query Q{uuid4().hex} {nested(settings.max_depth)}"  # not in the document cache
    within = await gql(client, ws.tokens["member"], fresh)
    assert within.status_code == 200 and parses == [fresh]  # the spy sees a parse when one runs


async def test_an_aliased_mutation_refused_unparsed_changes_nothing(client, ws, settings, parses):
    """Each alias would revoke the token: none ran, the token still works."""
    fields = " ".join(f"r{i}: revokeCurrentToken" for i in range(settings.max_aliases + 1))
    refused = await gql(client, ws.tokens["member"], f"mutation {{ {fields} }}")
    assert refused.status_code == 400
    assert refused.json() == {
        "errors": [refusal(alias_message(settings.max_aliases + 1, settings), "aliases")]
    }
    assert parses == []
    me = await gql(client, ws.tokens["member"], "{ me { name } }")
    assert me.status_code == 200 and me.json()["data"]["me"]["name"]
