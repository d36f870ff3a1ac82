"""schemathesis against schema.graphql: every query and mutation, with generated arguments
(NUL and other hostile text included), sent to the app served on 127.0.0.1 with a valid
token. No answer may be a 500, carry INTERNAL, or hold an error without its code. Bounded: a
few examples per operation, derandomized, so it runs in well under a minute and the same way
each time."""

from __future__ import annotations

from pathlib import Path

import graphql
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from resolvers.common.errors import Code
from tests.factories import make_workspace
from tests.gateway.server import serving


def _json_scalar() -> st.SearchStrategy[graphql.ValueNode]:
    """Literals for the JSON scalar: text, numbers, booleans, lists and objects of text."""
    nodes = schemathesis.graphql.nodes
    text = HOSTILE_TEXT.map(nodes.String)
    field = st.builds(
        lambda name, value: graphql.ObjectFieldNode(name=graphql.NameNode(value=name), value=value),
        st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True),
        text,
    )
    return st.one_of(
        text,
        st.integers(-(10**6), 10**6).map(nodes.Int),
        st.booleans().map(nodes.Boolean),
        st.lists(text, max_size=3).map(nodes.List),
        st.lists(field, max_size=3, unique_by=lambda f: f.name.value).map(nodes.Object),
    )


# Text leans on the characters that break things (NUL, controls, quotes, non-ASCII), so that a
# bounded run meets them: a uniform draw would need thousands of requests.
WORDS = st.sampled_from(["companies", "people", "deals", "name", "my-skill", "notes.md"])
HOSTILE_TEXT = st.one_of(
    st.text(max_size=12),
    st.text(alphabet='a-_ \x00\x01\n"\\é\u202e', max_size=6),
    WORDS,
    st.tuples(WORDS, st.sampled_from(["\x00", "\x01", "\n", "/../x"])).map("".join),
)
schemathesis.graphql.scalar("String", HOSTILE_TEXT.map(schemathesis.graphql.nodes.String))
schemathesis.graphql.scalar("JSON", _json_scalar())
schemathesis.graphql.scalar("Date", st.dates().map(str).map(schemathesis.graphql.nodes.String))
schemathesis.graphql.scalar(
    "DateTime", st.datetimes().map(lambda d: d.isoformat()).map(schemathesis.graphql.nodes.String)
)
SCHEMA = schemathesis.graphql.from_path(Path(__file__).parents[2] / "schema.graphql")
EXAMPLES_PER_OPERATION = 12
CODED = {c.value for c in Code} - {Code.INTERNAL.value, Code.DB_UNAVAILABLE.value}


@pytest.fixture
async def admin_token(pool) -> str:  # type: ignore[no-untyped-def]
    return (await make_workspace(pool, "Fuzzed")).tokens["admin"]


def internal_errors(response: schemathesis.Response) -> list[object]:
    """What answered INTERNAL, DB_UNAVAILABLE or a 5xx, and every error without one of DESIGN
    §8's codes."""
    if response.status_code >= 500:
        return [response.status_code, response.text[:500]]
    try:
        errors = response.json().get("errors") or []
    except ValueError:
        return [f"not JSON: {response.text[:200]}"]
    return [e for e in errors if (e.get("extensions") or {}).get("code") not in CODED]


def probe(operation: schemathesis.APIOperation, base_url: str, token: str) -> list[object]:
    """Send the operation's generated cases; what answered INTERNAL."""
    found: list[object] = []
    statuses: list[int] = []
    headers = {"authorization": f"Bearer {token}"}

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def send(case: schemathesis.Case) -> None:
        response = case.call(base_url=base_url, headers=headers)
        statuses.append(response.status_code)
        problems = internal_errors(response)
        if problems:
            found.append((operation.label, str(case.body)[:300], problems))

    send()
    assert 200 in statuses or 400 in statuses, f"{operation.label}: answered only {statuses}"
    return found


def test_no_generated_operation_answers_internal(dsn, admin_token):
    found: list[object] = []
    with serving(dsn) as base_url:
        operations = [result.ok() for result in SCHEMA.get_all_operations()]
        # Revoking the token ends every later request: that operation goes last.
        operations.sort(key=lambda o: o.label == "Mutation.revokeCurrentToken")
        for operation in operations:
            found.extend(probe(operation, f"{base_url}/graphql", admin_token))
    assert not found, "\n".join(map(str, found[:10])) + f"\n({len(found)} in all)"
