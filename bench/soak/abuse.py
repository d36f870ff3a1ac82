"""Abusive clients: a query too deep, too many aliases, a body too large, malformed JSON, a NUL,
a body sent a byte at a time, and websocket connections that never present a valid token. Each
refusal is timed as an outcome of kind ``abuse:<what>``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Coroutine
from typing import Any

import httpx
import websockets

from bench.soak.traffic import Outcome, Traffic, classify

DEEP = "{ " + "a { " * 120 + "b" + " }" * 120 + " }"
ALIASED = "{ " + " ".join(f"a{i}: me {{ name }}" for i in range(200)) + " }"
HUGE = b'{"query": "{ me { name } }", "pad": "' + b"x" * (2 * 1024 * 1024) + b'"}'
MALFORMED = b'{"query": "{ me { name } }", '
NUL = b'{"query": "{ me { name } }", "variables": {"x": "a\\u0000b"}}'

BODIES: dict[str, bytes] = {
    "deep": f'{{"query": "{DEEP}"}}'.encode(),
    "aliased": f'{{"query": "{ALIASED}"}}'.encode(),
    "huge": HUGE,
    "malformed": MALFORMED,
    "nul": NUL,
}
SLOW_BODY_BYTES = 400


async def bodies(
    base_url: str, token: str, deadline: float, traffic: Traffic, pause: float
) -> None:
    """The bad bodies in turn on one connection until ``deadline``."""
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
        while time.monotonic() < deadline:
            for kind, body in BODIES.items():
                began = time.monotonic()
                try:
                    answer = await client.post("/graphql", content=body, headers=headers)
                    status, code = answer.status_code, classify(answer.status_code, answer.content)
                except httpx.HTTPError as error:
                    status, code = 0, type(error).__name__
                seconds = time.monotonic() - began
                traffic.outcomes.append(Outcome(f"abuse:{kind}", began, seconds, status, code))
                await asyncio.sleep(pause)


async def slow_body(port: int, token: str, deadline: float, traffic: Traffic) -> None:
    """A POST whose body comes a byte every 100 ms, until the server answers; again until
    ``deadline``. Timed from the headers to the answer."""
    while time.monotonic() < deadline:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = (
            f"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {SLOW_BODY_BYTES}\r\n\r\n"
        )
        began = time.monotonic()
        writer.write(head.encode())
        answered = asyncio.ensure_future(reader.readuntil(b"\r\n\r\n"))
        try:
            for _ in range(SLOW_BODY_BYTES - 1):
                if answered.done() or time.monotonic() > deadline + 60:
                    break
                writer.write(b" ")
                with contextlib.suppress(ConnectionError):
                    await writer.drain()
                await asyncio.wait([answered], timeout=0.1)
            status_line = await asyncio.wait_for(answered, 60)
            status = int(status_line[9:12])
            code = "REQUEST_TIMEOUT" if status == 408 else f"HTTP {status}"
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError) as error:
            status, code = 0, type(error).__name__
        finally:
            answered.cancel()
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
        traffic.outcomes.append(
            Outcome("abuse:slow_body", began, time.monotonic() - began, status, code)
        )


async def websocket_flood(port: int, deadline: float, traffic: Traffic, pause: float) -> None:
    """WebSocket connections on /graphql, each with a token that is not one: closed 4403."""
    url = f"ws://127.0.0.1:{port}/graphql"
    while time.monotonic() < deadline:
        began = time.monotonic()
        code = "not closed"
        try:
            async with websockets.connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
                await ws.send('{"type": "connection_init", "payload": {"token": "smk_no"}}')
                with contextlib.suppress(websockets.ConnectionClosed):
                    await asyncio.wait_for(ws.recv(), 10)
                await asyncio.wait_for(ws.wait_closed(), 10)
                code = f"WS {ws.close_code}"
        except (OSError, websockets.WebSocketException, TimeoutError) as error:
            code = type(error).__name__
        seconds = time.monotonic() - began
        traffic.outcomes.append(Outcome("abuse:websocket", began, seconds, 0, code))
        await asyncio.sleep(pause)


async def abuse(
    base_url: str, port: int, token: str, seconds: float, traffic: Traffic, lanes: int = 2
) -> None:
    """``lanes`` of bad bodies, one slow body and ``lanes`` websocket flooders for ``seconds``."""
    deadline = time.monotonic() + seconds
    tasks: list[Coroutine[Any, Any, None]] = [
        *(bodies(base_url, token, deadline, traffic, 0.02) for _ in range(lanes)),
        slow_body(port, token, deadline, traffic),
        *(websocket_flood(port, deadline, traffic, 0.02) for _ in range(lanes)),
    ]
    await asyncio.gather(*tasks)
