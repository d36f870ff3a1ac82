"""Proposals through the API (DESIGN §5): at most 30 an hour per proposer, counted in the
database so every replica agrees, and read back by their proposer."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import asyncpg

from tests.factories import codes, gql
from tests.memory.pages_api import field

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PROPOSE = """mutation($t: String!) {
  proposeMemory(text: $t) { id text status proposerName onBehalfOfId createdAt }
}"""
MY_PROPOSALS = "query($first: Int) { myMemoryProposals(first: $first) { id text status } }"


async def stored_proposals(pool: asyncpg.Pool, ws, kind: str | None = None) -> int:
    async with pool.acquire() as conn:
        return int(
            await conn.fetchval(
                "SELECT count(*) FROM memory_proposals WHERE workspace_id = $1"
                " AND ($2::text IS NULL OR proposer_kind = $2)",
                ws.id,
                kind,
            )
        )


async def propose(client, token, text):
    return await gql(client, token, PROPOSE, {"t": text})


async def test_thirty_proposals_an_hour_and_the_next_one_after_the_hour(client, pool, ws, stand):
    agent = ws.tokens["agent"]
    for n in range(30):
        stand(T0 + timedelta(minutes=n))
        accepted = field(await propose(client, agent, f"Acme wants French, #{n}"), "proposeMemory")
        assert accepted["status"] == "WAITING"
    stand(T0 + timedelta(minutes=30))
    refused = await propose(client, agent, "one too many")
    assert codes(refused) == ["SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED"]
    assert refused.json()["data"] is None
    assert "2026-03-02T10:00:00" in refused.json()["errors"][0]["message"]
    stand(T0 + timedelta(minutes=59, seconds=59))
    assert codes(await propose(client, agent, "still too many")) == [
        "SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED"
    ]
    assert await stored_proposals(pool, ws) == 30
    stand(T0 + timedelta(hours=1, seconds=1))
    assert field(await propose(client, agent, "an hour later"), "proposeMemory")["status"] == (
        "WAITING"
    )
    assert await stored_proposals(pool, ws) == 31
    texts = [p["text"] for p in field(await gql(client, agent, MY_PROPOSALS), "myMemoryProposals")]
    assert "one too many" not in texts and "still too many" not in texts


async def test_the_hourly_count_is_per_proposer(client, pool, ws, stand):
    stand(T0)
    for n in range(30):
        await propose(client, ws.tokens["agent"], f"agent learning {n}")
    assert codes(await propose(client, ws.tokens["agent"], "refused")) == [
        "SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED"
    ]
    # The member the agent works for, and their MCP client, each have their own count.
    for who in ("member", "mcp_client"):
        for n in range(30):
            response = await propose(client, ws.tokens[who], f"{who} learning {n}")
            assert codes(response) == [], (who, n)
        assert codes(await propose(client, ws.tokens[who], "refused")) == [
            "SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED"
        ]
    assert await stored_proposals(pool, ws, "agent") == 30
    assert await stored_proposals(pool, ws, "member") == 30
    assert await stored_proposals(pool, ws, "mcp_client") == 30


async def test_a_replica_whose_clock_is_a_second_behind_still_counts_the_hour(
    client, pool, ws, stand
):
    """Every replica agrees on the count: proposals stored by a replica whose clock runs a
    second ahead still count for one whose clock does not."""
    agent = ws.tokens["agent"]
    stand(T0 + timedelta(seconds=1))
    for n in range(30):
        assert codes(await propose(client, agent, f"learning {n}")) == []
    stand(T0)
    assert codes(await propose(client, agent, "the 31st")) == [
        "SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED"
    ]
    assert await stored_proposals(pool, ws) == 30


async def test_concurrent_proposals_stop_at_thirty(client, pool, ws):
    agent = ws.tokens["agent"]
    responses = await asyncio.gather(
        *(propose(client, agent, f"concurrent learning {n}") for n in range(35))
    )
    outcomes = [codes(r) for r in responses]
    assert outcomes.count([]) == 30, outcomes
    assert outcomes.count(["SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED"]) == 5
    assert await stored_proposals(pool, ws) == 30


async def test_a_proposal_waits_and_its_proposer_reads_it(client, pool, ws):
    agent = ws.tokens["agent"]
    made = field(await propose(client, agent, "Acme signs in June"), "proposeMemory")
    assert made["status"] == "WAITING" and made["proposerName"] == "Scout"
    assert made["onBehalfOfId"] == ws.gid(ws.members["member"], "Member")
    mine = field(await gql(client, agent, MY_PROPOSALS), "myMemoryProposals")
    assert mine == [{"id": made["id"], "text": "Acme signs in June", "status": "WAITING"}]
    # Proposals are the proposer's: the member the agent works for has made none.
    assert field(await gql(client, ws.tokens["member"], MY_PROPOSALS), "myMemoryProposals") == []


async def test_a_proposal_holds_one_to_two_thousand_characters(client, pool, ws):
    token = ws.tokens["agent"]
    assert field(await propose(client, token, "x" * 2000), "proposeMemory")["text"] == "x" * 2000
    for text in ("x" * 2001, "", "   ", "\n"):
        response = await propose(client, token, text)
        assert codes(response) == ["SCHEMA_VALIDATION_FAILED"], repr(text)
        problems = response.json()["errors"][0]["extensions"]["problems"]
        assert [p["field"] for p in problems] == ["text"]
    assert await stored_proposals(pool, ws) == 1


async def test_an_api_key_without_memory_access_cannot_propose(client, pool, ws):
    assert codes(await propose(client, ws.tokens["api_key"], "hello")) == ["FORBIDDEN"]
    assert await stored_proposals(pool, ws) == 0
