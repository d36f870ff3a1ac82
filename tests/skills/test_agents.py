"""Agents read skills and count their uses, never write them (seed 001: "Skills are read-only
from the agent's perspective"; seed 003: "When an agent uses a skill ... the usage count
increments"), whatever the role of the person they act for."""

from __future__ import annotations

from uuid import uuid4

import pytest

from db import identity
from db.pool import begin_workspace
from resolvers.common.principals import issue_token
from tests.factories import codes, gql
from tests.skills.test_service import CREATE, PUT_FILE, UPDATE, create
from tests.skills.test_transfer import folder, send_import, zip_of

NAME = "invoice-followup"
MUTATIONS = {
    "createSkill": (CREATE, {"input": {"name": "agent-made", "description": "By an agent."}}),
    "updateSkill": (UPDATE, {"name": NAME, "input": {"description": "Changed by an agent."}}),
    "putSkillFile": (PUT_FILE, {"name": NAME, "path": "notes.md", "text": "x", "x": False}),
    "deleteSkillFile": (
        'mutation($name: String!) { deleteSkillFile(name: $name, path: "a.md") { version } }',
        {"name": NAME},
    ),
    "deleteSkill": ("mutation($name: String!) { deleteSkill(name: $name) }", {"name": NAME}),
    "polishSkill": (
        "mutation($name: String!) { polishSkill(name: $name) { version } }",
        {"name": NAME},
    ),
}
USE = """mutation($name: String!, $lesson: String) {
  recordSkillUse(name: $name, lesson: $lesson) { name useCount }
}"""


async def admin_agent_token(pool, ws) -> str:
    """A token of an agent acting for the workspace's admin."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        agent = await identity.insert_actor(conn, "agent", uuid4(), "Builder", ws.members["admin"])
        return await issue_token(
            conn, "agent", member_id=ws.members["admin"], agent_id=agent.id, purpose="test"
        )


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
async def test_an_agent_cannot_write_skills_even_for_an_admin(client, pool, ws, mutation):
    # Regression: an agent acting for a person who may write skills could write them.
    put = {"name": NAME, "path": "a.md", "text": "a", "x": False}
    assert not codes(await create(client, ws.tokens["admin"], NAME))
    assert not codes(await gql(client, ws.tokens["admin"], PUT_FILE, put))
    query, variables = MUTATIONS[mutation]
    for token in (ws.tokens["agent"], await admin_agent_token(pool, ws)):
        assert codes(await gql(client, token, query, variables)) == ["FORBIDDEN"]
    query = '{ skill(name: "invoice-followup") { version } }'
    skill = await gql(client, ws.tokens["admin"], query)
    assert skill.json()["data"]["skill"]["version"] == 2


async def test_an_agent_cannot_import_skills(client, pool, ws):
    data = zip_of({"agent-made": folder("agent-made")})
    for token in (ws.tokens["agent"], await admin_agent_token(pool, ws)):
        response = await send_import(client, token, data)
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "FORBIDDEN"
    listed = await gql(client, ws.tokens["admin"], "{ skills { edges { node { name } } } }")
    assert listed.json()["data"]["skills"]["edges"] == []


async def test_an_agents_import_is_refused_before_its_archive_is_unpacked(client, pool, ws):
    """The right comes first: a malformed archive from an agent answers FORBIDDEN, not the
    archive's problems (nothing of it is unpacked)."""
    for token in (ws.tokens["agent"], await admin_agent_token(pool, ws)):
        response = await send_import(client, token, b"PK\x03\x04 not a zip")
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == "FORBIDDEN"


async def test_an_agent_records_its_uses_and_lessons(client, pool, ws):
    assert not codes(await create(client, ws.tokens["admin"], NAME))
    response = await gql(client, ws.tokens["agent"], USE, {"name": NAME, "lesson": "Be brief."})
    assert response.json()["data"]["recordSkillUse"] == {"name": NAME, "useCount": 1}
