"""The `anthropic` SDK's routes fuzzed (issue 16, item 3) on the app under uvicorn: /openapi.json
leaves them out (their contract is the SDK's), so each route's JSON body and query string are
drawn by schemathesis from the pydantic models the route reads them with (bodies and queries
those models accept and refuse, path ids real or not), and the skill uploads as multipart parts
of any name and content. Every answer is a success or the SDK's error body with its type
(never `api_error`, a 5xx or a trace). Bounded and derandomized."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx
import pytest
from hypothesis import strategies as st
from schemathesis.core import NotSet
from starlette.routing import Route

from gateway.anthropic import dreams, memory_stores, skills
from gateway.anthropic import memory_models as m
from gateway.anthropic.errors import ERROR_TYPES
from tests.factories import bearer, make_workspace
from tests.fuzzing import HOSTILE_TEXT, mostly
from tests.gateway.fuzz_kit import Door, cases, collect, operations
from tests.gateway.server import serving
from tests.skills.folders import skill_md

EXAMPLES_PER_ROUTE = 4
EXAMPLES_OF_UPLOADS = 8
# The SDK's error types our routes answer with; `api_error` is its 5xx.
SDK_TYPES = (set(ERROR_TYPES.values()) | {"conflict_error", "memory_path_conflict_error"}) - {
    "api_error"
}
CONTENT = "Acme pays at 60 days.\n"
STORES, SKILLS, DREAMS = memory_stores.PREFIX, "/v1/skills", dreams.PREFIX
STORE, MEMORY = STORES + "/{store_id}", STORES + "/{store_id}/memories/{memory_id}"
VERSION = STORES + "/{store_id}/memory_versions/{version_id}"
SKILL, SKILL_VERSION = SKILLS + "/{skill_id}", SKILLS + "/{skill_id}/versions/{version}"
DREAM = DREAMS + "/{dream_id}"


def made(http: httpx.Client, url: str, token: str) -> dict[str, str]:
    """A store with a memory (and its version), a skill (and its version), a dream."""

    def sent(method: str, path: str, **kw: Any) -> Any:
        answer = http.request(method, url + path, headers=bearer(token), **kw)
        assert answer.status_code == 200, (path, answer.text)
        return answer.json()

    store = sent("POST", STORES, json={"name": "Fuzzed store"})["id"]
    memory = sent("POST", f"{STORES}/{store}/memories", json={"path": "/a.md", "content": CONTENT})
    version = sent("GET", f"{STORES}/{store}/memory_versions")["data"][0]["id"]
    skill = sent("POST", SKILLS, files=upload_parts("fuzzed-skill"))
    dream_input = {"type": "memory_store", "memory_store_id": store}
    dream = sent("POST", DREAMS, json={"inputs": [dream_input], "model": "claude-opus-4-1"})
    return {
        "store_id": store,
        "memory_id": memory["id"],
        "version_id": version,
        "skill_id": skill["id"],
        "version": skill["latest_version_id"],
        "dream_id": dream["id"],
    }


def upload_parts(name: str) -> list[tuple[str, tuple[str, bytes, str]]]:
    md = skill_md(f"name: {name}\ndescription: Chase invoices.\n")
    return [("files[]", (f"{name}/SKILL.md", md, "text/markdown"))]


def doors(ids: dict[str, str]) -> list[Door]:
    """Every route but the uploads, the destructive ones last (they end what others read)."""
    on = {name: [value] for name, value in ids.items()}
    on["version"] = [ids["version"], skills.LATEST]
    store, memory = {"store_id": on["store_id"]}, {k: on[k] for k in ("store_id", "memory_id")}
    version = {k: on[k] for k in ("store_id", "version_id")}
    skill, skill_version = {"skill_id": on["skill_id"]}, {k: on[k] for k in ("skill_id", "version")}
    dream = {"dream_id": on["dream_id"]}
    return [
        Door("post", STORES, body=m.CreateStore),
        Door("get", STORES, query=m.StoresQuery),
        Door("get", STORE, path_values=store),
        Door("post", STORE, body=m.UpdateStore, path_values=store),
        Door(
            "post", STORE + "/memories", body=m.CreateMemory, query=m.ViewQuery, path_values=store
        ),
        Door("get", STORE + "/memories", query=m.MemoriesQuery, path_values=store),
        Door("get", MEMORY, query=m.ViewQuery, path_values=memory),
        Door("post", MEMORY, body=m.UpdateMemory, query=m.ViewQuery, path_values=memory),
        Door("get", STORE + "/memory_versions", query=m.VersionsQuery, path_values=store),
        Door("get", VERSION, query=m.ViewQuery, path_values=version),
        Door("get", SKILLS, query=skills.SkillsQuery),
        Door("get", SKILL, path_values=skill),
        Door("get", SKILL + "/versions", query=skills.VersionsQuery, path_values=skill),
        Door("get", SKILL_VERSION, path_values=skill_version),
        Door("get", SKILL_VERSION + "/content", path_values=skill_version),
        Door("post", DREAMS, body=dreams.CreateDream),
        Door("get", DREAMS, query=dreams.DreamsQuery),
        Door("get", DREAM, path_values=dream),
        Door("post", VERSION + "/redact", path_values=version),
        Door("delete", MEMORY, query=m.DeleteMemoryQuery, path_values=memory),
        Door("post", DREAM + "/cancel", path_values=dream),
        Door("post", DREAM + "/archive", path_values=dream),
        Door("delete", SKILL_VERSION, path_values=skill_version),
        Door("delete", SKILL, path_values=skill),
        Door("post", STORE + "/archive", path_values=store),
        Door("delete", STORE, path_values=store),
    ]


def examples(ids: dict[str, str]) -> dict[str, list[Any]]:
    """Bodies each route's model accepts, with the real ids."""
    sha = hashlib.sha256(CONTENT.encode()).hexdigest()
    dream_input = {"type": "memory_store", "memory_store_id": ids["store_id"]}
    return {
        f"POST {STORES}": [{"name": "Fuzz", "metadata": {"k": "v"}}],
        f"POST {STORE}": [{"description": "x", "metadata": {"k": None}}],
        f"POST {STORE}/memories": [{"path": "/fuzz/b.md", "content": "b"}],
        f"POST {MEMORY}": [
            {"content": "c", "precondition": {"type": "content_sha256", "content_sha256": sha}},
            {"path": "/moved.md"},
        ],
        f"POST {DREAMS}": [
            {"inputs": [dream_input], "model": {"id": "claude-opus-4-1", "speed": "standard"}}
        ],
    }


