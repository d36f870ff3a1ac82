"""The planned executor's differential test (issue 17, item 2): on the demo workspace, two real
servers, one planned (SKILLMEM_PLANNED_EXECUTION, the default) and one graphql-core alone, answer
every benchmark query, every README GraphQL example and queries drawn over the whole schema with
the same status and the same bytes (`data` and `errors`).

A third server runs the whole-operation fast path (schema/fast.py, SKILLMEM_FAST_PATH): every
query is sent to it twice (the first run may make the plans it needs) and both answers must be
the same bytes again; it counts the requests it answered itself, the ones whose resolver's
outcome it handed to graphql-core (errors) and the ones it left to graphql-core whole.

A mutation is run once, on the planned server: there every value a plan completes is also
completed by graphql-core alone, from the same resolved value, and both must serialise alike (a
plan that fails hands the value to graphql-core, which the queries' errors exercise). The
planned server checks queries that way too, and counts the plans that ran, so that a test where
no plan ran fails."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from inspect import isawaitable, iscoroutine
from typing import Any

import httpx
import orjson
import pytest
from graphql import OperationDefinitionNode, OperationType, parse
from graphql.execution.incremental.incremental_executor import IncrementalExecutor
from hypothesis import given

import gateway.http.graphql as graphql_http
from bench.edge import QUERY as EDGE_BODY
from bench.memory import EDIT_QUERY, READ_QUERY
from bench.records import QUERY as RECORDS_QUERY
from bench.skills import ACTIVATION_QUERY, CATALOG_QUERY
from bench.turns import SEARCH_QUERY, TURN_QUERY
from db.migrate import apply_migrations
from db.pool import connect
from gateway.demo import ensure_demo
from schema.fast import Replay, run_fast
from schema.planned import PlannedExecutor
from tests.fuzzing import bounded
from tests.gateway.readme_examples import README, examples, fill
from tests.gateway.selections import queries
from tests.gateway.server import serving_app
from tests.gateway.test_readme import ACME_PAGE, CURRENT, _fixed_values, placeholder_values

REQUEST_ID = "differential-1"


@dataclass
class Checks:
    """What the planned server's checking executor saw."""

    planned: int = 0
    mixed: int = 0  # objects of plain fields and others
    # Where the plans ran (as paths without list indices), for a test to see they did.
    where: set[str] = field(default_factory=set)
    mismatches: list[str] = field(default_factory=list)


CHECKS = Checks()


@dataclass
class FastCounts:
    """What the fast path did on the fast server."""

    answered: int = 0
    replayed: int = 0  # the resolver ran; graphql-core made the errors from its outcome
    declined: int = 0  # graphql-core ran it all
    where: set[str] = field(default_factory=set)


FAST = FastCounts()


async def counting_run_fast(fast, plans, context, variables):  # type: ignore[no-untyped-def]
    found = await run_fast(fast, plans, context, variables)
    if isinstance(found, dict):
        FAST.answered += 1
        FAST.where.add(fast.key)
    elif isinstance(found, Replay):
        FAST.replayed += 1
    else:
        FAST.declined += 1
    return found


class Checking(PlannedExecutor):
    """The planned executor, completing each planned value twice: by its plan (the answer) and
    by graphql-core alone (pure below it), and recording any difference."""

    reference = False

    def plan_mixed(self, object_type, field_details_list):  # type: ignore[no-untyped-def]
        mixed = super().plan_mixed(object_type, field_details_list)
        CHECKS.mixed += mixed is not None
        return mixed

    def complete_value(self, return_type, field_details_list, info, path, result, context):  # type: ignore[no-untyped-def]
        plain = IncrementalExecutor.complete_value
        complete = None if self.reference else self.plan_of(return_type, field_details_list)
        if complete is None:
            return plain(self, return_type, field_details_list, info, path, result, context)
        try:
            planned = complete(result)
        except Exception:
            return plain(self, return_type, field_details_list, info, path, result, context)
        self.reference = True
        try:
            expected: Any = plain(
                self, return_type, field_details_list, info, path, result, context
            )
        except Exception as error:
            expected = error
        finally:
            self.reference = False
        CHECKS.planned += 1
        CHECKS.where.add(".".join(str(k) for k in path.as_list() if isinstance(k, str)))
        if isawaitable(expected) or isinstance(expected, Exception):
            if iscoroutine(expected):
                expected.close()
            CHECKS.mismatches.append(f"{path.as_list()}: {expected!r}, planned {planned!r}")
        elif orjson.dumps(expected) != orjson.dumps(planned):
            CHECKS.mismatches.append(f"{path.as_list()}: {expected!r} != {planned!r}")
        return planned


