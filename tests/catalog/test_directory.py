"""The community directory client against a local fake directory: the answer read, a malformed
one refused with every problem, the directory down or slow, retries on 5xx, the size cap."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from resolvers.catalog.directory import search_directory
from resolvers.catalog.errors import CatalogError
from resolvers.catalog.settings import CatalogSettings
from tests.catalog.fakes import catalog_settings

ANSWER = {
    "query": "pdf",
    "searchType": "fuzzy",
    "skills": [
        {
            "id": "anthropics/skills/pdf",
            "skillId": "pdf",
            "name": "pdf",
            "installs": 1234,
            "source": "anthropics/skills",
            "extra": "ignored",
        }
    ],
}


async def test_a_search_answer_is_read_and_sends_exactly_the_text(httpserver: HTTPServer):
    httpserver.expect_request(
        "/api/search", query_string={"q": "fill a pdf", "limit": "5"}
    ).respond_with_json(ANSWER)
    answer = await search_directory(catalog_settings(httpserver), "fill a pdf", limit=5)
    assert answer.query == "pdf"
    assert [(s.skillId, s.installs, s.source) for s in answer.skills] == [
        ("pdf", 1234, "anthropics/skills")
    ]
    httpserver.check_assertions()


async def test_a_malformed_answer_is_refused_with_every_problem(httpserver: HTTPServer):
    bad = {
        "query": "pdf",
        "skills": [{"id": "x", "skillId": "x", "name": "x", "installs": -1, "source": "../x"}],
    }
    httpserver.expect_request("/api/search").respond_with_json(bad)
    with pytest.raises(CatalogError) as caught:
        await search_directory(catalog_settings(httpserver), "pdf")
    error = caught.value
    assert error.reason == "refused"
    assert error.message == "the community directory's answer is malformed"
    assert sorted(p.field or "" for p in error.problems) == [
        "searchType",
        "skills/0/installs",
        "skills/0/source",
    ]


async def test_an_answer_that_is_not_json_is_refused(httpserver: HTTPServer):
    httpserver.expect_request("/api/search").respond_with_data("<html>busy</html>")
    with pytest.raises(CatalogError) as caught:
        await search_directory(catalog_settings(httpserver), "pdf")
    assert (caught.value.reason, caught.value.message) == (
        "refused",
        "the community directory's answer is not JSON",
    )


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_the_directory_down_is_unavailable():
    url = f"http://127.0.0.1:{_closed_port()}"
    settings = CatalogSettings(directory_base_url=url, max_retries=1, backoff=0.01)
    with pytest.raises(CatalogError) as caught:
        await search_directory(settings, "pdf")
    assert (caught.value.reason, caught.value.message) == (
        "unavailable",
        "the community directory is unavailable: it could not be reached",
    )


async def test_a_slow_directory_times_out_clearly(httpserver: HTTPServer):
    release = threading.Event()

    def slow(request: Request) -> Response:
        release.wait(10)
        return Response("{}", content_type="application/json")

    httpserver.expect_request("/api/search").respond_with_handler(slow)
    settings = catalog_settings(httpserver, timeout=0.2, max_retries=0)
    with pytest.raises(CatalogError) as caught:
        await search_directory(settings, "pdf")
    release.set()
    assert (caught.value.reason, caught.value.message) == (
        "unavailable",
        "the community directory is unavailable: no answer within 0.2 s",
    )


async def test_a_trickling_directory_is_cut_at_the_deadline_of_the_whole_attempt(
    httpserver: HTTPServer,
):
    release = threading.Event()

    def trickle() -> Iterator[bytes]:
        for _ in range(30):  # a byte at a time: no read ever waits long
            if release.wait(0.1):
                break
            yield b" "
        yield b'{"query": "pdf", "searchType": "fuzzy", "skills": []}'

    httpserver.expect_request("/api/search").respond_with_response(
        Response(trickle(), content_type="application/json")
    )
    settings = catalog_settings(httpserver, timeout=0.5, max_retries=0)
    with pytest.raises(CatalogError) as caught:
        await search_directory(settings, "pdf")
    release.set()
    assert (caught.value.reason, caught.value.message) == (
        "unavailable",
        "the community directory is unavailable: no answer within 0.5 s",
    )


async def test_a_5xx_is_retried_with_backoff_until_it_answers(httpserver: HTTPServer):
    statuses = iter([503, 500])
    asked: list[str] = []

    def flaky(request: Request) -> Response:
        asked.append(request.full_path)
        status = next(statuses, 200)
        body = '{"query": "pdf", "searchType": "fuzzy", "skills": []}' if status == 200 else ""
        return Response(body, status=status, content_type="application/json")

    httpserver.expect_request("/api/search").respond_with_handler(flaky)
    answer = await search_directory(catalog_settings(httpserver, max_retries=2), "pdf")
    assert answer.skills == []
    assert asked == ["/api/search?q=pdf&limit=20"] * 3


async def test_a_5xx_past_the_retries_is_unavailable(httpserver: HTTPServer):
    httpserver.expect_request("/api/search").respond_with_data("", status=502)
    with pytest.raises(CatalogError) as caught:
        await search_directory(catalog_settings(httpserver, max_retries=1), "pdf")
    assert (caught.value.reason, caught.value.message) == (
        "unavailable",
        "the community directory is unavailable: it answered HTTP 502",
    )
    assert len(httpserver.log) == 2


async def test_a_4xx_is_not_retried(httpserver: HTTPServer):
    httpserver.expect_request("/api/search").respond_with_data("", status=403)
    with pytest.raises(CatalogError) as caught:
        await search_directory(catalog_settings(httpserver), "pdf")
    assert caught.value.reason == "unavailable"
    assert len(httpserver.log) == 1


async def test_a_declared_body_over_the_cap_is_refused(httpserver: HTTPServer):
    httpserver.expect_request("/api/search").respond_with_data("x" * 5000)
    with pytest.raises(CatalogError) as caught:
        await search_directory(catalog_settings(httpserver, max_json_bytes=4096), "pdf")
    assert (caught.value.reason, caught.value.message) == (
        "refused",
        "the community directory is more than the limit of 4096 bytes",
    )


async def test_an_endless_body_is_cut_at_the_cap(httpserver: HTTPServer):
    def endless() -> Iterator[bytes]:
        while True:
            yield b"x" * 1024

    httpserver.expect_request("/api/search").respond_with_response(
        Response(endless(), content_type="application/json")
    )
    settings = catalog_settings(httpserver, max_json_bytes=64 * 1024, timeout=5.0)
    with pytest.raises(CatalogError) as caught:
        await search_directory(settings, "pdf")
    assert (caught.value.reason, caught.value.message) == (
        "refused",
        "the community directory is more than the limit of 65536 bytes",
    )


async def test_a_declared_length_over_the_cap_is_refused_before_the_body_is_read(
    httpserver: HTTPServer,
):
    release = threading.Event()

    def stalled() -> Iterator[bytes]:
        yield b"{"
        release.wait(10)  # read past this first byte, the client would wait for its timeout
        yield b"}" * 9999

    httpserver.expect_request("/api/search").respond_with_response(
        Response(stalled(), headers={"Content-Length": "10000"}, content_type="application/json")
    )
    settings = catalog_settings(httpserver, max_json_bytes=4096, timeout=0.5, max_retries=0)
    with pytest.raises(CatalogError) as caught:
        await search_directory(settings, "pdf")
    release.set()
    assert (caught.value.reason, caught.value.message) == (
        "refused",
        "the community directory is more than the limit of 4096 bytes",
    )


async def test_a_bad_text_or_limit_is_refused_before_anything_leaves(httpserver: HTTPServer):
    with pytest.raises(CatalogError) as caught:
        await search_directory(catalog_settings(httpserver), " ", limit=0)
    assert [p.field for p in caught.value.problems] == ["text", "limit"]
    assert httpserver.log == []
