"""Isolation as a standing test (issue 16, item 4): every GraphQL field, route and MCP tool or
resource that takes an id, asked by one workspace's admin with the other workspace's id and with
a private thing of another person of the same workspace, answers exactly as for a well-formed
id that names nothing (same status, code, message but for the id itself, same data).

The doors come from the schema, the app's route table and the MCP server (tests/isolation/
doors.py), so a new one is swept the day it appears; one whose id's kind nothing says fails
the sweep until it is said. Each door is also asked once with an id of the caller's own: a door
answering that exactly as a missing id would make the sweep of it prove nothing, so it fails
too unless ``SAME_FOR_HOME`` says why it answers so."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import asyncpg
import httpx
import orjson

from gateway.app import create_app
from gateway.mcp.tools import BY_NAME
from schema.schema import schema
from tests.isolation.doors import Slot, body_slots, graphql_slots, mcp_slots, path_kind, route_slots
from tests.isolation.sdk_inputs import SDK_INPUTS, input_fields
from tests.isolation.sweep import Send, Sweep
from tests.isolation.world import World, fresh_conversations, fresh_home, make_world

VARIANTS = ("foreign", "private")
# Doors whose answer for an id of the caller's own is the one for a missing id: (door, slot)
# -> why. Each is a gap of the control only (the sweep still compares the door's foreign and
# private answers with its missing one); keep it as short as the doors allow.
NOTHING_SHOWN = "the world holds nothing this id would change in the answer"
SAME_FOR_HOME: dict[tuple[str, str], str] = {
    ("Query.records", "filter.relatedTo"): NOTHING_SHOWN + " (no record related to it)",
    ("Query.turnContext", "input.conversationId"): NOTHING_SHOWN,
    ("mcp tool turn_context", "conversationId"): NOTHING_SHOWN,
    ("mcp tool turn_context", "agentId"): "to be looked at: profiles answer null over MCP here",
    ("Mutation.setAgentSkills", "id"): "the least skills list is refused before the agent is read",
}


@dataclass(frozen=True)
class Probe:
    slot: Slot
    kinds: tuple[str, ...]
    send: Send
    rank: tuple[int, int]  # reads first, writes next, deletions last (deepest path first)


@contextlib.asynccontextmanager
async def sweeping(api_pool, pool, settings) -> AsyncIterator[tuple[Sweep, list[Probe]]]:
    """The app with its lifespan run (the MCP server's), the two workspaces, and the probes."""
    app = create_app(settings, pool=api_pool)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://test") as client,
    ):
        world = await make_world(pool, client)
        found = Sweep(client, world, schema._schema)
        yield found, list(probes(found, app.routes))


def probes(sweep: Sweep, routes: list) -> Iterator[Probe]:  # type: ignore[type-arg]
    for slot in graphql_slots(sweep.schema):
        reads = slot.door.startswith("Query.")
        yield Probe(slot, (slot.kind or "",), sweep.graphql(slot), rank(slot.door, reads))
    for slot, method, path in route_slots(routes):
        kinds = tuple(
            k
            for p in path_params(path)
            if slot.where in (p, "*") and (k := path_kind(slot.door, path, p) or "") != "-"
        )
        yield Probe(slot, kinds, sweep.route(slot, method, path), rank(slot.door, method == "GET"))
    for slot, method, path in body_slots():
        rank_ = rank(slot.door, False)
        yield Probe(slot, (slot.kind or "",), sweep.body(slot, method, path), rank_)
    for model, field in input_fields():
        call = SDK_INPUTS.get((model, field))
        if isinstance(call, str):
            continue
        if call is None:
            yield Probe(Slot(f"SDK input {model}", field, None), ("",), unsendable, (0, 0))
            continue
        slot = Slot(f"{call.method} {call.path}", f"{model}.{field}", call.kind)
        reads = call.method == "GET"
        yield Probe(slot, (call.kind,), sweep.sdk_input(slot, call), rank(slot.door, reads))
    for slot in mcp_slots():
        if slot.door.startswith("mcp resource "):
            yield Probe(slot, (slot.kind or "",), sweep.resource(slot), (0, 0))
            continue
        tool = BY_NAME[slot.door.removeprefix("mcp tool ")]
        yield Probe(slot, (slot.kind or "",), sweep.tool(slot), rank(slot.door, tool.read_only))


