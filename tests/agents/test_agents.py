"""Agents as admins create and configure them, through GraphQL as the command line calls it:
``createAgent``, ``setAgentToolGroups`` and ``agents``; the groups stored; every refusal with
its code (unknown groups listing the accepted ones, a taken or bad name, an unknown id, another
workspace's agent), nothing stored when refused, and FORBIDDEN for every caller but an admin's
own session."""

from __future__ import annotations

import pytest

from db.pool import begin_workspace
from resolvers.common.principals import issue_token
from tests.factories import agent_id, codes, data, gql, problems

CREATE = """mutation CreateAgent($name: String!, $groups: [String!]) {
  createAgent(name: $name, toolGroups: $groups) { id name toolGroups }
}"""
CREATE_DEFAULT = """mutation($name: String!) { createAgent(name: $name) { id name toolGroups } }"""
SET = """mutation($id: ID!, $groups: [String!]!) {
  setAgentToolGroups(id: $id, toolGroups: $groups) { id name toolGroups }
}"""
AGENTS = "query { agents { id name toolGroups } }"


async def stored_groups(pool, ws) -> dict[str, list[str]]:
    """Every agent's stored groups, by name, read as the owner (past row-level security)."""
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT name, tool_groups FROM agents WHERE workspace_id = $1", ws.id
        )
    return {row["name"]: list(row["tool_groups"]) for row in rows}


async def test_a_new_agent_has_core_and_memory_by_default(client, pool, ws):
    made = data(await gql(client, ws.tokens["admin"], CREATE_DEFAULT, {"name": "Clerk"}))
    assert made["createAgent"]["name"] == "Clerk"
    assert made["createAgent"]["toolGroups"] == ["core", "memory"]
    assert (await stored_groups(pool, ws))["Clerk"] == ["core", "memory"]
    null = data(await gql(client, ws.tokens["admin"], CREATE, {"name": "Null", "groups": None}))
    assert null["createAgent"]["toolGroups"] == ["core", "memory"]


async def test_an_agent_made_without_memory_keeps_core(client, pool, ws):
    made = data(await gql(client, ws.tokens["admin"], CREATE, {"name": "Bare", "groups": []}))
    assert made["createAgent"]["toolGroups"] == ["core"]
    also = data(await gql(client, ws.tokens["admin"], CREATE, {"name": "Core", "groups": ["core"]}))
    assert also["createAgent"]["toolGroups"] == ["core"]
    assert (await stored_groups(pool, ws))["Bare"] == ["core"]


async def test_the_agents_query_lists_the_workspace_agents_in_name_order(client, pool, ws, ws2):
    await gql(client, ws.tokens["admin"], CREATE, {"name": "Archivist", "groups": ["core"]})
    await gql(client, ws2.tokens["admin"], CREATE, {"name": "Elsewhere"})
    found = data(await gql(client, ws.tokens["admin"], AGENTS))["agents"]
    assert [a["name"] for a in found] == ["Archivist", "Scout"]
    assert [a["toolGroups"] for a in found] == [["core"], ["core", "memory"]]
    assert found[1]["id"] == ws.gid(await agent_id(pool, ws), "Agent")


async def test_groups_are_replaced_and_core_cannot_be_removed(client, pool, ws):
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    off = data(await gql(client, ws.tokens["admin"], SET, {"id": scout, "groups": []}))
    assert off["setAgentToolGroups"] == {"id": scout, "name": "Scout", "toolGroups": ["core"]}
    assert (await stored_groups(pool, ws))["Scout"] == ["core"]
    on = data(await gql(client, ws.tokens["admin"], SET, {"id": scout, "groups": ["memory"]}))
    assert on["setAgentToolGroups"]["toolGroups"] == ["core", "memory"]
    assert (await stored_groups(pool, ws))["Scout"] == ["core", "memory"]


async def test_unknown_groups_are_refused_listing_the_accepted_ones(client, pool, ws):
    given = {"name": "Clerk", "groups": ["memory", "sandbox", "web"]}
    found = problems(await gql(client, ws.tokens["admin"], CREATE, given))
    assert [p["field"] for p in found] == ["toolGroups.1", "toolGroups.2"]
    assert all("core, memory" in p["message"] for p in found)
    assert "Clerk" not in await stored_groups(pool, ws)
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    found = problems(await gql(client, ws.tokens["admin"], SET, {"id": scout, "groups": ["x"]}))
    assert [p["field"] for p in found] == ["toolGroups.0"]
    assert (await stored_groups(pool, ws))["Scout"] == ["core", "memory"]


async def test_every_problem_of_a_creation_is_listed(client, pool, ws):
    given = {"name": " ", "groups": ["mem"]}
    found = problems(await gql(client, ws.tokens["admin"], CREATE, given))
    assert [p["field"] for p in found] == ["name", "toolGroups.0"]
    found = problems(await gql(client, ws.tokens["admin"], CREATE, {"name": "x" * 201}))
    assert [p["field"] for p in found] == ["name"]
    found = problems(await gql(client, ws.tokens["admin"], CREATE, {"name": "a\x07b"}))
    assert [p["field"] for p in found] == ["name"]
    assert set(await stored_groups(pool, ws)) == {"Scout"}


async def test_a_taken_name_is_refused(client, pool, ws):
    found = problems(await gql(client, ws.tokens["admin"], CREATE, {"name": "Scout"}))
    assert [p["field"] for p in found] == ["name"]
    assert (await stored_groups(pool, ws)) == {"Scout": ["core", "memory"]}


async def test_an_unknown_or_foreign_agent_is_not_found(client, pool, ws, ws2):
    foreign = ws2.gid(await agent_id(pool, ws2), "Agent")
    response = await gql(client, ws.tokens["admin"], SET, {"id": foreign, "groups": []})
    assert codes(response) == ["NOT_FOUND"]
    assert "Scout" not in response.text
    assert (await stored_groups(pool, ws2))["Scout"] == ["core", "memory"]
    member = ws.gid(ws.members["member"], "Member")
    assert codes(await gql(client, ws.tokens["admin"], SET, {"id": member, "groups": []})) == [
        "NOT_FOUND"
    ]
    found = problems(await gql(client, ws.tokens["admin"], SET, {"id": "nope", "groups": ["x"]}))
    assert [p["field"] for p in found] == ["id", "toolGroups.0"]


async def admins_agent(pool, ws) -> str:
    """A token of the workspace's agent acting for the admin (whose role has the settings
    right)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        return await issue_token(
            conn,
            "agent",
            member_id=ws.members["admin"],
            agent_id=await scout_id(conn),
            purpose="test",
        )


async def scout_id(conn):
    return await conn.fetchval("SELECT id FROM agents WHERE name = 'Scout'")


@pytest.mark.parametrize(
    "who", ["member", "viewer", "agent", "api_key", "mcp_client", "admins_agent"]
)
async def test_only_an_admin_creates_lists_and_configures_agents(client, pool, ws, who):
    token = await admins_agent(pool, ws) if who == "admins_agent" else ws.tokens[who]
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    assert codes(await gql(client, token, CREATE, {"name": "Mine"})) == ["FORBIDDEN"]
    assert codes(await gql(client, token, SET, {"id": scout, "groups": []})) == ["FORBIDDEN"]
    assert codes(await gql(client, token, AGENTS)) == ["FORBIDDEN"]
    assert (await stored_groups(pool, ws)) == {"Scout": ["core", "memory"]}
