"""catalogSearch against a real PostgreSQL and a local fake directory (the test's own HTTP
server): the product's own skills as you type, the directory asked only when asked, once per
request with the whole text and up to three of its words, merged and ranked; each side failing
alone; ``unavailable`` only when nothing came back; an agent refused; the HTTP route."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import orjson
import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from gateway.app import create_app
from gateway.settings import Settings
from resolvers.catalog import search
from tests.factories import bearer, codes, data, gql, problems

SEARCH = """query($text: String!, $community: Boolean!) {
  catalogSearch(text: $text, community: $community) {
    results { origin name description source skillId installs exact }
    status ownStatus communityStatus sent
  }
}"""


def skill(name: str, installs: int, source: str = "acme/skills") -> dict[str, Any]:
    return {
        "id": f"{source}/{name}",
        "skillId": name,
        "name": name,
        "installs": installs,
        "source": source,
    }


def directory(server: HTTPServer, answers: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The fake directory: each text's skills (none for a text it does not know); the texts
    it received, in the order they came."""
    received: list[str] = []

    def answer(request: Request) -> Response:
        text = request.args["q"]
        received.append(text)
        body = {"query": text, "searchType": "fuzzy", "skills": answers.get(text, [])}
        return Response(orjson.dumps(body), content_type="application/json")

    server.expect_request("/api/search").respond_with_handler(answer)
    return received


@pytest.fixture
async def catalog(api_pool, httpserver: HTTPServer) -> AsyncIterator[httpx.AsyncClient]:
    """The app with its directory at the fake server: one try, a short timeout (long enough
    for a machine under load; the slow directory's test waits it out)."""
    settings = Settings(
        database_url=None,
        worker=False,
        catalog_directory_base_url=httpserver.url_for("/").rstrip("/"),
        catalog_timeout=2.0,
        catalog_max_retries=0,
        catalog_backoff=0.01,
    )
    app = create_app(settings, pool=api_pool)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as client:
        yield client


async def found(
    client: httpx.AsyncClient, token: str, text: str, community: bool = False
) -> dict[str, Any]:
    answer = await gql(client, token, SEARCH, {"text": text, "community": community})
    result: dict[str, Any] = data(answer, "catalogSearch")
    return result


def names(result: dict[str, Any]) -> list[str]:
    return [hit["name"] for hit in result["results"]]


# the words sent ----------------------------------------------------------------------------


def test_a_text_of_several_words_sends_up_to_three_that_could_name_a_skill():
    assert search.directory_texts("find the skill for XLSX and pdf charts docx") == [
        "find the skill for XLSX and pdf charts docx",
        "xlsx",
        "pdf",
        "charts",
    ]
    assert search.directory_texts("xlsx") == ["xlsx"]
    assert search.directory_texts("  find   the  ") == ["find the"]
    assert search.skill_words("xlsx xlsx Ünïcode c++ a") == ["xlsx"]
    assert {"find", "the"} <= search.STOP_WORDS


# the product's own skills ------------------------------------------------------------------


async def test_own_skills_are_found_by_name_and_description_without_the_directory(
    catalog, ws, httpserver: HTTPServer
):
    by_name = await found(catalog, ws.tokens["viewer"], "PROPOSE-memory")
    assert names(by_name) == ["skillmem-propose-memory"]
    assert by_name["results"][0]["origin"] == "PRODUCT"
    assert by_name["results"][0]["description"].startswith("Propose a memory")
    assert (by_name["status"], by_name["ownStatus"], by_name["communityStatus"]) == (
        "MATCHED",
        "OK",
        "NOT_ASKED",
    )
    by_description = await found(catalog, ws.tokens["viewer"], "Record Card")
    assert names(by_description) == ["skillmem-read-record-card"]
    as_typed = await found(catalog, ws.tokens["viewer"], "memory propo")
    assert names(as_typed) == ["skillmem-propose-memory"]
    nothing = await found(catalog, ws.tokens["viewer"], "quantum xylophone")
    assert (nothing["results"], nothing["status"], nothing["sent"]) == ([], "NO_MATCH", [])
    assert httpserver.log == []  # the text stayed on the server


