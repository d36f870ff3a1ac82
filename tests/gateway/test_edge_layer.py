"""The edge as one ASGI layer (gateway/http/edge.py, issue 17): it answers exactly as the
separate layers did (Starlette's CORS, then the principal check, then the router), counts every
request under the same labels, echoes request ids, and reads a body whole, capped and within
its deadline (the timer only when the body is not all there: body.received)."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.types import Message

from gateway.app import create_app
from gateway.http.auth import PrincipalMiddleware
from gateway.http.body import BodyRefused, read_body, received
from gateway.http.cors import cors_for
from gateway.http.edge import Edge, vary_origin
from gateway.http.graphql import MAX_BODY_BYTES
from gateway.settings import Settings
from tests.factories import bearer, codes
from tests.gateway.server import serving_app
from tests.gateway.test_observe import SCRAPER, requests, scrape

APP = "http://localhost:5173"
OTHER = "https://elsewhere.example"
ME = b'{"query": "{ me { name } }"}'


def settings_for(**given: Any) -> Settings:
    return Settings(database_url=None, worker=False, cors_origins=APP, **given)


def layered(app: Starlette, settings: Settings) -> Starlette:
    """The app as it was built before the edge: Starlette's CORS, then the principal check
    as a layer of its own, then the router (no metrics: they answer nothing)."""
    app.user_middleware = [
        Middleware(lambda inner: cors_for(settings, inner)),  # type: ignore[arg-type]
        Middleware(PrincipalMiddleware, settings.introspection, settings.body_read_timeout),
    ]
    app.middleware_stack = None
    return app


@pytest.fixture
async def both(api_pool) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    settings = settings_for()
    edge = create_app(settings, pool=api_pool)
    assert [m.cls for m in edge.user_middleware] == [Edge]
    old = layered(create_app(settings, pool=api_pool), settings)
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=edge), base_url="http://t") as new,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=old), base_url="http://t") as before,
    ):
        yield new, before


def cases(token: str) -> list[tuple[str, str, dict[str, str], bytes]]:
    """(method, path, headers, body) of requests down every way through the edge."""
    json = {"content-type": "application/json", "x-request-id": "req-1"}
    signed = {**json, "authorization": f"Bearer {token}"}
    preflight = {"access-control-request-method": "POST", "x-request-id": "req-1"}
    found = [
        ("POST", "/graphql", signed, ME),
        ("POST", "/graphql", json, ME),
        ("POST", "/graphql", {**signed, "authorization": "Bearer smk_not_a_token"}, ME),
        ("POST", "/graphql", signed, b"{not json"),
        ("POST", "/graphql", signed, b"[1]"),
        ("POST", "/graphql", {**signed, "content-type": "text/plain"}, ME),
        ("POST", "/graphql", {**signed, "accept": "text/html"}, ME),
        ("GET", "/graphql?query=%7B%20me%20%7B%20name%20%7D%20%7D", signed, b""),
        ("HEAD", "/graphql?query=%7B%20me%20%7B%20name%20%7D%20%7D", signed, b""),
        ("DELETE", "/graphql", signed, b""),
        ("GET", "/healthz", json, b""),
        ("GET", "/no/such/route", signed, b""),
        ("GET", "/tenant/settings", signed, b""),
        ("PATCH", "/tenant/settings", signed, b"[]"),
        ("OPTIONS", "/graphql", preflight, b""),
        ("OPTIONS", "/graphql", {**preflight, "access-control-request-headers": "x-no"}, b""),
    ]
    with_origins = [
        (method, path, {**headers, "origin": origin}, body)
        for method, path, headers, body in found
        for origin in (APP, OTHER)
    ]
    return found + with_origins


async def test_the_edge_answers_exactly_as_the_separate_layers_did(both, ws):
    new, before = both
    for method, path, headers, body in cases(ws.tokens["member"]):
        given = {"headers": headers, "content": body or None}
        ours = await new.request(method, path, **given)  # type: ignore[arg-type]
        theirs = await before.request(method, path, **given)  # type: ignore[arg-type]
        where = f"{method} {path} {headers}"
        assert ours.status_code == theirs.status_code, where
        assert ours.headers.raw == theirs.headers.raw, where
        assert ours.content == theirs.content, where


async def test_a_preflight_is_answered_before_the_token_and_carries_no_request_id(both):
    new, _ = both
    answer = await new.options(
        "/graphql", headers={"origin": APP, "access-control-request-method": "POST"}
    )
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == APP
    assert "x-request-id" not in answer.headers
    refused = await new.options(
        "/graphql", headers={"origin": OTHER, "access-control-request-method": "POST"}
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "FORBIDDEN"
    assert "access-control-allow-origin" not in refused.headers


async def test_a_simple_request_gets_cors_headers_only_from_an_allowed_origin(both, ws):
    new, _ = both
    signed = bearer(ws.tokens["member"], **{"content-type": "application/json"})
    allowed = await new.post("/graphql", content=ME, headers={**signed, "origin": APP})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == APP
    assert allowed.headers["vary"] == "Origin"
    plain = await new.post("/graphql", content=ME, headers=signed)
    assert "access-control-allow-origin" not in plain.headers
    assert plain.headers["vary"] == "Origin"  # a cache never serves one origin's to another
    got = await new.get("/graphql", params={"query": "{ me { name } }"}, headers=signed)
    assert got.status_code == 200
    assert got.headers.get_list("vary") == ["Authorization, Accept, Origin"]


async def test_the_request_id_is_echoed_or_made(both, ws):
    new, _ = both
    signed = bearer(ws.tokens["member"], **{"content-type": "application/json"})
    echoed = await new.post("/graphql", content=ME, headers={**signed, "x-request-id": "abc-9"})
    assert echoed.headers.get_list("x-request-id") == ["abc-9"]
    made = await new.post("/graphql", content=ME, headers=signed)
    assert len(made.headers["x-request-id"]) == 32
    refused = await new.post("/graphql", content=ME, headers={"x-request-id": "abc-10"})
    assert refused.status_code == 401
    assert refused.headers["x-request-id"] == "abc-10"
    assert codes(refused) == ["UNAUTHENTICATED"]


async def test_every_request_is_counted_under_its_route_operation_and_status(api_pool, ws):
    app = create_app(settings_for(metrics_token=SecretStr(SCRAPER)), pool=api_pool)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        before = await scrape(client)
        signed = bearer(ws.tokens["member"], **{"content-type": "application/json"})
        body = b'{"query": "query Edge1 { me { name } }"}'
        assert (await client.post("/graphql", content=body, headers=signed)).status_code == 200
        got = await client.get("/graphql", params={"query": "query Edge2 { me { name } }"},
                               headers=signed)  # fmt: skip
        assert got.status_code == 200
        assert (await client.delete("/graphql", headers=signed)).status_code == 405
        preflight = {"origin": APP, "access-control-request-method": "POST"}
        assert (await client.options("/graphql", headers=preflight)).status_code == 200
        assert (await client.get("/v1/search", headers=signed)).status_code == 200
        after = await scrape(client)

    def grew(key: tuple[str, tuple[tuple[str, str], ...]]) -> float:
        return after.get(key, 0) - before.get(key, 0)

    assert grew(requests("/graphql", "Edge1", "200")) == 1
    assert grew(requests("/graphql", "Edge2", "200")) == 1
    assert grew(requests("unmatched", "", "405")) == 1  # no route answers DELETE /graphql
    assert grew(requests("unmatched", "", "200")) >= 1  # a preflight: OPTIONS has no route
    assert grew(requests("/v1/search", "", "200")) == 1


async def test_a_body_too_large_is_refused_with_the_request_id_and_cors(both, ws):
    new, _ = both
    signed = bearer(ws.tokens["member"], origin=APP, **{"content-type": "application/json"})

    async def stream() -> AsyncIterator[bytes]:
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b" " * 65536

    answer = await new.post("/graphql", content=stream(), headers=signed)
    assert answer.status_code == 413
    assert codes(answer) == ["GRAPHQL_PARSE_FAILED"]
    assert answer.headers["access-control-allow-origin"] == APP
    assert "x-request-id" in answer.headers


async def test_a_chunked_body_arriving_slowly_within_its_deadline_is_read_whole(api_pool, ws):
    app = create_app(settings_for(body_read_timeout=2.0), pool=api_pool)

    async def chunks() -> AsyncIterator[bytes]:
        for index in range(0, len(ME), 5):
            yield ME[index : index + 5]
            await asyncio.sleep(0.01)

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        signed = bearer(ws.tokens["member"], **{"content-type": "application/json"})
        answer = await client.post("/graphql", content=chunks(), headers=signed)
    assert answer.status_code == 200, answer.text
    assert answer.json()["data"]["me"]["name"]


async def test_a_client_gone_before_its_body_is_answered_nothing(api_pool, ws):
    app = create_app(settings_for(), pool=api_pool)
    sent: list[Message] = []
    idle = api_pool.get_idle_size()

    async def gone() -> Message:
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/graphql",
        "raw_path": b"/graphql",
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"authorization", f"Bearer {ws.tokens['member']}".encode()),
            (b"content-type", b"application/json"),
        ],
        "server": ("t", 80),
        "client": ("127.0.0.1", 1),
        "state": {},
    }
    await app(scope, gone, send)
    assert sent == []
    assert api_pool.get_idle_size() == idle  # no connection was taken for it


# --- the body read by hand ----------------------------------------------------------------------


def receiving(*messages: Message, wait: float = 0.0) -> Any:
    """A ``receive`` handing out ``messages``, each after ``wait`` seconds (0: at once)."""
    queue = list(messages)

    async def receive() -> Message:
        if wait:
            await asyncio.sleep(wait)
        return queue.pop(0)

    return receive


async def test_a_body_all_there_is_received_without_waiting():
    message = received(receiving({"type": "http.request", "body": b"x"}))
    assert message == {"type": "http.request", "body": b"x"}
    pending = received(receiving({"type": "http.request", "body": b"y"}, wait=0.01))
    assert not isinstance(pending, dict)
    assert await pending == {"type": "http.request", "body": b"y"}  # type: ignore[misc]


async def test_chunks_are_joined_whether_there_or_waited_for():
    parts = [
        {"type": "http.request", "body": b"ab", "more_body": True},
        {"type": "http.request", "body": b"cd", "more_body": True},
        {"type": "http.request", "body": b"e", "more_body": False},
    ]
    assert await read_body(receiving(*parts), 10, 1.0) == b"abcde"
    assert await read_body(receiving(*parts, wait=0.01), 10, 1.0) == b"abcde"


@pytest.mark.parametrize("wait", [0.0, 0.01])
async def test_a_body_past_its_cap_is_refused_with_413(wait):
    parts = [{"type": "http.request", "body": b"abc", "more_body": True}] * 4
    with pytest.raises(BodyRefused) as refused:
        await read_body(receiving(*parts, wait=wait), 10, 1.0)
    assert refused.value.status == 413
    assert "larger than 10 bytes" in refused.value.message


@pytest.mark.parametrize("wait", [0.0, 0.01])
async def test_a_disconnect_is_refused_with_499(wait):
    parts = [
        {"type": "http.request", "body": b"ab", "more_body": True},
        {"type": "http.disconnect"},
    ]
    with pytest.raises(BodyRefused) as refused:
        await read_body(receiving(*parts, wait=wait), 10, 1.0)
    assert refused.value.status == 499


async def test_a_slow_body_times_out_with_408_and_its_receive_is_cancelled():
    cancelled = asyncio.Event()
    first = True

    async def receive() -> Message:
        nonlocal first
        if first:
            first = False
            return {"type": "http.request", "body": b"ab", "more_body": True}
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {"type": "http.request", "body": b"", "more_body": False}

    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(BodyRefused) as refused:
        await read_body(receive, 10, 0.05)
    assert refused.value.status == 408
    assert refused.value.message == "The request body did not arrive within 0.05 s."
    assert cancelled.is_set()
    assert 0.04 <= loop.time() - started < 1.0
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


def test_vary_gains_origin_in_one_header():
    none: list[tuple[bytes, bytes]] = [(b"a", b"1")]
    vary_origin(none)
    assert none == [(b"a", b"1"), (b"vary", b"Origin")]
    two = [(b"vary", b"Accept"), (b"x", b"1"), (b"vary", b"Authorization")]
    vary_origin(two)
    assert two == [(b"vary", b"Accept, Authorization, Origin"), (b"x", b"1")]


# --- under uvicorn: its receive, stepped by hand ------------------------------------------------


def exchange(base_url: str, head: bytes, parts: list[bytes], pause: float) -> bytes:
    """``head`` then each of ``parts`` on one socket, ``pause`` seconds apart; the answer."""
    port = int(base_url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head)
        for part in parts:
            time.sleep(pause)
            conn.sendall(part)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer


def test_bodies_whole_split_or_stalled_under_uvicorn(dsn, ws):
    head = (
        b"POST /graphql HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + ws.tokens["member"].encode() + b"\r\n"
        b"X-Request-Id: slow-1\r\nContent-Length: " + str(len(ME)).encode() + b"\r\n\r\n"
    )
    with serving_app(dsn, body_read_timeout=0.5) as (base_url, _):
        whole = exchange(base_url, head + ME, [], 0)
        split = exchange(base_url, head, [ME[:10], ME[10:]], 0.1)
        started = time.monotonic()
        stalled = exchange(base_url, head, [ME[:10]], 0)
        waited = time.monotonic() - started
    for answer in (whole, split):
        assert answer.startswith(b"HTTP/1.1 200"), answer
        assert b'"me":{"name"' in answer
    assert stalled.startswith(b"HTTP/1.1 408"), stalled
    assert b"x-request-id: slow-1" in stalled.lower()
    assert b"GRAPHQL_PARSE_FAILED" in stalled
    assert b"did not arrive within 0.5" in stalled  # plus the declared length's allowance
    assert 0.4 <= waited < 5.0