async def unsendable(variant: str) -> None:
    raise AssertionError("an uncovered door is never asked")


def path_params(path: str) -> list[str]:
    return [part.strip("{}") for part in path.split("/") if part.startswith("{")]


DELETES = 2
# What deleting one kind may take with it, for the controls (a skill's name, id and versions
# are one skill).
FAMILIES = {
    "SkillName": "Skill",
    "SkillVersion": "Skill",
    "StoreMemory": "MemoryStore",
    "StoreMemoryVersion": "MemoryStore",
    "MemoryVersion": "MemoryPage",
    "Meeting": "Record",
}
DESTRUCTIVE = ("delete", "trash", "redact", "archive", "cancel", "end", "DELETE")


def rank(door: str, reads: bool) -> tuple[int, int]:
    if reads:
        return (0, 0)
    words = door.replace("/", " ").replace(".", " ").split()
    if any(word.lower().startswith(d.lower()) for word in words for d in DESTRUCTIVE):
        return (DELETES, -door.count("/"))
    return (1, 0)


def described(slot: Slot, variant: str, base: object, got: object) -> str:
    head = f"{slot.door} [{slot.where}] {variant}:"
    return f"{head}\n  missing: {short(base)}\n  {variant}: {short(got)}"


def failed(answer: object) -> bool:
    """Whether an answer is the server's failure (500, INTERNAL) rather than an answer."""
    return isinstance(answer, dict) and (
        answer.get("status", 200) >= 500 or '"INTERNAL"' in orjson.dumps(answer).decode()
    )


def short(answer: object) -> str:
    """An answer's status, code and message (or data), for a failure's text."""
    if not isinstance(answer, dict):
        return str(answer)[:300]
    errors = answer.get("errors") or []
    if errors:
        return f"{answer['status']} {errors[0]['extensions']} {errors[0]['message']}"
    return str(answer)[:300]


async def test_every_door_answers_other_ids_as_missing_ones(api_pool, pool, settings):
    async with sweeping(api_pool, pool, settings) as (found, every):
        await sweep_all(found, every, pool)


async def sweep_all(found: Sweep, every: list[Probe], pool: asyncpg.Pool) -> None:
    world: World = found.world
    uncovered = [p.slot for p in every if "" in p.kinds or p.slot.door.startswith("Subscription.")]
    assert not uncovered, (
        f"doors taking ids the sweep cannot name (tests/isolation/doors.py): {uncovered}"
    )
    swept = [p for p in every if p.kinds and "-" not in p.kinds]
    leaks, baselines = [], {}
    for probe in swept:
        if "Conversation" in probe.kinds:
            await fresh_conversations(world, found.client)
        base = baselines[probe.slot] = await probe.send("missing")
        if failed(base):  # a missing id is an answer, never a failure of the server
            leaks.append(described(probe.slot, "missing", base, base))
        for variant in VARIANTS:
            if all(kind in getattr(world, variant) for kind in probe.kinds):
                got = await probe.send(variant)
                if got != base:
                    leaks.append(described(probe.slot, variant, base, got))
    assert not leaks, "\n".join(leaks)
    vacuous = []
    spent: set[str] = set()
    for probe in sorted(swept, key=lambda p: p.rank):
        if probe.rank[0] == DELETES:
            families = {FAMILIES.get(kind, kind) for kind in probe.kinds}
            if families & spent:
                await fresh_home(world, pool, found.client)
                spent.clear()
            spent |= families
        home = await probe.send("home")
        if (
            home == baselines[probe.slot]
            and (probe.slot.door, probe.slot.where) not in SAME_FOR_HOME
        ):
            vacuous.append(described(probe.slot, "home", baselines[probe.slot], home))
    assert not vacuous, "\n".join(vacuous)
