"""The skills an agent attaches (issue 14, item 6; seed 001): at most 20, custom skills of the
workspace at a pinned version or `latest`, prebuilt `anthropic` names kept as references; admins
set them through GraphQL; the agent's catalog, skills panel and recall offer only its attached
custom skills, at their versions (an agent with none attached is offered every readable
skill); every refusal with its code and nothing changed."""

from __future__ import annotations

from uuid import uuid4

from resolvers.agents.skills import SkillAttachment, parse_attachments, public_skill_id
from tests.factories import Workspace, agent_id, codes, data, gql, local, problems
from tests.skills.test_service import UPDATE, create

SET = """mutation SetSkills($id: ID!, $skills: [AgentSkillInput!]!) {
  setAgentSkills(id: $id, skills: $skills) { type skillId version name }
}"""
AGENTS = "query { agents { name skills { type skillId version name } } }"
CATALOG = "query { skillCatalog { name description } }"
ACTIVATE = "query($name: String!) { skillActivation(name: $name) { version } }"
PANEL = "query { skillsPanel { name } }"
RECALL = """query Recall($query: String) {
  recall(input: {query: $query}) { skills { name trigger } text }
}"""


async def make_skill(client, ws: Workspace, name: str, description: str) -> str:
    """A workspace skill made by the admin; its `skill_…` id."""
    made = data(await create(client, ws.tokens["admin"], name, description=description))
    assert made["createSkill"]["name"] == name
    found = data(await gql(client, ws.tokens["admin"], f'{{ skill(name: "{name}") {{ id }} }}'))
    return public_skill_id(ws.id, local(ws, found["skill"]["id"]))


async def scout(pool, ws: Workspace) -> str:
    return ws.gid(await agent_id(pool, ws), "Agent")


def custom(skill_id: str, version: str | None = None) -> dict[str, str | None]:
    return {"type": "custom", "skillId": skill_id, "version": version}


async def attach(client, ws: Workspace, agent: str, skills: list[dict[str, str | None]]):
    return await gql(client, ws.tokens["admin"], SET, {"id": agent, "skills": skills})


async def stored(pool, ws: Workspace) -> int:
    async with pool.acquire() as conn:
        value: int = await conn.fetchval(
            "SELECT count(*) FROM agent_skills WHERE workspace_id = $1", ws.id
        )
    return value


async def test_an_agent_attaches_20_skills_and_the_21st_is_refused(client, pool, ws):
    agent = await scout(pool, ws)
    ids = [await make_skill(client, ws, f"skill-{n:02}", f"Does {n}.") for n in range(21)]
    twenty = [custom(i) for i in ids[:20]]
    made = data(await attach(client, ws, agent, twenty))["setAgentSkills"]
    assert [s["name"] for s in made] == [f"skill-{n:02}" for n in range(20)]
    assert await stored(pool, ws) == 20
    refused = await attach(client, ws, agent, [*twenty, custom(ids[20])])
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    assert {"field": "skills", "message": "an agent attaches at most 20 skills"} in problems(
        refused
    )
    assert await stored(pool, ws) == 20
    # An anthropic one counts too.
    prebuilt = {"type": "anthropic", "skillId": "pdf", "version": None}
    assert codes(await attach(client, ws, agent, [*twenty, prebuilt])) == [
        "SCHEMA_VALIDATION_FAILED"
    ]


async def test_latest_follows_the_skill_and_a_pinned_version_stays(client, pool, ws):
    agent = await scout(pool, ws)
    pinned = await make_skill(client, ws, "pinned-skill", "First words.")
    latest = await make_skill(client, ws, "latest-skill", "First words.")
    await make_skill(client, ws, "unattached-skill", "Not for the agent.")
    made = data(await attach(client, ws, agent, [custom(pinned, "1"), custom(latest, "latest")]))
    assert [(s["name"], s["version"]) for s in made["setAgentSkills"]] == [
        ("pinned-skill", "1"),
        ("latest-skill", "latest"),
    ]
    for name in ("pinned-skill", "latest-skill"):
        changed = {"name": name, "input": {"description": "Second words."}}
        assert not codes(await gql(client, ws.tokens["admin"], UPDATE, changed))
    catalog = data(await gql(client, ws.tokens["agent"], CATALOG))["skillCatalog"]
    assert catalog == [
        {"name": "latest-skill", "description": "Second words."},
        {"name": "pinned-skill", "description": "First words."},
    ]
    # A person's catalog is every readable skill at its latest version.
    mine = data(await gql(client, ws.tokens["member"], CATALOG))["skillCatalog"]
    assert {s["name"]: s["description"] for s in mine} == {
        "latest-skill": "Second words.",
        "pinned-skill": "Second words.",
        "unattached-skill": "Not for the agent.",
    }
    listed = data(await gql(client, ws.tokens["admin"], AGENTS))["agents"]
    assert [s["version"] for s in listed[0]["skills"]] == ["1", "latest"]
    # Activated without a version, a pinned skill is the agent's version; the person's, latest.
    for token, version in ((ws.tokens["agent"], 1), (ws.tokens["member"], 2)):
        read = data(await gql(client, token, ACTIVATE, {"name": "pinned-skill"}))
        assert read["skillActivation"]["version"] == version


