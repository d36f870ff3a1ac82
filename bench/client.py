"""A light HTTP/1.1 load generator: keep-alive connections on raw sockets, to 127.0.0.1 only.

Each connection sends one pre-built request, reads the response head and a Content-Length
body, and repeats until the deadline (or the request cap). Every run is bounded in time and
count, and the host is fixed to the loopback address.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

HOST = "127.0.0.1"
REQUEST_TIMEOUT = 30.0
MAX_REQUESTS = 2_000_000


class HTTPError(Exception):
    """A response this client cannot read."""


def post(port: int, path: str, body: bytes, token: str) -> bytes:
    """The bytes of a keep-alive JSON POST with a bearer token."""
    head = (
        f"POST {path} HTTP/1.1\r\n"
        f"Host: {HOST}:{port}\r\n"
        f"Authorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\n"
        "Accept: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "\r\n"
    )
    return head.encode() + body


def get(port: int, path: str) -> bytes:
    """The bytes of a keep-alive GET."""
    return f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode()


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, bytes]:
    """Send one request on an open connection; return the status and the body."""
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    try:
        status = int(head[9:12])
    except ValueError:
        raise HTTPError(f"bad status line {head[:40]!r}") from None
    lower = head.lower()
    start = lower.find(b"\r\ncontent-length:")
    if start < 0:
        raise HTTPError("response without Content-Length")
    end = lower.index(b"\r\n", start + 2)
    length = int(lower[start + 17 : end])
    return status, await reader.readexactly(length)


async def fetch(port: int, request: bytes) -> tuple[int, bytes]:
    """One request on a connection of its own."""
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        async with asyncio.timeout(REQUEST_TIMEOUT):
            return await exchange(reader, writer, request)
    finally:
        writer.close()
        await writer.wait_closed()


@dataclass(slots=True)
class Run:
    """What one timed run measured."""

    latencies_ns: list[int] = field(default_factory=list)
    errors: int = 0
    seconds: float = 0.0
    client_cpu_seconds: float = 0.0


async def load(
    port: int,
    request: bytes | Callable[[], bytes],
    concurrency: int,
    seconds: float,
    max_requests: int = MAX_REQUESTS,
) -> Run:
    """Send ``request`` (the same bytes, or new bytes from a callable each time) from
    ``concurrency`` connections for ``seconds``; time each one."""
    run = Run()
    deadline = time.perf_counter() + seconds
    clock = time.perf_counter_ns

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            while time.perf_counter() < deadline and len(run.latencies_ns) < max_requests:
                sent = request() if callable(request) else request
                began = clock()
                async with asyncio.timeout(REQUEST_TIMEOUT):
                    status, _ = await exchange(reader, writer, sent)
                run.latencies_ns.append(clock() - began)
                if status != 200:
                    run.errors += 1
        finally:
            writer.close()
            await writer.wait_closed()

    cpu = time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    run.seconds = time.perf_counter() - started
    run.client_cpu_seconds = time.process_time() - cpu
    return run