@dataclass
class Servers:
    planned: str
    plain: str
    fast: str
    fixed: dict[str, str]
    http: httpx.Client

    def post(self, url: str, body: dict[str, Any], token: str = "TOKEN") -> httpx.Response:
        headers = {
            "authorization": f"Bearer {self.fixed[token]}",
            "content-type": "application/json",
            "x-request-id": REQUEST_ID,
        }
        return self.http.post(f"{url}/graphql", content=orjson.dumps(body), headers=headers)

    def both(
        self, body: dict[str, Any], token: str = "TOKEN"
    ) -> tuple[httpx.Response, httpx.Response]:
        """The plain server's answer and the planned one's, which must be the same, as must
        the fast path server's, twice (``token``: the fixed value whose token is sent)."""
        plain = self.post(self.plain, body, token)
        planned = self.post(self.planned, body, token)
        assert (plain.status_code, plain.content) == (planned.status_code, planned.content), body
        for _ in range(2):
            fast = self.post(self.fast, body, token)
            assert (plain.status_code, plain.content) == (fast.status_code, fast.content), body
        return plain, planned

    def values(self) -> dict[str, str]:
        """Every README placeholder's value now (tests/gateway/test_readme.py's)."""
        now = self.post(self.plain, {"query": CURRENT}).json()["data"]
        acme = now["acme"]["nodes"][0]["id"]
        page = self.post(self.plain, {"query": ACME_PAGE, "variables": {"id": acme}})
        memory = page.json()["data"]["memoryPageByRecord"]
        return placeholder_values(self.fixed, now, memory, "2026-01")


@pytest.fixture(scope="module")
async def servers(new_database) -> AsyncIterator[Servers]:  # type: ignore[no-untyped-def]
    dsn = await new_database()
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
        await ensure_demo(conn)
    finally:
        await conn.close()
    fixed = await _fixed_values(dsn)
    with (
        pytest.MonkeyPatch.context() as patch,
        serving_app(dsn, fast_path=False) as (planned, _),
        serving_app(dsn, planned_execution=False) as (plain, _),
        serving_app(dsn) as (fast, _),
        httpx.Client(timeout=60) as http,
    ):
        patch.setattr(graphql_http, "PlannedExecutor", Checking)
        patch.setattr(graphql_http, "run_fast", counting_run_fast)
        yield Servers(planned, plain, fast, fixed, http)


@pytest.fixture
def checks() -> Iterator[Checks]:
    CHECKS.planned, CHECKS.mixed, CHECKS.where, CHECKS.mismatches = 0, 0, set(), []
    FAST.answered, FAST.replayed, FAST.declined, FAST.where = 0, 0, 0, set()
    yield CHECKS
    assert not CHECKS.mismatches, CHECKS.mismatches[:5]


def test_every_benchmark_query_answers_alike(servers: Servers, checks: Checks):
    values = servers.values()
    bodies = [
        {"query": RECORDS_QUERY % 20},
        {"query": RECORDS_QUERY % 100},
        {"query": ACTIVATION_QUERY % "invoice-followup"},
        {"query": CATALOG_QUERY},
        {"query": SEARCH_QUERY, "variables": {"q": "Acme"}},
        {"query": READ_QUERY, "variables": {"id": values["ACME_PAGE_ID"]}},
        {"query": TURN_QUERY, "variables": {"input": {"message": "How is Acme doing?"}}},
        EDGE_BODY,
        # A list of objects whose every field is skipped: an empty object an item.
        {"query": "{ skillCatalog { name @skip(if: true) } }"},
        # Not a benchmark's: the records page with fields that are not plain (owner, changes).
        {
            "query": RECORDS_QUERY.replace("label values", "label owner { name } changes { at }", 1)
            % 20
        },
    ]
    for body in bodies:
        plain, _ = servers.both(body)
        assert plain.status_code == 200 and "errors" not in plain.json(), plain.text
    edit = {"id": values["ACME_PAGE_ID"], "content": "# Acme\n\n- Pays at 60 days.\n"}
    answer = servers.post(servers.planned, {"query": EDIT_QUERY, "variables": edit})
    assert answer.status_code == 200, answer.text
    # The records page, the catalogue, the activation's files and the page read: planned whole.
    assert {"records", "skillCatalog", "skillActivation", "memoryPage"} <= checks.where, checks
    assert checks.mixed > 0
    # The fast path answered the records page, the activation, the catalogue and the page read.
    assert {"records", "skillCatalog", "skillActivation", "memoryPage"} <= FAST.where, FAST