async def test_the_agents_catalog_panel_and_recall_list_its_attached_skills(client, pool, ws):
    agent = await scout(pool, ws)
    await make_skill(client, ws, "invoice-followup", "Chase an unpaid invoice.")
    chosen = await make_skill(client, ws, "invoice-dispute", "Answer an invoice dispute.")
    # Before any attachment the agent is offered every skill it may read.
    before = data(await gql(client, ws.tokens["agent"], RECALL, {"query": None}))["recall"]
    assert {s["name"] for s in before["skills"]} == {"invoice-followup", "invoice-dispute"}
    prebuilt = {"type": "anthropic", "skillId": "xlsx", "version": None}
    assert not codes(await attach(client, ws, agent, [custom(chosen), prebuilt]))
    for query, variables in ((RECALL, {"query": None}), (RECALL, {"query": "invoice"})):
        found = data(await gql(client, ws.tokens["agent"], query, variables))["recall"]
        assert [s["name"] for s in found["skills"]] == ["invoice-dispute"]
        assert "invoice-followup" not in found["text"]
    catalog = data(await gql(client, ws.tokens["agent"], CATALOG))["skillCatalog"]
    assert [s["name"] for s in catalog] == ["invoice-dispute"]
    panel = data(await gql(client, ws.tokens["agent"], PANEL))["skillsPanel"]
    assert [s["name"] for s in panel] == ["invoice-dispute"]
    # The person the agent acts for still sees both.
    theirs = data(await gql(client, ws.tokens["member"], RECALL, {"query": None}))["recall"]
    assert {s["name"] for s in theirs["skills"]} == {"invoice-followup", "invoice-dispute"}
    listed = data(await gql(client, ws.tokens["admin"], AGENTS))["agents"][0]["skills"]
    assert listed[1] == {
        "type": "anthropic",
        "skillId": "xlsx",
        "version": "latest",
        "name": "xlsx",
    }
    # Emptying the list offers every skill again.
    assert not codes(await attach(client, ws, agent, []))
    again = data(await gql(client, ws.tokens["agent"], CATALOG))["skillCatalog"]
    assert len(again) == 2


async def test_every_problem_is_listed_and_nothing_changes(client, pool, ws):
    agent = await scout(pool, ws)
    skill = await make_skill(client, ws, "invoice-followup", "Chase an unpaid invoice.")
    assert not codes(await attach(client, ws, agent, [custom(skill)]))
    given = [
        {"type": "plugin", "skillId": "x", "version": None},
        {"type": "anthropic", "skillId": "spreadsheet", "version": "3"},
        custom("not-an-id"),
        custom(skill, "0"),
        custom(skill, "two"),
    ]
    refused = await attach(client, ws, agent, given)
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    assert {p["field"] for p in problems(refused)} == {
        "skills[0].type",
        "skills[1].skillId",
        "skills[1].version",
        "skills[2].skillId",
        "skills[3].version",
        "skills[4].version",
        "skills[4].skillId",
    }
    missing_version = await attach(client, ws, agent, [custom(skill, "7")])
    assert problems(missing_version) == [
        {"field": "skills[0].version", "message": "the skill 'invoice-followup' has no version 7"}
    ]
    assert await stored(pool, ws) == 1


async def test_only_admins_attach_and_other_workspaces_ids_are_not_found(client, pool, ws, ws2):
    agent = await scout(pool, ws)
    skill = await make_skill(client, ws, "invoice-followup", "Chase an unpaid invoice.")
    for who in ("member", "agent", "api_key"):
        refused = await gql(client, ws.tokens[who], SET, {"id": agent, "skills": [custom(skill)]})
        assert codes(refused) == ["FORBIDDEN"]
    foreign_skill = await make_skill(client, ws2, "invoice-followup", "Theirs.")
    foreign_agent = await scout(pool, ws2)
    assert codes(await attach(client, ws, agent, [custom(foreign_skill)])) == ["NOT_FOUND"]
    assert codes(await attach(client, ws, foreign_agent, [custom(skill)])) == ["NOT_FOUND"]
    unknown = public_skill_id(ws.id, uuid4())
    assert codes(await attach(client, ws, agent, [custom(unknown)])) == ["NOT_FOUND"]
    assert await stored(pool, ws) == 0 and await stored(pool, ws2) == 0


def test_a_skill_is_attached_once_whatever_its_version():
    workspace = uuid4()
    skill = public_skill_id(workspace, uuid4())
    given = [
        SkillAttachment("anthropic", "pdf"),
        SkillAttachment("custom", skill, "1"),
        SkillAttachment("anthropic", "pdf"),
        SkillAttachment("custom", skill, "latest"),
    ]
    _, missing, found = parse_attachments(given, workspace)
    assert [p.field for p in found] == ["skills[2].skillId", "skills[3].skillId"]
    assert missing == []


async def test_a_deleted_skill_leaves_its_agents(client, pool, ws):
    agent = await scout(pool, ws)
    skill = await make_skill(client, ws, "invoice-followup", "Chase an unpaid invoice.")
    assert not codes(await attach(client, ws, agent, [custom(skill, "1")]))
    gone = 'mutation { deleteSkill(name: "invoice-followup") }'
    assert not codes(await gql(client, ws.tokens["admin"], gone))
    assert await stored(pool, ws) == 0
    assert data(await gql(client, ws.tokens["admin"], AGENTS))["agents"][0]["skills"] == []