KNOWN_FIELDS = {"path": ["/a.md", "/fuzz/c.md"], "model": ["claude-opus-4-1"]}


def sdk_problems(label: str, sent: Any, response: Any) -> list[str]:
    """What is wrong with an answer, httpx's or schemathesis's (nothing for a success or the
    SDK's coded error body)."""
    where = f"{label} {str(sent)[:300]}"
    text = response.content.decode("utf-8", "replace")  # a skill's download is a zip
    if response.status_code >= 500 or "Traceback" in text:
        return [f"{where}: {response.status_code} {text[:300]}"]
    if response.status_code < 400:
        return []
    try:
        body = response.json()
    except ValueError:
        return [f"{where}: {response.status_code}, not JSON: {text[:200]}"]
    error = body.get("error") if isinstance(body, dict) else None
    if not (
        body.get("type") == "error"
        and isinstance(error, dict)
        and error.get("type") in SDK_TYPES
        and isinstance(error.get("message"), str)
        and response.headers.get("request-id")
    ):
        return [f"{where}: {response.status_code} {text[:300]}"]
    return []


@st.composite
def uploads(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Multipart parts as the SDK sends a skill's files, names and contents maybe wrong."""
    name = draw(mostly(st.sampled_from(["fuzz-up", "fuzzed-skill"]), HOSTILE_TEXT))
    md = skill_md(f"name: {name}\ndescription: {draw(HOSTILE_TEXT)}\n")
    files = st.tuples(
        mostly(st.sampled_from([f"{name}/SKILL.md", f"{name}/scripts/run.sh"]), HOSTILE_TEXT),
        mostly(st.just(md), st.binary(max_size=200)),
    )
    parts: list[tuple[str, Any]] = [
        ("files[]", (path, content, "application/octet-stream"))
        for path, content in draw(st.lists(files, max_size=3))
    ]
    if draw(st.booleans()):
        parts.append(("display_name", (None, draw(HOSTILE_TEXT).encode(), None)))
    return parts


@pytest.fixture
async def admin(pool) -> str:  # type: ignore[no-untyped-def]
    return (await make_workspace(pool, "FuzzedSdk")).tokens["admin"]


def test_every_sdk_route_is_fuzzed():
    routed = {
        (method.lower(), route.path)
        for route in (*skills.ROUTES, *memory_stores.ROUTES, *dreams.ROUTES)
        if isinstance(route, Route)
        for method in route.methods or ()
        if method != "HEAD"
    }
    ids = dict.fromkeys(["store_id", "memory_id", "version_id", "skill_id", "version", "dream_id"])
    fuzzed = {(d.method, d.path) for d in doors({k: "x" for k in ids})}
    uploaded = {("post", SKILLS), ("post", SKILL + "/versions")}
    assert fuzzed | uploaded == routed


def test_no_sdk_route_answers_an_uncoded_error(dsn, admin):
    failures: list[str] = []
    statuses: dict[str, set[int]] = {}
    with serving(dsn) as url, httpx.Client(timeout=60) as http:
        ids = made(http, url, admin)
        accepted = examples(ids)

        def upload(drawn: tuple[str, list[tuple[str, Any]]]) -> None:
            path, parts = drawn
            answer = http.post(url + path, files=parts, headers=bearer(admin))
            failures.extend(sdk_problems(f"POST {path}", parts, answer))

        targets = st.sampled_from([SKILLS, f"{SKILLS}/{ids['skill_id']}/versions"])
        collect(EXAMPLES_OF_UPLOADS, st.tuples(targets, uploads()), upload)
        known = KNOWN_FIELDS | {"memory_store_id": [ids["store_id"]]}
        fuzzed = doors(ids)
        for door, operation in zip(fuzzed, operations(fuzzed, known), strict=True):

            def call(case: Any, label: str = operation.label) -> None:
                answer = case.call(base_url=url, headers=bearer(admin))
                body = None if isinstance(case.body, NotSet) else case.body
                sent = (case.path_parameters, case.query, json.dumps(body, default=str))
                failures.extend(sdk_problems(label, sent, answer))
                statuses.setdefault(label, set()).add(answer.status_code)

            drawn = cases(operation, door, accepted.get(door.label, ()))
            collect(EXAMPLES_PER_ROUTE, drawn, call)
    assert not failures, "\n".join(failures[:10]) + f"\n({len(failures)} in all)"
    # The token worked, and generated requests got past the checks to the resolvers.
    assert all(found - {401} for found in statuses.values()), statuses
    answered = [label for label, found in statuses.items() if found & {200}]
    assert len(answered) >= len(statuses) // 2, statuses
