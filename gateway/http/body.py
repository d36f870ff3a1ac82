"""A request's body is read whole, capped and within a deadline, before the request takes a
database connection: a slow or endless client holds a socket, never the pool."""

from __future__ import annotations

import asyncio

from starlette.types import Message, Receive

from resolvers.skills.archive.limits import MAX_ARCHIVE_BYTES

# The largest body any route accepts (an archive upload); each route then applies its own cap.
MAX_REQUEST_BODY_BYTES = MAX_ARCHIVE_BYTES
# How long a client may take to send a whole body (settings: body_read_timeout).
BODY_READ_TIMEOUT_SECONDS = 30.0


class BodyRefused(Exception):
    """The body was not read: too large, too slow, or the client went away."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_body(receive: Receive, limit: int, seconds: float) -> bytes:
    """The whole body, or BodyRefused (413 past ``limit`` bytes, 408 past ``seconds``,
    499 when the client disconnects)."""
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise BodyRefused(499, "The client went away.")
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise BodyRefused(413, f"The request body is larger than {limit} bytes.")
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)
    except TimeoutError:
        message_text = f"The request body did not arrive within {seconds:g} s."
        raise BodyRefused(408, message_text) from None


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
