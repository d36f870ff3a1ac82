"""Root fields that read the catalogue."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.catalog import approvals, preview, search, shipped, updates
from resolvers.common.errors import Problem, invalid
from resolvers.common.pages import DEFAULT_PAGE_SIZE
from schema.catalog.approvals import CatalogApproval, CatalogApprovalStatus, CatalogUpdate
from schema.catalog.types import CatalogPreview, CatalogSearchResults, ShippedSkill
from schema.context import Context


@strawberry.type
class CatalogQuery:
    @strawberry.field(description="The skills the product ships, in name order.")
    def shipped_skills(self) -> list[ShippedSkill]:
        return [ShippedSkill.from_row(one) for one in shipped.shipped_skills()]

    @strawberry.field(
        description=(
            "Search the product's own skills by name and description (the text stays on the "
            "server) and, only when community is true, the community directory, once: the whole "
            "text, and up to three of its words that could name a skill. An agent may not ask "
            "the directory (FORBIDDEN): it asks its person with requestCatalogSearch."
        )
    )
    async def catalog_search(
        self, info: Info[Context, None], text: str, community: bool = False
    ) -> CatalogSearchResults:
        ctx = info.context
        if community and ctx.directory_asked:
            raise invalid([Problem(search.ONCE_PER_REQUEST, "community")])
        ctx.directory_asked = ctx.directory_asked or community
        found = await search.catalog_search(ctx.catalog, ctx.principal, text, community)
        return CatalogSearchResults.from_row(found)

    @strawberry.field(
        description=(
            "What adding `source` would land, written nowhere: `shipped:<name>` or a repository "
            "`owner/repo[/path][@ref]` (pinned to the commit the ref names now). "
            "SCHEMA_VALIDATION_FAILED for a malformed reference or a refused archive, "
            "NOT_FOUND for a source that is not there, INTERNAL (message kept) when the source "
            "does not answer. A folder the product would refuse answers `acceptable: false`."
        )
    )
    async def catalog_preview(self, info: Info[Context, None], source: str) -> CatalogPreview:
        ctx = info.context
        found = await preview.preview(ctx.conn, ctx.principal, ctx.catalog, source)
        return CatalogPreview.from_row(found)

    @strawberry.field(
        description=(
            "The caller's own skills added from a repository, each checked against its source "
            "now (what the catalogue shows when it opens): UPDATE_AVAILABLE when the ref names "
            "a newer commit (with a warning when the skill was changed here), SOURCE_NOT_FOUND "
            "when the repository or the ref is gone. Nothing changes."
        )
    )
    async def catalog_updates(self, info: Info[Context, None]) -> list[CatalogUpdate]:
        ctx = info.context
        found = await updates.check_updates(ctx.conn, ctx.principal, ctx.catalog)
        return [CatalogUpdate.from_check(c, ctx.principal.workspace_id) for c in found]

    @strawberry.field(
        description=(
            "For a person, the approvals their agents asked of them; for an agent, those it "
            "asked; newest first, of the statuses given (any by default)."
        )
    )
    async def approvals(
        self,
        info: Info[Context, None],
        statuses: list[CatalogApprovalStatus] | None = None,
        first: int = DEFAULT_PAGE_SIZE,
    ) -> list[CatalogApproval]:
        ctx = info.context
        wanted = [s.value for s in statuses] if statuses is not None else None
        rows = await approvals.approvals(ctx.conn, ctx.principal, wanted, first)
        return [CatalogApproval.from_row(r, ctx.principal.workspace_id) for r in rows]

    @strawberry.field(description="One approval the caller may see (as in approvals).")
    async def approval(self, info: Info[Context, None], id: strawberry.ID) -> CatalogApproval:
        ctx = info.context
        row = await approvals.approval(ctx.conn, ctx.principal, str(id))
        return CatalogApproval.from_row(row, ctx.principal.workspace_id)
