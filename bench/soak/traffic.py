"""The mixed workload: lanes of httpx async clients, each on one workspace and one gateway,
cycling through a turn's cards (turnContext), a records page, a search, an MCP tool call, an
Anthropic SDK memory-store write and a recorded message, and one editor per workspace
rewriting its member's profile page. Every answer is timed and classified (ok, or its error
code); every acknowledged write is noted in the ledger, every write whose outcome the client
could not know (an error or a cut connection) too.

httpx (a dependency already) rather than locust: the soak kills PostgreSQL and processes and
reads the database in the same asyncio process that sends the traffic, and needs each write's
own answer; locust's gevent workers do neither."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import httpx

from bench.soak.tenants import Tenant

REQUEST_TIMEOUT = 30.0
MAX_REQUESTS_PER_LANE = 200_000
# Lane numbers are unique in the run: no two lanes write the same path or id, even lanes of
# different processes (the heavy and abusive clients run in one of their own, side.py): each
# process numbers from its pid's own block.
LANES_PER_PROCESS = 100_000
LANE_NUMBERS = itertools.count(os.getpid() * LANES_PER_PROCESS + 1)
CODE = re.compile(rb'"code"\s*:\s*"([A-Z_]+)"')
ANTHROPIC_TYPE = re.compile(rb'"type"\s*:\s*"error"\s*,\s*"error"\s*:\s*\{\s*"type"\s*:\s*"(\w+)"')

TURN = """query($m: String!) { turnContext(input: {message: $m}) {
  cards { label values { title value } } budget { used } text } }"""
RECORDS = '{ records(object: "companies", first: 20) { edges { node { id label values } } } }'
EDIT = """mutation($p: ID!, $c: String!) { editMemoryPage(pageId: $p, content: $c) {
  contentSha256 } }"""


@dataclass(slots=True)
class Outcome:
    kind: str
    began: float
    seconds: float
    status: int
    code: str  # "ok", an error code, "HTTP <status>", or the transport's failure
    workspace: str = ""  # the name of the workspace whose token it carried
    lane: int = 0  # the number of the lane that sent it (0: no lane of the mixed workload)


@dataclass
class Ledger:
    """Writes by workspace: acknowledged, and unsure (the client saw no answer it could trust)."""

    paths: dict[UUID, set[str]] = field(default_factory=dict)
    messages: dict[UUID, set[str]] = field(default_factory=dict)
    edits: dict[UUID, list[str]] = field(default_factory=dict)
    unsure: Counter[str] = field(default_factory=Counter)
    leaks: int = 0

    def ack(self, book: str, workspace: UUID, item: Any) -> None:
        found: Any = getattr(self, book).setdefault(workspace, set() if book != "edits" else [])
        if isinstance(found, set):
            found.add(item)
        else:
            found.append(item)

    def merge(self, other: Ledger) -> None:
        """Add ``other``'s writes to these."""
        for book in ("paths", "messages", "edits"):
            for workspace, items in getattr(other, book).items():
                for item in items:
                    self.ack(book, workspace, item)
        self.unsure.update(other.unsure)
        self.leaks += other.leaks


@dataclass
class Traffic:
    """What one run sent and got."""

    outcomes: list[Outcome] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)
    # The CPU time a side process used to send it (bench/soak/side.py), when it was one.
    cpu_seconds: float = 0.0

    def window(self, start: float = 0.0, end: float = float("inf")) -> list[Outcome]:
        return [o for o in self.outcomes if start <= o.began < end]


def classify(status: int, body: bytes) -> str:
    """ "ok" for a 2xx answer without errors, else the error's code (ours, or the SDK's type)."""
    coded = CODE.search(body)
    if 200 <= status < 300 and b'"errors"' not in body and b'"isError":true' not in body:
        return "ok"
    if coded:
        return coded.group(1).decode()
    typed = ANTHROPIC_TYPE.search(body)
    if typed:
        return f"sdk:{typed.group(1).decode()}"
    return f"HTTP {status}"


