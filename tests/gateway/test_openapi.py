"""`/openapi.json`: every plain route documented (and nothing else), each route reading its body
with the model the document shows, the document served without a token only with
introspection on, and schemathesis against the running app: no 500, every answer matching the
document. Bounded: a few derandomized examples per operation."""

from __future__ import annotations

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import checks
from schemathesis.core.failures import FailureGroup
from starlette.routing import Mount, Route

from gateway.app import create_app
from gateway.http import openapi
from gateway.http.fields import spec
from gateway.settings import Settings
from tests.factories import bearer, make_workspace
from tests.gateway.server import serving

EXAMPLES_PER_OPERATION = 8
# No 500, every status, media type and body as documented, and a body the document refuses is
# refused. (Not "every body the document accepts is accepted": the resolvers check more than a
# JSON schema can say, e.g. a message's role, a time's offset, a name's format.)
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.negative_data_rejection,
]


def app_routes(introspection: bool = True) -> set[tuple[str, str]]:
    """(method, path) of every route of the app but the undocumented ones."""
    app = create_app(Settings(database_url=None, worker=False, introspection=introspection))
    found = set()
    for route in app.routes:
        if isinstance(route, Mount) or route.path.startswith(openapi.NOT_DOCUMENTED):  # type: ignore[attr-defined]
            continue
        assert isinstance(route, Route)
        found |= {(m.lower(), route.path) for m in route.methods or () if m != "HEAD"}
    return found


def test_every_plain_route_is_documented_and_nothing_else():
    documented = {(o.method, o.path) for o in openapi.OPERATIONS}
    assert app_routes() == documented
    assert set(openapi.document()["paths"]) == {path for _, path in documented}


def test_the_document_is_openapi_3_1_and_names_each_body_model():
    document = openapi.document()
    assert document["openapi"] == "3.1.0"
    schemas = document["components"]["schemas"]
    for operation in openapi.OPERATIONS:
        if operation.body is None:
            continue
        body = schemas[operation.body.__name__]
        assert body.get("additionalProperties") is False, operation.path
        assert set(body["properties"]) == set(spec(operation.body)), operation.path
        required = {name for name, (_, needed) in spec(operation.body).items() if needed}
        assert set(body.get("required", [])) == required, operation.path


async def test_each_route_reads_its_body_with_the_documented_model(client, pool):
    ws = await make_workspace(pool, "Documented")
    paths = {
        "/v1/records/{object}/{id}/memory": "/v1/records/companies/UmVjb3JkOng/memory",
        "/users/me/preferences/{key}": "/users/me/preferences/memory",
        "/agents/sessions/{id}/messages": "/agents/sessions/c-documented/messages",
        "/v1/mailboxes/{id}/messages": "/v1/mailboxes/TWFpbGJveDp4/messages",
    }
    for operation in openapi.OPERATIONS:
        if operation.body is None or not operation.body_required:
            continue
        path = paths.get(operation.path, operation.path)
        token = ws.tokens["api_key"] if "mailboxes" in path else ws.tokens["admin"]
        answer = await client.request(
            operation.method.upper(),
            path,
            json={"notAFieldOfIt": True},
            headers=bearer(token),
        )
        assert answer.status_code == 400, (operation.path, answer.text)
        problems = answer.json()["error"].get("problems", [])
        named = {p.get("field") for p in problems}
        assert "notAFieldOfIt" in named, (operation.path, problems)
        if operation.path in ("/users/me/preferences/{key}", "/tenant/settings"):
            continue  # the resolver checks these fields' values (and refuses the unknown one)
        required = {name for name, (_, needed) in spec(operation.body).items() if needed}
        assert required <= named, (operation.path, problems)


async def test_the_document_is_public_with_introspection_only(api_pool):
    for introspection, status in ((True, 200), (False, 404)):
        app = create_app(
            Settings(database_url=None, worker=False, introspection=introspection), pool=api_pool
        )
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            answer = await client.get("/openapi.json")
        assert answer.status_code == status, answer.text
        if status == 200:
            assert answer.json() == openapi.document()


# --- schemathesis against the running app ------------------------------------------------------


@pytest.fixture
async def fuzz_token(pool) -> str:  # type: ignore[no-untyped-def]
    return (await make_workspace(pool, "FuzzedRoutes")).tokens["admin"]


def test_schemathesis_finds_no_500_and_every_answer_matches_the_document(dsn, fuzz_token):
    failures: list[str] = []
    with serving(dsn) as base_url:
        schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
        for result in schema.get_all_operations():
            operation = result.ok()
            failures.extend(probe(operation, base_url, fuzz_token))
    assert not failures, "\n".join(failures[:10]) + f"\n({len(failures)} in all)"


def probe(operation: schemathesis.APIOperation, base_url: str, token: str) -> list[str]:
    found: list[str] = []
    statuses: list[int] = []

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
        response = case.call(base_url=base_url, headers=bearer(token))
        statuses.append(response.status_code)
        try:
            case.validate_response(response, checks=CHECKS)
        except FailureGroup as failed:  # one error naming every failed check
            found.append(f"{operation.label}: {str(failed)[:600]}")

    send()
    # The token worked: each operation was answered past the edge (not only 401s).
    assert any(status != 401 for status in statuses), f"{operation.label}: {statuses}"
    return found
