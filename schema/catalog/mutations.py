"""Mutations that add a skill from the catalogue. Each changes nothing when it fails."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.catalog import install, shipped
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

    @strawberry.mutation(
        description=(
            "Add a skill from the catalogue: `shipped:<name>` (no commit; visible to the "
            "workspace) or a repository reference at exactly `commit`, the 40-hex commit its "
            "catalogPreview answered (never what the reference names by then), private to the "
            "person adding it and keeping its source. All or nothing, like /skills/import: the "
            "right to create and update skills needed, a name already taken refused. An agent "
            "is refused (FORBIDDEN) until its install becomes an approval."
        )
    )
    async def catalog_install(
        self, info: Info[Context, None], source: str, commit: str | None = None
    ) -> Skill:
        ctx = info.context
        row = await install.install(ctx.conn, ctx.principal, ctx.catalog, source, commit)
        return skill_node(row, info)
