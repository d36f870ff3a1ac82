"""An agent whose tool groups omit ``memory`` neither reads nor saves memories (seed 000
"Skills and memories"), and the same agent with ``memory`` on does: its turn cards (souvenirs,
the person's own about the record, the profile-made cards, the profiles snapshot; the record
parts stay), search and recall (memory left out, skills kept: core), ``proposeMemory``
(FORBIDDEN, nothing stored), and the Dreamer (its conversations' messages and its runs arrive
not read; one recorded while on and waiting when the group goes off is not read by the pass)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.factories import Workspace, agent_id, codes, company, data, gql, local, make_page
from tests.memory.dreamer.dreaming import dream, items_of, lines_of, said
from tests.memory.dreamer.intake_api import PROPOSE, run
from tests.turns.test_turns import about, ask, mention, souvenir

SET = """mutation($id: ID!, $groups: [String!]!) {
  setAgentToolGroups(id: $id, toolGroups: $groups) { toolGroups }
}"""
SEARCH = """query($q: String!) {
  search(q: $q, objects: [MEMORY, SKILL]) { total hits { object title snippet } }
}"""
RECALL = "query($q: String) { recall(input: {query: $q}) { memories { text } skills { name } } }"
CREATE_SKILL = "mutation($input: CreateSkillInput!) { createSkill(input: $input) { name } }"
NOON = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)
REMEMBER = "Remember: @[Acme](record:{id}) wants every message in French, addressed to Claire."


async def set_memory(client: httpx.AsyncClient, pool, ws: Workspace, on: bool) -> None:
    """The admin turns the workspace's agent Scout's memory group on or off."""
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    groups = ["core", "memory"] if on else ["core"]
    found = data(await gql(client, ws.tokens["admin"], SET, {"id": scout, "groups": groups}))
    assert found["setAgentToolGroups"]["toolGroups"] == groups


@pytest.fixture
async def remembered(pool, ws) -> dict[str, str]:
    """Acme with a souvenir on its page, the member's profile with a souvenir about Acme and
    one about Globex, the workspace's profile: what an agent with memory reads."""
    acme = await company(pool, ws, "Acme", industry="Retail")
    globex = await company(pool, ws, "Globex")
    await make_page(pool, ws, "record", local(ws, acme), souvenir("Pays late"), name="Acme")
    lines = [
        souvenir("I like tea", author="Member"),
        about(acme, "Acme", "I call them on Mondays"),
        about(globex, "Globex", "Merging soon"),
    ]
    await make_page(pool, ws, "member", ws.members["member"], "\n".join(lines), name="Member")
    await make_page(pool, ws, "workspace", None, souvenir("Be polite"), name="Workspace")
    return {"acme": acme, "globex": globex}


# Cards ---------------------------------------------------------------------------------------


def acme_card(found: dict[str, Any], acme: str) -> dict[str, Any]:
    [card] = [c for c in found["cards"] if c["recordId"] == acme]
    return card


@pytest.mark.parametrize("memory", [True, False], ids=["memory-on", "memory-off"])
async def test_an_agents_cards_carry_souvenirs_only_with_memory(
    client, pool, ws, remembered, memory
):
    await set_memory(client, pool, ws, memory)
    acme = remembered["acme"]
    found = await ask(client, ws.tokens["agent"], mention(acme, "Acme"), conversationId="c1")
    card = acme_card(found, acme)
    # The record parts stay either way.
    assert card["label"] == "Acme"
    assert [v["value"] for v in card["values"]] == ["Retail"]
    assert card["lastChange"]["actorName"] == "Admin"
    texts = [s["line"] for s in card["souvenirs"] + card["profileSouvenirs"]]
    profile_cards = [c["label"] for c in found["cards"] if c["signal"] == "PROFILE"]
    if memory:
        assert any("Pays late" in t for t in texts)
        assert any("I call them on Mondays" in t for t in texts)
        assert profile_cards == ["Globex"]
        assert "Be polite" in found["profiles"]["workspace"]
        assert "I like tea" in found["profiles"]["person"]
    else:
        assert texts == []
        assert profile_cards == []
        assert found["profiles"] == {"workspace": None, "person": None, "agent": None}
        for text in ("Pays late", "Mondays", "Merging", "tea", "polite"):
            assert text not in found["text"]


