"""Proposals as the Dreamer's source (resolvers/memory/proposals.py with intake.py): each
proposal is an urgent item of the person it is for, made from one of their conversations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.factories import codes, data, gql, problems
from tests.memory.dreamer.intake_api import PROPOSE, admin_key, counts, items, new_agent, said

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def propose(client, token, text, conversation=None):
    return await gql(client, token, PROPOSE, {"t": text, "c": conversation})


async def test_a_proposal_is_an_urgent_item_of_its_person(client, pool, ws, stand):
    stand(T0)
    found = data(await propose(client, ws.tokens["agent"], "Acme wants French"))
    assert found["proposeMemory"]["status"] == "WAITING"
    [item] = await items(pool, ws)
    member = ws.members["member"]
    assert item["kind"] == "proposal" and item["urgent"] is True
    assert (item["owner_kind"], item["owner_id"], item["private_to"]) == ("member", member, member)
    assert (item["payer_kind"], item["payer_id"]) == ("member", member)
    assert item["said_at"] == item["arrived_at"] == T0
    assert item["status"] == "waiting" and item["share_with_team"] is True


async def test_an_api_keys_proposal_is_the_workspaces(client, pool, ws):
    key = await admin_key(pool, ws)
    data(await propose(client, key, "Invoices go out on Mondays"))
    [item] = await items(pool, ws)
    assert (item["owner_kind"], item["owner_id"], item["private_to"]) == ("workspace", None, None)
    assert (item["payer_kind"], item["payer_id"]) == ("workspace", None)
    assert item["share_with_team"] is False
    response = await propose(client, key, "From a chat", "c1")
    assert [p["field"] for p in problems(response)] == ["conversationId"]


async def test_a_proposal_names_the_persons_own_conversation(client, pool, ws):
    agent = ws.tokens["agent"]
    assert codes(await propose(client, agent, "Acme wants French", "c1")) == ["NOT_FOUND"]
    await said(client, ws.tokens["other"], "Beta pays early.", conversation="c1")
    assert codes(await propose(client, agent, "Acme wants French", "c1")) == ["NOT_FOUND"]
    await said(client, agent, "Acme wants French.", conversation="c1")
    data(await propose(client, agent, "Acme wants French", "c1"))
    data(await propose(client, ws.tokens["member"], "Acme wants French too", "c1"))
    # An agent names no conversation the person has with another agent.
    _, ranger = await new_agent(pool, ws, "Ranger", "admin")
    assert codes(await propose(client, ranger, "Me too", "c1")) == ["FORBIDDEN"]
    response = await propose(client, agent, "", "c" * 201)
    assert {p["field"] for p in problems(response)} == {"text", "conversationId"}
    async with pool.acquire() as conn:
        made_from = await conn.fetch(
            "SELECT c.external_id FROM memory_proposals p JOIN conversations c"
            " ON c.workspace_id = p.workspace_id AND c.id = p.conversation_id"
            " WHERE p.workspace_id = $1",
            ws.id,
        )
    assert [r["external_id"] for r in made_from] == ["c1", "c1"]
    assert (await counts(pool, ws))["memory_items"] == 2 + 2


async def test_a_proposal_past_the_hourly_limit_leaves_no_item(client, pool, ws, stand):
    stand(T0)
    for n in range(30):
        stand(T0 + timedelta(seconds=n))
        data(await propose(client, ws.tokens["agent"], f"Learning {n}"))
    refused = await propose(client, ws.tokens["agent"], "One too many")
    assert codes(refused) == ["SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED"]
    stored = await counts(pool, ws)
    assert (stored["memory_proposals"], stored["memory_items"]) == (30, 30)
