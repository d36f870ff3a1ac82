"""The official `anthropic` SDK (pinned in the dev extras) against the app: an async client per
token over the app itself (the edge, the routes, one transaction a request, as served), with
every request it sends counted (a 409 the SDK must not retry is sent once)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import anthropic
import asyncpg
import httpx2
import pytest

from gateway.app import create_app
from gateway.settings import Settings

BASE_URL = "http://skillmem.test"


@dataclass
class Sent:
    """The requests the SDK sent: method and path, in order."""

    requests: list[tuple[str, str]] = field(default_factory=list)

    def count(self, method: str, path: str) -> int:
        return self.requests.count((method, path))


@pytest.fixture
def sent() -> Sent:
    return Sent()


@pytest.fixture
async def sdk(
    api_pool: asyncpg.Pool, sent: Sent
) -> AsyncIterator[Callable[[str], anthropic.AsyncAnthropic]]:
    """``sdk(token)``: an AsyncAnthropic pointed at the app with only ``base_url`` and the api
    key changed (and no real wait between its retries)."""
    app = create_app(Settings(database_url=None, worker=False), pool=api_pool)

    async def count(request: httpx2.Request) -> None:
        sent.requests.append((request.method, request.url.path))

    http = anthropic.DefaultAsyncHttpxClient(
        transport=httpx2.ASGITransport(app=app), event_hooks={"request": [count]}
    )
    clients: list[anthropic.AsyncAnthropic] = []

    def make(token: str) -> anthropic.AsyncAnthropic:
        client = anthropic.AsyncAnthropic(base_url=BASE_URL, api_key=token, http_client=http)
        clients.append(client)
        return client

    yield make
    await http.aclose()