@dataclass
class Lane:
    """One client: a workspace, a gateway, its own counter (for unique writes)."""

    number: int
    tenant: Tenant
    client: httpx.AsyncClient
    others: Sequence[Tenant]  # whose markers must never reach this lane
    n: int = 0

    @property
    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.tenant.token}"}

    async def graphql(self, query: str, **variables: Any) -> httpx.Response:
        body = {"query": query, "variables": variables}
        return await self.client.post("/graphql", json=body, headers=self.headers)

    async def turn(self) -> httpx.Response:
        message = f"Where are we with @[Acme](record:{self.tenant.acme})?"
        return await self.graphql(TURN, m=message)

    async def records(self) -> httpx.Response:
        return await self.graphql(RECORDS)

    async def search(self) -> httpx.Response:
        params = {"q": "acme short answers", "objects": "memory,skill"}
        return await self.client.get("/v1/search", params=params, headers=self.headers)

    async def mcp(self) -> httpx.Response:
        call = {"name": "search", "arguments": {"query": "acme"}}
        body = {"jsonrpc": "2.0", "id": self.n, "method": "tools/call", "params": call}
        headers = {**self.headers, "accept": "application/json, text/event-stream"}
        return await self.client.post("/mcp", json=body, headers=headers)

    async def store_write(self) -> httpx.Response:
        path = f"/soak/{self.number}-{self.n}.md"
        body = {"path": path, "content": f"{self.tenant.marker} note {self.number}-{self.n}"}
        url = f"/v1/memory_stores/{self.tenant.store_id}/memories"
        return await self.client.post(url, json=body, headers=self.headers)

    async def message(self) -> httpx.Response:
        text = f"Acme asked about {self.tenant.marker} item {self.number}-{self.n}."
        body = {"messageId": f"m-{self.number}-{self.n}", "role": "user", "text": text}
        url = f"/agents/sessions/soak-{self.number}/messages"
        return await self.client.post(url, json=body, headers=self.headers)

    async def edit(self) -> httpx.Response:
        content = (
            f"- Prefers short answers {self.tenant.marker} [preference]\n"
            f"- Soak edit {self.number}-{self.n} {self.tenant.marker} [preference]"
        )
        return await self.graphql(EDIT, p=self.tenant.profile_page, c=content)

    def acknowledge(self, kind: str, code: str, ledger: Ledger) -> None:
        """The ledger's entry for a write of ``kind`` that answered ``code``."""
        item: Any = {
            "store_write": f"/soak/{self.number}-{self.n}.md",
            "message": f"m-{self.number}-{self.n}",
            "edit": f"{self.number}-{self.n}",
        }.get(kind)
        if item is None:
            return
        book = {"store_write": "paths", "message": "messages", "edit": "edits"}[kind]
        if code == "ok":
            ledger.ack(book, self.tenant.id, item)
        elif not code.startswith(("HTTP 4", "sdk:invalid", "SCHEMA", "BAD")):
            ledger.unsure[kind] += 1

    def leaked(self, body: bytes) -> bool:
        return any(other.marker.encode() in body for other in self.others)


MIXED = ("turn", "records", "search", "mcp", "store_write", "message")


async def run_lane(
    lane: Lane,
    kinds: Sequence[str],
    deadline: float,
    traffic: Traffic,
    pause: float = 0.0,
    stop: asyncio.Event | None = None,
) -> None:
    """Send ``kinds`` in turn until ``deadline`` (or ``stop``); every answer recorded."""
    for kind in itertools.islice(itertools.cycle(kinds), MAX_REQUESTS_PER_LANE):
        if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
            return
        lane.n += 1
        send: Callable[[], Awaitable[httpx.Response]] = getattr(lane, kind)
        began = time.monotonic()
        try:
            answer = await send()
            status, code = answer.status_code, classify(answer.status_code, answer.content)
            if lane.leaked(answer.content):
                traffic.ledger.leaks += 1
        except httpx.HTTPError as error:
            status, code = 0, type(error).__name__
        seconds = time.monotonic() - began
        traffic.outcomes.append(
            Outcome(kind, began, seconds, status, code, lane.tenant.ws.name, lane.number)
        )
        lane.acknowledge(kind, code, traffic.ledger)
        if pause or status == 0:
            # A gateway that is gone is not hammered in a tight loop.
            await asyncio.sleep(pause or 0.05)


def client_for(base_url: str, connections: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(base_url=base_url, timeout=REQUEST_TIMEOUT, limits=limits)


async def prepare(tenants: Sequence[Tenant], base_url: str) -> None:
    """Each workspace's memory store (the Anthropic SDK's), made once over HTTP."""
    async with httpx.AsyncClient(base_url=base_url, timeout=REQUEST_TIMEOUT) as client:
        for tenant in tenants:
            if tenant.store_id:
                continue
            headers = {"authorization": f"Bearer {tenant.token}"}
            made = await client.post("/v1/memory_stores", json={"name": "Soak"}, headers=headers)
            made.raise_for_status()
            tenant.store_id = made.json()["id"]


async def mixed(
    base_urls: Sequence[str],
    tenants: Sequence[Tenant],
    lanes: int,
    seconds: float,
    traffic: Traffic | None = None,
    kinds: Sequence[str] = MIXED,
    stop: asyncio.Event | None = None,
) -> Traffic:
    """``lanes`` clients spread over the workspaces and gateways, plus one editor per
    workspace, for ``seconds`` (or until ``stop`` is set)."""
    traffic = traffic or Traffic()
    clients = [client_for(url, lanes + len(tenants)) for url in base_urls]
    deadline = time.monotonic() + seconds
    tasks = []
    for index in range(lanes):
        number = next(LANE_NUMBERS)
        tenant = tenants[index % len(tenants)]
        others = [t for t in tenants if t is not tenant]
        client = clients[(index // len(tenants)) % len(clients)]
        lane = Lane(number, tenant, client, others)
        # Each lane starts at another kind, so the mix is even from the first second.
        start = index % len(kinds)
        cycle = [*kinds[start:], *kinds[:start]]
        tasks.append(run_lane(lane, cycle, deadline, traffic, stop=stop))
    for index, tenant in enumerate(tenants):
        others = [t for t in tenants if t is not tenant]
        editor = Lane(next(LANE_NUMBERS), tenant, clients[index % len(clients)], others)
        tasks.append(run_lane(editor, ["edit"], deadline, traffic, pause=0.05, stop=stop))
    try:
        await asyncio.gather(*tasks)
    finally:
        for client in clients:
            await client.aclose()
    return traffic
