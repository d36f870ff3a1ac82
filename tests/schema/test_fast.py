"""The whole-operation fast path (schema/fast.py): which operations it takes, and what it
leaves to graphql-core before any resolver runs. Its answers are compared with graphql-core's
alone in tests/gateway/test_planned_differential.py (its fast server)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from graphql import FragmentDefinitionNode, OperationDefinitionNode, parse

from schema.fast import fast_operation
from schema.schema import schema

CHECKOUT = Path(__file__).resolve().parents[2]


def fast(text: str):  # type: ignore[no-untyped-def]
    document = parse(text)
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    return fast_operation(schema._schema, operations[0], fragments)


@pytest.mark.parametrize(
    "text",
    [
        '{ records(object: "contacts", first: 20) { edges { node { id label } } } }',
        '{ page: skillActivation(name: "x") { name files { path } } }',
        "query($id: ID!) { memoryPage(id: $id) { content souvenirs { key line } } }",
        "query($o: String!) { records(object: $o) { edges { ...E } } } "
        "fragment E on RecordEdge { cursor }",
        "{ skillCatalog { name } }",
        # A mutation of one root field runs just it, as a query does.
        "mutation($id: ID!, $c: String!) { editMemoryPage(pageId: $id, content: $c) { version } }",
    ],
)
def test_taken(text: str):
    found = fast(text)
    assert found is not None
    assert found.key in ("records", "page", "memoryPage", "skillCatalog", "editMemoryPage")


@pytest.mark.parametrize(
    "text",
    [
        "{ skillCatalog { name } skillsPanel { name } }",  # two root fields
        "{ ... on Query { skillCatalog { name } } }",  # a fragment at the root
        "query($x: Boolean!) { skillCatalog @include(if: $x) { name } }",  # a directive
        "{ skillCatalog { name @skip(if: true) } }",  # a directive below: made once, no variable
        "query($x: Boolean!) { skillCatalog { name @skip(if: $x) } }",  # a variable below
        '{ records(object: "contacts") { edges { node { relation(attribute: "x") { id } } } } }',
        "{ __schema { queryType { name } } }",  # introspection
        "{ __typename }",
        "{ me { name } }",  # not an async resolver asking for info
        'mutation { a: trashRecord(id: "x") b: trashRecord(id: "y") }',  # run one by one
        'mutation { noSuchField(id: "x") { id } }',
        "subscription { events { id } }",
    ],
)
def test_left_to_graphql_core(text: str):
    found = fast(text)
    # The directive below the root and the relation's literal are planned with the document.
    planned_below = ("@skip(if: true)", 'relation(attribute: "x")')
    assert (found is not None) == any(part in text for part in planned_below), text


def test_no_resolver_uses_what_the_fast_path_does_not_give():
    """The fast path's Info has no abort signal and async helpers that raise: no resolver
    may read them (else its answer would differ from graphql-core's)."""
    pattern = re.compile(r"\b(async_helpers|abort_signal)\b")
    users = [
        str(path.relative_to(CHECKOUT))
        for folder in ("resolvers", "schema", "gateway")
        for path in (CHECKOUT / folder).rglob("*.py")
        if pattern.search(path.read_text()) and path.name != "fast.py"
    ]
    assert users == []