def _kind(text: str, operation: str | None) -> OperationType:
    for definition in parse(text).definitions:
        if isinstance(definition, OperationDefinitionNode) and (
            operation is None or (definition.name and definition.name.value == operation)
        ):
            return definition.operation
    raise AssertionError(f"no operation {operation}")


GRAPHQL_EXAMPLES = [e for e in examples(README.read_text()) if e.kind == "graphql"]


def test_every_readme_example_answers_alike(servers: Servers, checks: Checks):
    ran = 0
    for example in GRAPHQL_EXAMPLES:
        if example.skipped:
            continue
        body = {"query": fill(example.text, servers.values()), "operationName": example.operation}
        if _kind(example.text, example.operation) is OperationType.QUERY:
            servers.both(body)
        else:  # run once: the planned server compares its plans with graphql-core's own
            servers.post(servers.planned, body)
        ran += 1
    assert ran > 20 and checks.planned > 0


@bounded(60)
@given(drawn=queries())
def test_queries_drawn_over_the_schema_answer_alike(
    servers: Servers, checks: Checks, drawn: tuple[str, dict[str, Any]]
):
    query, variables = drawn
    acme = servers.fixed.setdefault("ACME_ID", servers.values()["ACME_ID"])
    servers.both({"query": query.replace("$ACME_ID", acme), "variables": variables})


# Errors: each document first succeeds on the fast server (its plan is made), then fails in
# its resolver, which the fast path hands to graphql-core (Replay); a document that never
# succeeds (no plan) is left to graphql-core whole. Both must answer as graphql-core alone does.
PAGE_READ = "query($id: ID!) { memoryPage(id: $id) { content souvenirs { key line } } }"
RECORDS_BY = (
    "query($object: String!, $first: Int) { records(object: $object, first: $first) "
    "{ edges { cursor node { id label } } } }"
)
# The caller's own profile: an API key (KEY) acts for no person, FORBIDDEN.
MY_MEMORIES = "{ myMemories { content contentSha256 } }"


def test_errors_answer_alike(servers: Servers, checks: Checks):
    values = servers.values()
    page, record = values["ACME_PAGE_ID"], values["ACME_ID"]
    bodies = [
        {"query": PAGE_READ, "variables": {"id": page}},
        {"query": PAGE_READ, "variables": {"id": record}},  # a record's id: NOT_FOUND
        {"query": RECORDS_BY, "variables": {"object": "contacts", "first": 2}},
        {"query": RECORDS_BY, "variables": {"object": "contacts", "first": -1}},  # refused
        {"query": RECORDS_BY, "variables": {"object": "no-such-object", "first": 2}},
        {"query": PAGE_READ, "variables": {"id": 12}},  # an ID that names nothing: refused
        {"query": PAGE_READ, "variables": {"id": [page]}},  # a variable that does not coerce
        {"query": MY_MEMORIES},
    ]
    codes = []
    for body in bodies:
        plain, _ = servers.both(body)
        codes.extend(e["extensions"]["code"] for e in plain.json().get("errors", []))
    plain, _ = servers.both({"query": MY_MEMORIES}, "KEY")
    codes.extend(e["extensions"]["code"] for e in plain.json()["errors"])
    assert codes == [
        "NOT_FOUND",
        "SCHEMA_VALIDATION_FAILED",
        "SCHEMA_VALIDATION_FAILED",
        "GRAPHQL_VALIDATION_FAILED",
        "FORBIDDEN",
    ], codes
    # The resolvers' errors after their plans were made, by graphql-core from the outcome.
    assert FAST.replayed == 2 * 4 and FAST.answered >= 4, FAST  # each sent twice


