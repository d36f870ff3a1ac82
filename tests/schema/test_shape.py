"""A document's shape read from its text (schema/shape.py) gives the limits the same answer as
the parsed document's, and gives up wherever the parser must decide."""

from __future__ import annotations

import pytest
from graphql import parse

from schema.limits import limit_errors, unparsed_limit_errors
from tests.schema.test_limits import aliased, nested

MAX_LENGTH, MAX_TOKENS, MAX_DEPTH, MAX_ALIASES = 100_000, 2_000, 10, 15

DOCUMENTS = [
    nested(MAX_DEPTH),
    nested(MAX_DEPTH + 1),
    nested(120),
    aliased(MAX_ALIASES),
    aliased(MAX_ALIASES + 1),
    aliased(200),
    # Several operations in document order, then the aliases of a fragment never spread.
    f"query A {nested(12)}\n  query B {nested(14)}\nquery C {{ mee }}\n"
    + "fragment Many on Query { "
    + " ".join(f"a{i}: me {{ name }}" for i in range(16))
    + " }",
    # Depth through a named fragment (spread before it is defined) and an inline one.
    '{ records(object: "contacts") { nodes { ...Deep } } }\n'
    "fragment Deep on Record { ... on Record { "
    + "relations { record { " * 6
    + "id"
    + " } }" * 6
    + " } }",
    # A fragment spread in a cycle, and one that does not exist.
    "{ a { ...F ...Nowhere } } fragment F on Q { b { ...F } }",
    # Introspection does not count for depth; its aliases do.
    "{ __schema { " + " ".join(f"t{i}: types {{ name }}" for i in range(16)) + " } }",
    '{ __type(name: "X") { ' + "a { " * 12 + "b" + " }" * 12 + " } }",
    # Comments, commas, strings holding braces and colons, block strings, directives.
    "# { a: b { c: d } }\n{ me { x: name, y: name @include(if: true) } }",
    '{ a(x: "}:{(", y: """ } \\""" { """, z: {w: [1, -2.5e3]}) { b } }',
    'query Q($a: Int = 1 @d(x: 2), $b: [In!]!) @e(f: {g: "h"})'
    " { a(x: $a) { ... @skip(if: true) { b } } }",
    "mutation M { " + " ".join(f"r{i}: revokeCurrentToken" for i in range(16)) + " }",
    "subscription { memoryUpdated { " + " ".join(f"a{i}: pageId" for i in range(16)) + " } }",
]


def described(errors) -> list[tuple]:
    return [(e.message, e.locations, e.extensions) for e in errors]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_text_and_the_parsed_document_give_the_same_errors(document):
    expected = described(limit_errors(parse(document), MAX_DEPTH, MAX_ALIASES))
    found = unparsed_limit_errors(document, MAX_LENGTH, MAX_TOKENS, MAX_DEPTH, MAX_ALIASES)
    assert described(found) == expected


def test_the_corpus_holds_refusals_of_each_kind():
    """So the test above can fail: depth, aliases and several operations are among them."""
    kinds = [
        sorted(e.extensions["limit"] for e in limit_errors(parse(d), MAX_DEPTH, MAX_ALIASES))
        for d in DOCUMENTS
    ]
    assert ["depth"] in kinds and ["aliases"] in kinds and ["aliases", "depth", "depth"] in kinds
    assert [] in kinds


@pytest.mark.parametrize(
    "document",
    [
        # What the scan does not read: type-system definitions, descriptions.
        "scalar S\n" + aliased(200),
        '"described" ' + aliased(200),
        "type T { " + " ".join(f"a{i}: Int" for i in range(20)) + " }",
        # Syntax errors it sees: unbalanced braces, an empty set, a character not in the language.
        "{ " + "a { " * 20 + "b",
        "{ a { } " + "b { " * 20 + "c" + " }" * 20 + " }",
        "{ a ? " + "b { " * 20 + "c" + " }" * 20 + " }",
        '{ a(x: "never closed ' + "b { " * 20,
        "fragment on on Q { a }",
    ],
)
def test_the_scan_leaves_to_the_parser_what_it_cannot_read(document):
    assert unparsed_limit_errors(document, MAX_LENGTH, MAX_TOKENS, MAX_DEPTH, MAX_ALIASES) == []


def test_the_parsers_limits_speak_first():
    """Past the token or length limit the scan says nothing: the parser refuses as before."""
    deep = nested(120)
    assert unparsed_limit_errors(deep, MAX_LENGTH, 10, MAX_DEPTH, MAX_ALIASES) == []
    assert unparsed_limit_errors(deep, len(deep) - 1, MAX_TOKENS, MAX_DEPTH, MAX_ALIASES) == []
    assert unparsed_limit_errors(deep, len(deep), MAX_TOKENS, MAX_DEPTH, MAX_ALIASES) != []
