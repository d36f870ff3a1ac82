"""An agent as admins see it: its name and tool groups."""

from __future__ import annotations

from uuid import UUID

import strawberry

from db.agents import AgentRow
from resolvers.common import ids


@strawberry.type(
    description="An agent of the workspace. Its tool groups say what it may reach: core"
    " (skills, records, search) always, memory (souvenirs in its cards, recall and search,"
    " proposeMemory, its conversations and runs read by the Dreamer) when listed."
)
class Agent:
    id: strawberry.ID
    name: str
    tool_groups: list[str] = strawberry.field(description="In order: core, then memory if on.")

    @classmethod
    def from_row(cls, row: AgentRow, workspace_id: UUID) -> Agent:
        return cls(
            id=strawberry.ID(ids.encode("Agent", workspace_id, row.id)),
            name=row.name,
            tool_groups=list(row.tool_groups),
        )