# Nulls and optional plain arguments reach the resolver as graphql-core coerced them, on the
# fast path and directly (schema/direct.py), as Strawberry's conversion would give them.
RECORDS_NULLS = (
    '{ records(object: "contacts", first: null, after: null, filter: null) '
    "{ edges { cursor node { id label } } } }"
)
RECORDS_OPTIONAL = (
    "query($first: Int, $after: String, $filter: RecordFilter) "
    '{ records(object: "contacts", first: $first, after: $after, filter: $filter) '
    "{ edges { cursor node { id label } } } }"
)


def test_null_and_optional_arguments_answer_alike(servers: Servers, checks: Checks):
    first, _ = servers.both({"query": RECORDS_OPTIONAL, "variables": {"first": 2}})
    after = first.json()["data"]["records"]["edges"][-1]["cursor"]
    for body in [
        {"query": RECORDS_NULLS},
        {"query": RECORDS_OPTIONAL, "variables": {"first": None, "filter": None}},
        {"query": RECORDS_OPTIONAL, "variables": {"first": 1, "after": after}},
        {"query": RECORDS_OPTIONAL, "variables": {"after": None, "filter": {"labelContains": "a"}}},
    ]:
        plain, _ = servers.both(body)
        assert plain.status_code == 200 and "errors" not in plain.json(), plain.json()
    assert FAST.answered >= 4, FAST


# Mutations take the fast path too, when they have one root field. Each sent here leaves the
# state it found (a page's own content written back makes no version; a preference set to what
# it is), so the servers, sent it in turn, must answer the same bytes; the failing ones after the
# same document succeeded on the fast server (its plan made): graphql-core makes their errors.
EDIT_PAGE = (
    "mutation($id: ID!, $content: String!) { editMemoryPage(pageId: $id, content: $content) "
    "{ id version content contentSha256 souvenirs { key line } } }"
)
SET_PREFERENCE = (
    "mutation($on: Boolean!) { setMemoryPreference(key: SHARE_WITH_TEAM, value: $on) "
    "{ shareWithTeam learnFromEmail shareWithTeamOnSince } }"
)
PAGE_NOW = "query($id: ID!) { memoryPage(id: $id) { version content } }"


def test_mutations_answer_alike(servers: Servers, checks: Checks):
    values = servers.values()
    page, record = values["ACME_PAGE_ID"], values["ACME_ID"]
    before = servers.post(servers.plain, {"query": PAGE_NOW, "variables": {"id": page}}).json()
    content = before["data"]["memoryPage"]["content"]
    sharing = servers.post(servers.plain, {"query": "{ memoryPreferences { shareWithTeam } }"})
    on = sharing.json()["data"]["memoryPreferences"]["shareWithTeam"]
    for body in [
        {"query": EDIT_PAGE, "variables": {"id": page, "content": content}},
        {"query": SET_PREFERENCE, "variables": {"on": on}},
    ]:
        plain, _ = servers.both(body)
        assert plain.status_code == 200 and "errors" not in plain.json(), plain.text
    assert {"editMemoryPage", "setMemoryPreference"} <= FAST.where, FAST
    answered, codes = FAST.answered, []
    for body in [
        {"query": EDIT_PAGE, "variables": {"id": record, "content": content}},  # a record's id
        {"query": EDIT_PAGE, "variables": {"id": page, "content": "- Pays at 60 days\n# Acme"}},
    ]:
        plain, _ = servers.both(body)
        codes.extend(e["extensions"]["code"] for e in plain.json()["errors"])
    assert codes[0] == "NOT_FOUND" and len(codes) == 2, codes
    assert FAST.replayed == 2 * 2 and FAST.answered == answered, FAST
    after = servers.post(servers.plain, {"query": PAGE_NOW, "variables": {"id": page}}).json()
    assert after == before  # every edit wrote back what it found, or was refused