async def test_a_persons_turn_with_an_agent_follows_that_agents_groups(
    client, pool, ws, remembered
):
    acme = remembered["acme"]
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    alone = await ask(client, ws.tokens["member"], mention(acme, "Acme"))
    await set_memory(client, pool, ws, False)
    with_scout = await ask(client, ws.tokens["member"], mention(acme, "Acme"), agentId=scout)
    assert acme_card(with_scout, acme)["souvenirs"] == []
    # The person's own session, with no agent, still reads memory.
    again = await ask(client, ws.tokens["member"], mention(acme, "Acme"))
    assert again["cards"] == alone["cards"]
    assert acme_card(again, acme)["souvenirs"] != []


# Search and recall ------------------------------------------------------------------------


async def late_skill(client: httpx.AsyncClient, ws: Workspace) -> None:
    given = {"name": "late-payments", "description": "Chase a customer who pays late."}
    data(await gql(client, ws.tokens["admin"], CREATE_SKILL, {"input": given}))


@pytest.mark.parametrize("memory", [True, False], ids=["memory-on", "memory-off"])
async def test_search_leaves_memory_out_without_the_group(client, pool, ws, remembered, memory):
    await late_skill(client, ws)
    await set_memory(client, pool, ws, memory)
    found = data(await gql(client, ws.tokens["agent"], SEARCH, {"q": "late"}))["search"]
    kinds = sorted(h["object"] for h in found["hits"])
    assert kinds == (["MEMORY", "SKILL"] if memory else ["SKILL"])
    assert found["total"] == len(kinds)


@pytest.mark.parametrize("memory", [True, False], ids=["memory-on", "memory-off"])
async def test_recall_leaves_memory_out_without_the_group(client, pool, ws, remembered, memory):
    await late_skill(client, ws)
    await set_memory(client, pool, ws, memory)
    found = data(await gql(client, ws.tokens["agent"], RECALL, {"q": "late"}))["recall"]
    assert [m["text"] for m in found["memories"]] == (["Pays late"] if memory else [])
    assert [s["name"] for s in found["skills"]] == ["late-payments"]


async def test_a_person_searching_still_reads_memory(client, pool, ws, remembered):
    await set_memory(client, pool, ws, False)
    found = data(await gql(client, ws.tokens["member"], SEARCH, {"q": "late"}))["search"]
    assert [h["object"] for h in found["hits"]] == ["MEMORY"]


# Proposals ---------------------------------------------------------------------------------


async def proposals_stored(pool, ws) -> int:
    async with pool.acquire() as conn:
        return int(
            await conn.fetchval(
                "SELECT count(*) FROM memory_proposals WHERE workspace_id = $1", ws.id
            )
        )


async def test_an_agent_without_memory_may_not_propose(client, pool, ws):
    await set_memory(client, pool, ws, False)
    refused = await gql(client, ws.tokens["agent"], PROPOSE, {"t": "Acme signs in June"})
    assert codes(refused) == ["FORBIDDEN"]
    assert refused.json()["data"] is None
    assert await proposals_stored(pool, ws) == 0
    await set_memory(client, pool, ws, True)
    made = data(await gql(client, ws.tokens["agent"], PROPOSE, {"t": "Acme signs in June"}))
    assert made["proposeMemory"]["status"] == "WAITING"
    assert await proposals_stored(pool, ws) == 1


# The Dreamer -------------------------------------------------------------------------------


@pytest.mark.parametrize("memory", [True, False], ids=["memory-on", "memory-off"])
async def test_an_agents_conversation_feeds_a_pass_only_with_memory(
    client, pool, ws, stand, memory
):
    acme = await company(pool, ws, "Acme")
    await set_memory(client, pool, ws, memory)
    stand(NOON)
    item = await said(pool, ws, "agent", REMEMBER.format(id=acme), NOON)
    assert item is not None
    [row] = await items_of(pool, ws, [item])
    assert (row["status"], row["reason"]) == (
        ("waiting", None) if memory else ("not_read", "agent_memory_off")
    )
    later = NOON + timedelta(minutes=6)
    stand(later)
    reports = await dream(pool, ws, later)
    written = await lines_of(pool, ws, "record", local(ws, acme))
    if memory:
        assert [r.written for r in reports] == [1]
        assert len(written) == 1
    else:
        assert reports == []
        assert written == []


