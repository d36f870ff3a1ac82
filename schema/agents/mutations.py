"""Creating an agent and choosing its tool groups (admins)."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.agents import agents
from resolvers.agents import skills as agent_skills
from resolvers.agents.skills import SkillAttachment
from schema.agents.types import Agent, AgentSkill, AgentSkillInput
from schema.context import Context


@strawberry.type
class AgentsMutation:
    @strawberry.mutation(
        description="Create an agent owned by you (admins only). toolGroups: among core and"
        " memory; core is always on; none given: core and memory. Unknown names are refused"
        " (SCHEMA_VALIDATION_FAILED, listing the groups)."
    )
    async def create_agent(
        self,
        info: Info[Context, None],
        name: str,
        tool_groups: list[str] | None = None,
    ) -> Agent:
        principal = info.context.principal
        row = await agents.create_agent(info.context.conn, principal, name, tool_groups)
        return Agent.from_row(row, principal.workspace_id)

    @strawberry.mutation(
        description="Replace an agent's tool groups (admins only); core stays whatever is"
        " asked. Without memory the agent neither reads nor saves memories."
    )
    async def set_agent_tool_groups(
        self, info: Info[Context, None], id: strawberry.ID, tool_groups: list[str]
    ) -> Agent:
        principal = info.context.principal
        row = await agents.set_tool_groups(info.context.conn, principal, id, tool_groups)
        return Agent.from_row(row, principal.workspace_id)

    @strawberry.mutation(
        description="Replace an agent's attached skills (admins only), at most 20: custom"
        " skills of the workspace at a version or latest, anthropic prebuilt skills by name."
        " Every problem is listed (SCHEMA_VALIDATION_FAILED) and nothing is changed; an agent"
        " or a skill you may not read is NOT_FOUND."
    )
    async def set_agent_skills(
        self, info: Info[Context, None], id: strawberry.ID, skills: list[AgentSkillInput]
    ) -> list[AgentSkill]:
        given = [SkillAttachment(s.type, s.skill_id, s.version) for s in skills]
        principal = info.context.principal
        found = await agent_skills.set_agent_skills(info.context.conn, principal, id, given)
        return [AgentSkill.from_row(s) for s in found]
