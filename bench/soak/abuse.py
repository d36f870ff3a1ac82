"""Abusive clients: a query too deep, too many aliases, a body too large, malformed JSON, a NUL,
a body sent a byte at a time, and websocket connections that never present a valid token. Each
kind is sent at a fixed rate in an open loop (as an attacker sends, whatever the answers take);
each refusal is timed as an outcome of kind ``abuse:<what>``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine, Sequence
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
# The attacker's rate: this many bad requests a second of each kind (six kinds: 120 a second in
# all, about a third of the normal traffic's requests on two cores).
RATE_PER_KIND = 20.0
# Requests of one kind under way at once, at most; and the connections the attacker's HTTP
# client may hold (its requests never wait for one).
IN_FLIGHT = 4
CONNECTIONS = 64
Sent = Callable[[], Coroutine[Any, Any, None]]


async def paced(rate: float, delay: float, deadline: float, send: Sent) -> None:
    """``send()`` every ``1/rate`` seconds from ``delay`` on until ``deadline``, each without
    waiting for the ones before (an open loop: a slow answer does not slow the attacker), but
    never more than IN_FLIGHT at once: an attacker on the machine it attacks would otherwise
    time its own backlog when it is short of CPU, not the gateway's answers."""
    interval = 1.0 / rate
    next_at = time.monotonic() + delay
    room = asyncio.Semaphore(IN_FLIGHT)
    sent: list[asyncio.Task[None]] = []

    async def one() -> None:
        try:
            await send()
        finally:
            room.release()

    while next_at < deadline:
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        await room.acquire()
        sent.append(asyncio.create_task(one()))
        # Late (the room was full): the next one an interval from now, no burst to catch up.
        next_at = max(next_at + interval, time.monotonic())
    await asyncio.gather(*sent)


async def bad_body(client: httpx.AsyncClient, kind: str, token: str, traffic: Traffic) -> None:
    """One bad body of ``kind``, its refusal timed."""
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    began = time.monotonic()
    try:
        answer = await client.post("/graphql", content=BODIES[kind], headers=headers)
        status, code = answer.status_code, classify(answer.status_code, answer.content)
    except httpx.HTTPError as error:
        status, code = 0, type(error).__name__
    seconds = time.monotonic() - began
    traffic.outcomes.append(Outcome(f"abuse:{kind}", began, seconds, status, code))


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


async def websocket_attempt(port: int, traffic: Traffic) -> None:
    """One WebSocket connection on /graphql with a token that is not one: closed 4403."""
    url = f"ws://127.0.0.1:{port}/graphql"
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


async def abuse(
    base_url: str,
    port: int,
    token: str,
    seconds: float,
    traffic: Traffic,
    rate: float,
    only: Sequence[str] = (),
) -> None:
    """For ``seconds``: each bad body and a WebSocket connection with a false token at ``rate``
    a second each (staggered, so that the kinds do not arrive together), and one slow body at
    a time; ``only``: these kinds alone ("slow_body" among them), to see what each costs."""
    deadline = time.monotonic() + seconds
    kinds = [k for k in (*BODIES, "websocket") if not only or k in only]
    limits = httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS)
    async with httpx.AsyncClient(base_url=base_url, timeout=10, limits=limits) as client:

        def sender(kind: str) -> Sent:
            if kind == "websocket":
                return lambda: websocket_attempt(port, traffic)
            return lambda: bad_body(client, kind, token, traffic)

        tasks: list[Coroutine[Any, Any, None]] = [
            paced(rate, i / (rate * len(kinds)), deadline, sender(kind))
            for i, kind in enumerate(kinds)
        ]
        if not only or "slow_body" in only:
            tasks.append(slow_body(port, token, deadline, traffic))
        await asyncio.gather(*tasks)
