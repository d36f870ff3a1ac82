"""Mutations that add a skill from the catalogue. Each changes nothing when it fails."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.catalog import shipped
from schema.context import Context
from schema.skills.queries import skill_node
from schema.skills.types import Skill


@strawberry.type
class CatalogMutation:
    @strawberry.mutation(
        description=(
            "Add a skill the product ships to the workspace, visible to it (the right to create "
            "and update skills needed); refused when a skill already has its name."
        )
    )
    async def add_shipped_skill(self, info: Info[Context, None], name: str) -> Skill:
        row = await shipped.add_shipped_skill(info.context.conn, info.context.principal, name)
        return skill_node(row, info)