async def test_a_blank_or_long_text_is_refused(catalog, ws):
    for text in ("  ", "x" * 201):
        answer = await gql(catalog, ws.tokens["viewer"], SEARCH, {"text": text, "community": True})
        assert [p["field"] for p in problems(answer)] == ["text"]


# the directory -----------------------------------------------------------------------------


async def test_the_directory_is_asked_once_per_request(catalog, ws, httpserver):
    received = directory(httpserver, {})
    twice = """{ a: catalogSearch(text: "pdf", community: true) { status }
      b: catalogSearch(text: "xlsx", community: true) { status } }"""
    answer = await gql(catalog, ws.tokens["member"], twice)
    assert codes(answer) == ["SCHEMA_VALIDATION_FAILED"]
    assert answer.json()["errors"][0]["extensions"]["problems"][0]["message"] == (
        search.ONCE_PER_REQUEST
    )
    assert "xlsx" not in received  # the first may be cut short by the error, never sent twice
    ours = """{ a: catalogSearch(text: "pdf", community: true) { status }
      b: catalogSearch(text: "propose") { status } }"""
    assert data(await gql(catalog, ws.tokens["member"], ours))["b"] == {"status": "MATCHED"}


async def test_several_words_send_the_text_and_each_word_once(catalog, ws, httpserver):
    received = directory(httpserver, {})
    text = "find the xlsx skill for pdf charts docx"
    result = await found(catalog, ws.tokens["member"], text, community=True)
    assert sorted(received) == sorted([text, "xlsx", "pdf", "charts"])
    assert "find" not in received and "the" not in received and "docx" not in received
    assert result["sent"] == [text, "xlsx", "pdf", "charts"]
    assert (result["status"], result["communityStatus"]) == ("NO_MATCH", "OK")


async def test_a_skill_named_exactly_comes_first_then_the_most_installed(catalog, ws, httpserver):
    received = directory(
        httpserver,
        {
            "xlsx sheets": [skill("sheet-magic", 9000), skill("xlsx", 10)],
            "xlsx": [skill("xlsx", 11), skill("xlsx-pro", 500), skill("xlsx", 3, "other/repo")],
            "sheets": [skill("sheet-magic", 9000), skill("tiny", 1)],
        },
    )
    result = await found(catalog, ws.tokens["member"], "xlsx sheets", community=True)
    assert sorted(received) == ["sheets", "xlsx", "xlsx sheets"]
    ranked = [(h["source"], h["name"], h["installs"], h["exact"]) for h in result["results"]]
    assert ranked == [
        ("acme/skills", "xlsx", 10, True),
        ("other/repo", "xlsx", 3, True),
        ("acme/skills", "sheet-magic", 9000, False),
        ("acme/skills", "xlsx-pro", 500, False),
        ("acme/skills", "tiny", 1, False),
    ]
    assert {h["origin"] for h in result["results"]} == {"COMMUNITY"}


async def test_the_directory_down_with_no_result_says_unavailable(catalog, ws, httpserver):
    httpserver.expect_request("/api/search").respond_with_data("", status=503)
    result = await found(catalog, ws.tokens["member"], "xlsx", community=True)
    assert result["results"] == []
    assert (result["status"], result["ownStatus"], result["communityStatus"]) == (
        "UNAVAILABLE",
        "OK",
        "UNAVAILABLE",
    )


async def test_the_directory_down_keeps_our_own_results(catalog, ws, httpserver):
    httpserver.expect_request("/api/search").respond_with_data("", status=503)
    result = await found(catalog, ws.tokens["member"], "propose", community=True)
    assert names(result) == ["skillmem-propose-memory"]
    assert (result["status"], result["communityStatus"]) == ("MATCHED", "UNAVAILABLE")


