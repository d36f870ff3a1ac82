"""Root fields that read the catalogue."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.catalog import preview, shipped
from schema.catalog.types import CatalogPreview, ShippedSkill
from schema.context import Context


@strawberry.type
class CatalogQuery:
    @strawberry.field(description="The skills the product ships, in name order.")
    def shipped_skills(self) -> list[ShippedSkill]:
        return [ShippedSkill.from_row(one) for one in shipped.shipped_skills()]

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
