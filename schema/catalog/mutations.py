"""Mutations that add a skill from the catalogue. Each changes nothing when it fails."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.catalog import approvals, install, shipped, updates
from schema.catalog.approvals import CatalogApproval, CatalogCopy
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
            "is refused (FORBIDDEN): its copyFromCatalog asks its person."
        )
    )
    async def catalog_install(
        self, info: Info[Context, None], source: str, commit: str | None = None
    ) -> Skill:
        ctx = info.context
        row = await install.install(ctx.conn, ctx.principal, ctx.catalog, source, commit)
        return skill_node(row, info)

    @strawberry.mutation(
        description=(
            "Copy a skill from `catalog:<source>` (`shipped:<name>` or `owner/repo[/path]"
            "[@ref]`). A person's copy adds it at once, as catalogInstall does (a community "
            "source at `commit`, the one its preview answered). An agent's copy never does: it "
            "asks the person it works for, with a card (the source pinned to `commit`, or to "
            "the commit its ref names now, who will see the skill, how many files land, which "
            "are scripts); refused at once when the folder would be refused or its name is "
            "taken."
        )
    )
    async def copy_from_catalog(
        self, info: Info[Context, None], source: str, commit: str | None = None
    ) -> CatalogCopy:
        ctx = info.context
        workspace = ctx.principal.workspace_id
        if ctx.principal.kind == "agent":
            row = await approvals.ask_install(ctx.conn, ctx.principal, ctx.catalog, source, commit)
            return CatalogCopy(skill=None, approval=CatalogApproval.from_row(row, workspace))
        added = await install.install(ctx.conn, ctx.principal, ctx.catalog, source, commit)
        return CatalogCopy(skill=skill_node(added, info), approval=None)

    @strawberry.mutation(
        description=(
            "An agent's search of the community directory, asked of the person it works for: "
            "the card shows exactly the texts that would leave. Once approved, the approval's "
            "outcome holds what the directory found. Only an agent asks (a person searches "
            "with catalogSearch(community: true))."
        )
    )
    async def request_catalog_search(self, info: Info[Context, None], text: str) -> CatalogApproval:
        ctx = info.context
        row = await approvals.ask_search(ctx.conn, ctx.principal, ctx.catalog, text)
        return CatalogApproval.from_row(row, ctx.principal.workspace_id)

    @strawberry.mutation(
        description=(
            "Approve or decline an approval asked of you, from your own session. An approved "
            "install runs as you, all or nothing (refused: the approval stays pending); an "
            "approved search sends exactly the card's texts. NOT_FOUND for an approval not "
            "asked of you; MEMORY_PRECONDITION_FAILED once decided or expired."
        )
    )
    async def decide_approval(
        self, info: Info[Context, None], id: strawberry.ID, approve: bool
    ) -> CatalogApproval:
        ctx = info.context
        row = await approvals.decide(ctx.conn, ctx.principal, ctx.catalog, str(id), approve)
        return CatalogApproval.from_row(row, ctx.principal.workspace_id)

    @strawberry.mutation(
        description=(
            "Update a skill you added from a repository to `commit` (catalogUpdates' "
            "latestCommit), as a new version, keeping that commit as its source. When the "
            "skill was changed here since it was installed, refused with the warning "
            "(MEMORY_PRECONDITION_FAILED) unless `confirm` is true."
        )
    )
    async def catalog_update(
        self, info: Info[Context, None], name: str, commit: str, confirm: bool = False
    ) -> Skill:
        ctx = info.context
        row = await updates.update(ctx.conn, ctx.principal, ctx.catalog, name, commit, confirm)
        return skill_node(row, info)
