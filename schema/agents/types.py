"""An agent as admins see it: its name, tool groups and attached skills."""

from __future__ import annotations

from uuid import UUID

import strawberry
from strawberry.types import Info

from db.agents import AgentRow
from resolvers.agents import skills as agent_skills
from resolvers.agents.skills import AttachedSkill
from resolvers.common import ids
from schema.context import Context


@strawberry.type(
    description="A skill attached to an agent: custom (one of the workspace's skills, at a"
    " version or latest) or anthropic (a prebuilt skill the agent's runtime resolves)."
)
class AgentSkill:
    type: str = strawberry.field(description="custom or anthropic.")
    skill_id: str = strawberry.field(
        description="A custom skill's id as the Anthropic SDK's routes spell it (skill_…), or"
        " the prebuilt skill's name (xlsx, docx, pptx, pdf)."
    )
    version: str = strawberry.field(
        description="The pinned version number, or latest (the skill's newest, whichever it"
        " is when the agent reads it)."
    )
    name: str = strawberry.field(description="The skill's name.")

    @classmethod
    def from_row(cls, value: AttachedSkill) -> AgentSkill:
        return cls(type=value.type, skill_id=value.skill_id, version=value.version, name=value.name)


@strawberry.input(description="A skill to attach to an agent.")
class AgentSkillInput:
    type: str = strawberry.field(description="custom or anthropic.")
    skill_id: str = strawberry.field(
        description="custom: the skill's id (skill_… or its GraphQL id); anthropic: xlsx, docx,"
        " pptx or pdf."
    )
    version: str | None = strawberry.field(
        default=None, description="custom: a version number or latest (none: latest)."
    )


@strawberry.type(
    description="An agent of the workspace. Its tool groups say what it may reach: core"
    " (skills, records, search) always, memory (souvenirs in its cards, recall and search,"
    " proposeMemory, its conversations and runs read by the Dreamer) when listed."
)
class Agent:
    id: strawberry.ID
    name: str
    tool_groups: list[str] = strawberry.field(description="In order: core, then memory if on.")
    local_id: strawberry.Private[UUID]

    @strawberry.field(
        description="Its attached skills, in order (at most 20). With any attached, its skill"
        " catalog and recall offer only its attached custom skills, at their versions."
    )
    async def skills(self, info: Info[Context, None]) -> list[AgentSkill]:
        workspace = info.context.principal.workspace_id
        found = await agent_skills.attached_skills(info.context.conn, workspace, [self.local_id])
        return [AgentSkill.from_row(s) for s in found[self.local_id]]

    @classmethod
    def from_row(cls, row: AgentRow, workspace_id: UUID) -> Agent:
        return cls(
            id=strawberry.ID(ids.encode("Agent", workspace_id, row.id)),
            name=row.name,
            tool_groups=list(row.tool_groups),
            local_id=row.id,
        )
