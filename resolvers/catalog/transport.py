"""The one way the catalogue reaches outside (httpx, async): a GET with a deadline per attempt
(the whole body included), retries with backoff on a lost connection, a timeout, 429 and 5xx
(every call here is a GET, idempotent), and a body cap enforced while streaming: a declared
length over the cap is refused before reading, a body growing past it is cut there."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx

from resolvers.catalog.errors import CatalogError, not_found, refused, unavailable
from resolvers.catalog.settings import CatalogSettings

RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class Fetched:
    """A body read whole (under its cap), and the answer's content type."""

    url: str
    body: bytes
    content_type: str


class _Retry(Exception):
    """One attempt failed in a way worth another (its message says why)."""


async def get(
    settings: CatalogSettings,
    url: str,
    *,
    cap: int,
    what: str,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> Fetched:
    """The body at ``url``: ``CatalogError`` not_found on 404, unavailable when it could not be
    had after the retries, refused over ``cap``."""
    why = ""
    async with httpx.AsyncClient(
        timeout=settings.timeout, follow_redirects=True, headers=headers
    ) as client:
        for attempt in range(settings.max_retries + 1):
            if attempt:
                await asyncio.sleep(settings.delay(attempt))
            try:
                async with asyncio.timeout(settings.timeout):
                    return await _attempt(client, url, params, cap, what)
            except (_Retry, TimeoutError, httpx.TransportError) as error:
                why = _reason(error, settings)
    raise unavailable(f"{what} is unavailable: {why}")


async def _attempt(
    client: httpx.AsyncClient, url: str, params: dict[str, str] | None, cap: int, what: str
) -> Fetched:
    async with client.stream("GET", url, params=params) as response:
        status = response.status_code
        if status == 404:
            raise not_found(f"{what} was not found")
        if status in RETRIED_STATUSES:
            raise _Retry(f"it answered HTTP {status}")
        if status >= 400:
            raise unavailable(f"{what} is unavailable: it answered HTTP {status}")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise _over(what, cap)
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > cap:
                raise _over(what, cap)
        kind = response.headers.get("content-type", "")
        return Fetched(str(response.url), bytes(body), kind)


def _over(what: str, cap: int) -> CatalogError:
    return refused(f"{what} is more than the limit of {cap} bytes")


def _reason(error: Exception, settings: CatalogSettings) -> str:
    if isinstance(error, (TimeoutError, httpx.TimeoutException)):
        return f"no answer within {settings.timeout:g} s"
    if isinstance(error, _Retry):
        return str(error)
    return "it could not be reached"