async def test_one_word_answered_is_enough_for_the_directory_to_count(catalog, ws, httpserver):
    def half(request: Request) -> Response:
        if request.args["q"] != "xlsx":
            return Response("", status=503)
        body = {"query": "xlsx", "searchType": "fuzzy", "skills": [skill("xlsx", 4)]}
        return Response(orjson.dumps(body), content_type="application/json")

    httpserver.expect_request("/api/search").respond_with_handler(half)
    result = await found(catalog, ws.tokens["member"], "xlsx sheets", community=True)
    assert (names(result), result["communityStatus"]) == (["xlsx"], "OK")


async def test_a_slow_directory_times_out_and_our_results_stay(catalog, ws, httpserver):
    release = threading.Event()

    def slow(request: Request) -> Response:
        release.wait(10)
        body = {"query": "x", "searchType": "fuzzy", "skills": [skill("late", 1)]}
        return Response(orjson.dumps(body), content_type="application/json")

    httpserver.expect_request("/api/search").respond_with_handler(slow)
    try:
        result = await found(catalog, ws.tokens["member"], "write-skill", community=True)
    finally:
        release.set()
    assert names(result) == ["skillmem-write-skill"]
    assert (result["status"], result["communityStatus"]) == ("MATCHED", "UNAVAILABLE")


async def test_the_directory_still_answers_when_our_own_search_fails(
    catalog, ws, httpserver, monkeypatch
):
    def broken() -> Callable[[], object]:
        raise OSError("the shipped skills cannot be read")

    monkeypatch.setattr(search, "shipped_skills", broken)
    directory(httpserver, {"pdf": [skill("pdf", 12)]})
    result = await found(catalog, ws.tokens["member"], "pdf", community=True)
    assert names(result) == ["pdf"]
    assert (result["status"], result["ownStatus"], result["communityStatus"]) == (
        "MATCHED",
        "UNAVAILABLE",
        "OK",
    )
    alone = await found(catalog, ws.tokens["member"], "pdf")
    assert (alone["status"], alone["ownStatus"]) == ("UNAVAILABLE", "UNAVAILABLE")


# who may ask -------------------------------------------------------------------------------


async def test_an_agent_may_not_search_the_directory_directly(catalog, ws, httpserver):
    answer = await gql(catalog, ws.tokens["agent"], SEARCH, {"text": "pdf", "community": True})
    assert codes(answer) == ["FORBIDDEN"]
    assert "requestCatalogSearch" in answer.json()["errors"][0]["message"]
    assert httpserver.log == []
    own = await found(catalog, ws.tokens["agent"], "propose")
    assert names(own) == ["skillmem-propose-memory"]


# the HTTP route ----------------------------------------------------------------------------


async def test_the_route_answers_as_graphql_does(catalog, ws, httpserver):
    received = directory(httpserver, {"xlsx": [skill("xlsx", 7)]})
    answer = await catalog.get(
        "/v1/catalog/search",
        params={"q": "xlsx", "community": "true"},
        headers=bearer(ws.tokens["member"]),
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "results": [
            {
                "origin": "community",
                "name": "xlsx",
                "description": None,
                "source": "acme/skills",
                "skillId": "xlsx",
                "installs": 7,
                "exact": True,
            }
        ],
        "status": "matched",
        "ownStatus": "ok",
        "communityStatus": "ok",
        "sent": ["xlsx"],
    }
    assert received == ["xlsx"]
    own = await catalog.get(
        "/v1/catalog/search", params={"q": "propose"}, headers=bearer(ws.tokens["member"])
    )
    assert own.json()["communityStatus"] == "not_asked"
    assert received == ["xlsx"]


async def test_the_route_refuses_bad_parameters_and_an_agent(catalog, ws, httpserver):
    bad = await catalog.get(
        "/v1/catalog/search",
        params={"q": "", "community": "maybe"},
        headers=bearer(ws.tokens["member"]),
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert [p["field"] for p in bad.json()["error"]["problems"]] == ["q", "community"]
    agent = await catalog.get(
        "/v1/catalog/search",
        params={"q": "pdf", "community": "true"},
        headers=bearer(ws.tokens["agent"]),
    )
    assert (agent.status_code, agent.json()["error"]["code"]) == (403, "FORBIDDEN")
    assert httpserver.log == []
