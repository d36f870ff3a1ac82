"""A request's body is read whole, capped and within a deadline, before the request takes a
database connection: a slow or endless client holds a socket, never the pool."""

from __future__ import annotations

import asyncio
import re
import types
from collections.abc import Awaitable, Coroutine, Generator
from typing import Any

from starlette.types import Message, Receive

from gateway.http.dreamer import MAX_MEETING_BODY_BYTES, MAX_MESSAGE_BODY_BYTES
from gateway.http.graphql import MAX_BODY_BYTES as MAX_GRAPHQL_BODY_BYTES
from gateway.http.mail import MAX_MAIL_BODY_BYTES
from gateway.http.records import MAX_RECORDS_BODY_BYTES
from gateway.http.responses import MAX_JSON_BODY_BYTES
from resolvers.skills.archive.limits import MAX_ARCHIVE_BYTES

# Multipart's part headers around an upload's files; a memory's JSON at worst.
MULTIPART_OVERHEAD = 4 * 1024 * 1024
MAX_MEMORY_BODY_BYTES = 1024 * 1024
# Each route's cap on its body, read before anything else: a route not named takes a small JSON
# body (settings, preferences, a souvenir's deletion, export options).
ROUTE_BODY_CAPS = {
    "/graphql": MAX_GRAPHQL_BODY_BYTES,
    "/v1/records": MAX_RECORDS_BODY_BYTES,
    "/skills/import": MAX_ARCHIVE_BYTES,
    "/v1/meetings": MAX_MEETING_BODY_BYTES,
}
# ... and the routes with a parameter in their path.
ROUTE_PATTERN_BODY_CAPS = (
    (re.compile(r"/agents/sessions/[^/]+/messages"), MAX_MESSAGE_BODY_BYTES),
    (re.compile(r"/v1/mailboxes/[^/]+/messages"), MAX_MAIL_BODY_BYTES),
    # The SDK's skill uploads (a folder as multipart parts) and a memory store's memory (102,400
    # bytes of text, each character escaped in JSON at worst).
    (re.compile(r"/v1/skills(/[^/]+/versions)?"), MAX_ARCHIVE_BYTES + MULTIPART_OVERHEAD),
    (re.compile(r"/v1/memory_stores/[^/]+/memories(/[^/]+)?"), MAX_MEMORY_BODY_BYTES),
)
# A body may take the settings' body_read_timeout, plus one second for each
# MIN_UPLOAD_BYTES_PER_SECOND it declares: an honest slow upload of a large archive arrives, an
# endless one does not.
MIN_UPLOAD_BYTES_PER_SECOND = 64 * 1024


def body_cap(path: str) -> int:
    """The most bytes the route at ``path`` accepts."""
    if path in ROUTE_BODY_CAPS:
        return ROUTE_BODY_CAPS[path]
    for pattern, cap in ROUTE_PATTERN_BODY_CAPS:
        if pattern.fullmatch(path):
            return cap
    return MAX_JSON_BODY_BYTES


def read_deadline(seconds: float, declared_length: int) -> float:
    """Seconds a body of ``declared_length`` bytes (0: not declared) may take to arrive."""
    return seconds + declared_length / MIN_UPLOAD_BYTES_PER_SECOND


class BodyRefused(Exception):
    """The body was not read: too large, too slow, or the client went away."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Resumed:
    """The rest of a coroutine already stepped once, awaited as if it had not been: the value it
    yielded goes up to the task first, then it runs on as ``await`` would run it."""

    def __init__(self, coroutine: Coroutine[Any, Any, Message], yielded: Any) -> None:
        self.coroutine = coroutine
        self.yielded = yielded

    def __await__(self) -> Generator[Any, Any, Message]:
        yielded = self.yielded
        while True:
            try:
                sent = yield yielded
            except GeneratorExit:
                self.coroutine.close()
                raise
            except BaseException as error:  # a cancellation (the timeout's) goes in too
                try:
                    yielded = self.coroutine.throw(error)
                except StopIteration as done:
                    return done.value  # type: ignore[no-any-return]
            else:
                try:
                    yielded = self.coroutine.send(sent)
                except StopIteration as done:
                    return done.value  # type: ignore[no-any-return]


def received(receive: Receive) -> Message | Awaitable[Message]:
    """The next message when ``receive`` has it already (a body all there: no timer needed),
    else what to await for it. ``receive`` is stepped by hand, once: should it wait, the rest
    of that same call is what is awaited (nothing is lost, nothing asked twice)."""
    pending = receive()
    if not isinstance(pending, types.CoroutineType):
        return pending
    try:
        yielded = pending.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    return _Resumed(pending, yielded)


async def read_body(receive: Receive, limit: int, seconds: float) -> bytes:
    """The whole body, or BodyRefused (413 past ``limit`` bytes, 408 past ``seconds``,
    499 when the client disconnects). The deadline's timer starts only once a message is not
    there yet (nothing ran before that could take time): a body that arrived whole (most) is
    read without one."""
    chunks: list[bytes] = []
    size = 0
    deadline: float | None = None
    while True:
        pending = received(receive)
        if isinstance(pending, Awaitable):
            if deadline is None:  # the first wait: the deadline counts from now
                deadline = asyncio.get_running_loop().time() + seconds
            try:
                async with asyncio.timeout_at(deadline):
                    message = await pending
            except TimeoutError:
                message_text = f"The request body did not arrive within {seconds:g} s."
                raise BodyRefused(408, message_text) from None
        else:
            message = pending
        if message["type"] == "http.disconnect":
            raise BodyRefused(499, "The client went away.")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyRefused(413, f"The request body is larger than {limit} bytes.")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then the client's own messages
    (a disconnect)."""
    pending = True

    async def again() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