@pytest.mark.parametrize("memory", [True, False], ids=["memory-on", "memory-off"])
async def test_an_agents_run_feeds_a_pass_only_with_memory(client, pool, ws, memory):
    await set_memory(client, pool, ws, memory)
    found = data(await run(client, ws.tokens["agent"], retried=True))["recordRun"]
    item = found["item"]
    assert (item["status"], item["reason"]) == (
        ("WAITING", None) if memory else ("NOT_READ", "agent_memory_off")
    )


async def test_an_item_waiting_when_the_group_goes_off_is_not_read_by_the_pass(
    client, pool, ws, stand
):
    acme = await company(pool, ws, "Acme")
    stand(NOON)
    item = await said(pool, ws, "agent", REMEMBER.format(id=acme), NOON)
    assert item is not None
    [row] = await items_of(pool, ws, [item])
    assert row["status"] == "waiting"
    await set_memory(client, pool, ws, False)
    later = NOON + timedelta(minutes=6)
    stand(later)
    [report] = await dream(pool, ws, later)
    assert (report.read, report.written) == (0, 0)
    [row] = await items_of(pool, ws, [item])
    assert (row["status"], row["reason"]) == ("not_read", "agent_memory_off")
    assert await lines_of(pool, ws, "record", local(ws, acme)) == []


async def test_a_persons_own_conversation_still_feeds_a_pass(client, pool, ws, stand):
    acme = await company(pool, ws, "Acme")
    await set_memory(client, pool, ws, False)
    stand(NOON)
    item = await said(pool, ws, "member", REMEMBER.format(id=acme), NOON)
    assert item is not None
    [row] = await items_of(pool, ws, [item])
    assert row["status"] == "waiting"


async def test_an_agents_proposal_waiting_when_the_group_goes_off_is_not_read(
    client, pool, ws, stand
):
    stand(NOON)
    made = data(await gql(client, ws.tokens["agent"], PROPOSE, {"t": "Acme signs in June"}))
    assert made["proposeMemory"]["status"] == "WAITING"
    await set_memory(client, pool, ws, False)
    later = NOON + timedelta(minutes=10)
    stand(later)
    [report] = await dream(pool, ws, later)
    assert (report.read, report.written) == (0, 0)
    async with pool.acquire() as conn:
        item = await conn.fetchrow(
            "SELECT status, reason FROM memory_items WHERE workspace_id = $1", ws.id
        )
        proposal = await conn.fetchrow(
            "SELECT status, verdict, decided_at FROM memory_proposals WHERE workspace_id = $1",
            ws.id,
        )
    assert (item["status"], item["reason"]) == ("not_read", "agent_memory_off")
    assert (proposal["status"], proposal["verdict"]) == ("not_read", "agent_memory_off")
    assert proposal["decided_at"] == later


# Reading memory by any road ------------------------------------------------------------------

READ_PAGES = """query($page: ID!, $record: ID!) {
  memoryPage(id: $page) { name content }
  memoryPageByRecord(recordId: $record) { name }
}"""


@pytest.mark.parametrize("memory", [True, False], ids=["memory-on", "memory-off"])
async def test_an_agent_reads_memory_pages_by_id_only_with_memory(
    client, pool, ws, remembered, memory
):
    await set_memory(client, pool, ws, memory)
    acme = remembered["acme"]
    globex = local(ws, remembered["globex"])
    page = await make_page(pool, ws, "record", globex, souvenir("Say hello"), name="Team")
    found = await gql(client, ws.tokens["agent"], READ_PAGES, {"page": page, "record": acme})
    if memory:
        assert data(found)["memoryPage"]["name"] == "Team"
        assert data(found)["memoryPageByRecord"]["name"] == "Acme"
    else:
        assert codes(found) == ["NOT_FOUND"]
        # The same page is still the person's to read.
        mine = await gql(client, ws.tokens["member"], READ_PAGES, {"page": page, "record": acme})
        assert data(mine)["memoryPage"]["name"] == "Team"
