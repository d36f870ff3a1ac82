"""The workspace's agents (admins)."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.agents import agents
from schema.agents.types import Agent
from schema.context import Context


@strawberry.type
class AgentsQuery:
    @strawberry.field(description="The workspace's agents, in name order (admins only).")
    async def agents(self, info: Info[Context, None]) -> list[Agent]:
        principal = info.context.principal
        rows = await agents.workspace_agents(info.context.conn, principal)
        return [Agent.from_row(row, principal.workspace_id) for row in rows]
