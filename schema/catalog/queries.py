"""Root fields that read the catalogue."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.catalog import preview, search, shipped
from resolvers.common.errors import Problem, invalid
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
            "the directory (FORBIDDEN: a person must search)."
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
