"""What a pass did, made visible (issue 10, item 8), after real passes on the real database:
memoryItems for a person (their own, with each verdict's page and line) and for an admin (the
workspace's, never the text, page or line of a source they cannot open), memorySpend for
admins only, and a proposal's status with its verdict."""

from __future__ import annotations

from decimal import Decimal

import pytest

from resolvers.memory.dreamer.passes import PassSettings, Prices
from resolvers.memory.dreamer.reader import Usage
from tests.factories import codes, company, data, gql, local
from tests.memory.dreamer.dreaming import FixedReader, lines_of, said
from tests.memory.dreamer.intake_api import PROPOSE
from tests.memory.dreamer.rulebook import SOON, T0, dream_at, mention

ITEMS = """query($w: Boolean!) { memoryItems(workspace: $w) { items {
  kind status reason sourceOpen text payerKind payerName costUsd proposalId
  verdicts { verdict reason pageId lineKey text } } } }"""
SPEND = """query($m: String!) { memorySpend(month: $m) {
  payerKind payerId payerName month costUsd passes } }"""
PROPOSALS = "{ myMemoryProposals { text status verdict decidedAt } }"


@pytest.fixture
async def acme(pool, ws):
    return await company(pool, ws, "Acme")


async def cookbook(pool, ws, acme, stand) -> None:
    """The member asks to remember something about Acme, and the pass writes it; the pass
    costs $0.25 (a reader of the tests' own, priced)."""
    stand(T0)
    text = f"Remember: {mention('Acme', acme)} wants every message in French."
    await said(pool, ws, "member", text, T0)
    reader = FixedReader(usage=Usage(input_tokens=250_000))
    settings = PassSettings(reader=reader, reader_name="test", prices=Prices(Decimal(1)))
    await dream_at(pool, ws, T0 + SOON, settings=settings)


async def items_seen(client, ws, who: str, every: bool = False):
    return data(await gql(client, ws.tokens[who], ITEMS, {"w": every}))["memoryItems"]["items"]


async def test_a_person_sees_their_own_items_with_the_page_and_line_written(
    pool, ws, client, acme, stand
):
    await cookbook(pool, ws, acme, stand)
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    [item] = await items_seen(client, ws, "member")
    assert (item["kind"], item["status"], item["sourceOpen"]) == ("conversation", "READ", True)
    assert item["text"].startswith("Remember: @[Acme]")
    assert (item["payerKind"], item["payerName"], item["costUsd"]) == ("member", "Member", "0.25")
    [verdict] = item["verdicts"]
    assert verdict == {
        "verdict": "WRITTEN",
        "reason": None,
        "pageId": local_page(ws, line["page_id"]),
        "lineKey": line["key"],
        "text": "Acme wants every message in French.",
    }
    # Nobody else's own list holds it.
    assert await items_seen(client, ws, "other") == []


def local_page(ws, page_id) -> str:
    return ws.gid(page_id, "MemoryPage")


async def test_an_admin_sees_the_workspaces_items_without_what_they_cannot_open(
    pool, ws, client, acme, stand
):
    await cookbook(pool, ws, acme, stand)
    [item] = await items_seen(client, ws, "admin", every=True)
    assert (item["status"], item["sourceOpen"], item["text"]) == ("READ", False, None)
    assert (item["payerName"], item["costUsd"]) == ("Member", "0.25")
    assert item["verdicts"] == [
        {"verdict": "WRITTEN", "reason": None, "pageId": None, "lineKey": None, "text": None}
    ]
    # Their own list does not hold it.
    assert await items_seen(client, ws, "admin") == []


async def test_only_an_admin_asks_for_the_workspaces_items(pool, ws, client, acme, stand):
    await cookbook(pool, ws, acme, stand)
    for who in ("member", "viewer", "agent"):
        response = await gql(client, ws.tokens[who], ITEMS, {"w": True})
        assert codes(response) == ["FORBIDDEN"], who


async def test_memory_spend_is_for_admins_only(pool, ws, client, acme, stand):
    await cookbook(pool, ws, acme, stand)
    found = data(await gql(client, ws.tokens["admin"], SPEND, {"m": "2026-11"}))["memorySpend"]
    assert found == [
        {
            "payerKind": "member",
            "payerId": ws.gid(ws.members["member"], "Member"),
            "payerName": "Member",
            "month": "2026-11",
            "costUsd": "0.25",
            "passes": 1,
        }
    ]
    assert data(await gql(client, ws.tokens["admin"], SPEND, {"m": "2026-12"}))["memorySpend"] == []
    for who in ("member", "viewer", "agent"):
        response = await gql(client, ws.tokens[who], SPEND, {"m": "2026-11"})
        assert codes(response) == ["FORBIDDEN"], who


async def test_a_proposals_status_shows_its_verdict(pool, ws, client, acme, stand):
    stand(T0)
    agent = ws.tokens["agent"]
    # For the member, by Scout: a standing rule about Acme stays on the member's profile; a
    # relation would widen Scout's words to Acme's page, read by everyone who reads Acme.
    rule = f"Always write to {mention('Acme', acme)} in French"
    relation = f"{mention('Acme', acme)} wants every message in French"
    question = "Does Acme pay late?"
    for text in (rule, relation, question):
        data(await gql(client, agent, PROPOSE, {"t": text, "r": acme}))
    waiting = data(await gql(client, agent, PROPOSALS))["myMemoryProposals"]
    assert {p["status"] for p in waiting} == {"WAITING"}
    await dream_at(pool, ws, T0 + SOON)
    decided = {p["text"]: p for p in data(await gql(client, agent, PROPOSALS))["myMemoryProposals"]}
    assert {text: (p["status"], p["verdict"]) for text, p in decided.items()} == {
        rule: ("WRITTEN", "written"),
        relation: ("REFUSED", "not_permitted"),
        question: ("REFUSED", "not_durable"),
    }
    assert all(p["decidedAt"] is not None for p in decided.values())
    # The member's list shows the same verdicts on the proposals' items.
    seen = await items_seen(client, ws, "member")
    assert sorted((v["verdict"], v["reason"]) for item in seen for v in item["verdicts"]) == [
        ("REFUSED", "not_durable"),
        ("REFUSED", "not_permitted"),
        ("WRITTEN", None),
    ]
    assert all(item["proposalId"] is not None for item in seen)
