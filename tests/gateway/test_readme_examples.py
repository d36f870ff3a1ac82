"""The README examples' convention (tests/gateway/readme_examples.py; pure, no server): which
blocks and lines are run, how a block is kept from running, placeholders, what counts as an
answer showing something."""

from __future__ import annotations

import pytest

from tests.gateway.readme_examples import (
    README,
    ConventionError,
    examples,
    fill,
    placeholders,
    shows_something,
)


def test_a_graphql_block_is_one_operation_or_several_named_ones():
    one, *rest = examples("# Title\n\n```graphql\n{ me { name } }\n```\n")
    assert rest == []
    assert (one.kind, one.line, one.operation, one.text) == (
        "graphql",
        4,
        None,
        "{ me { name } }\n",
    )
    named = examples("```graphql\nmutation Make { a }\n\nquery Read {\n  b\n}\n```\n")
    assert [(e.operation, e.line) for e in named] == [("Make", 2), ("Read", 4)]
    assert all(e.text == "mutation Make { a }\n\nquery Read {\n  b\n}\n" for e in named)


def test_several_operations_in_a_block_must_each_be_named():
    with pytest.raises(ConventionError, match=r"README.md:2: .*names each one"):
        examples("```graphql\nmutation { a }\n{ b }\n```\n")
    with pytest.raises(ConventionError, match="does not parse"):
        examples("```graphql\n{ a \n```\n")


def test_shell_commands_starting_with_curl_or_skillmem_are_run_with_their_continuations():
    block = (
        "```sh\n"
        "make run    # not run\n"
        "curl -s http://127.0.0.1:8000/healthz\n"
        "curl -X POST http://127.0.0.1:8000/v1/meetings -H 'A: b' \\\n"
        '  -d \'{"title": "Weekly",\n'
        '       "transcript": "…"}\'   # 201\n'
        ".venv/bin/skillmem demo\n"
        "skillmem schema\n"
        "echo done\n"
        "```\n"
    )
    found = examples(block)
    assert [(e.kind, e.line) for e in found] == [
        ("shell", 3),
        ("shell", 4),
        ("shell", 7),
        ("shell", 8),
    ]
    assert found[1].text.endswith('"transcript": "…"}\'   # 201')
    assert [e.text for e in found[2:]] == [".venv/bin/skillmem demo", "skillmem schema"]


def test_a_quote_never_closed_is_an_error():
    with pytest.raises(ConventionError, match="never closed"):
        examples('```bash\ncurl -d \'{"a": 1}\n```\n')


def test_other_languages_are_not_run():
    assert examples("```python\nprint(1)\n```\n\n```\n{ me { name } }\n```\n") == []
    assert examples('```json\n{"a": 1}\n```\n') == []


def test_a_not_run_mark_keeps_the_next_block_only_and_needs_a_reason():
    text = (
        "<!-- not run: runs until stopped -->\n"
        "```sh\nskillmem serve\n```\n\n"
        "```sh\nskillmem demo\n```\n"
    )
    skipped, run = examples(text)
    assert (skipped.skipped, run.skipped) == ("runs until stopped", None)
    # A paragraph between the mark and the block: the mark holds for nothing.
    [far] = examples("<!-- not run: why -->\n\nSome words.\n\n```sh\nskillmem demo\n```\n")
    assert far.skipped is None
    with pytest.raises(ConventionError, match="needs its reason"):
        examples("<!-- not run: -->\n```graphql\n{ a }\n```\n")


def test_a_subscription_is_not_run_over_http():
    [example] = examples("```graphql\nsubscription { memoryUpdated { line } }\n```\n")
    assert example.skipped and "WebSocket" in example.skipped


def test_placeholders_are_filled_and_an_unknown_one_is_named():
    text = 'curl -H "Authorization: Bearer $TOKEN" -d \'{"id": "${ACME_ID}"}\' # $ignored'
    assert placeholders(text) == {"TOKEN", "ACME_ID"}
    assert fill(text, {"TOKEN": "t", "ACME_ID": "a"}) == (
        'curl -H "Authorization: Bearer t" -d \'{"id": "a"}\' # $ignored'
    )
    # A GraphQL variable ($camelCase) is no placeholder.
    assert fill("query($id: ID!) { record(id: $id) { id } }", {}) == (
        "query($id: ID!) { record(id: $id) { id } }"
    )
    with pytest.raises(
        ConventionError, match=r"unknown placeholder\(s\) MAILBOX: use one of TOKEN"
    ):
        fill("$MAILBOX", {"TOKEN": "t"})


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        (None, False),
        ([], False),
        ({}, False),
        ("", False),
        (" ", False),
        (0, False),
        (False, False),
        ({"total": 0, "hits": []}, False),
        ({"items": [], "endCursor": None}, False),
        ([{"line": None}], False),
        ({"total": 1, "hits": []}, True),
        ([{"name": "x", "dormant": False}], True),
        (True, True),
        ("text", True),
    ],
)
def test_an_answer_shows_something_when_a_leaf_is_not_empty(answer, shown):
    assert shows_something(answer) is shown


def test_the_readme_itself_follows_the_convention():
    found = examples(README.read_text())
    assert {e.kind for e in found} == {"graphql", "shell"}
    assert any(e.text.startswith("curl") for e in found)
    assert any("skillmem" in e.text.split()[0] for e in found)
    assert all(e.skipped for e in found if e.text.startswith((".venv/bin/skillmem serve",)))
