"""Root fields that read the catalogue."""

from __future__ import annotations

import strawberry

from resolvers.catalog import shipped
from schema.catalog.types import ShippedSkill


@strawberry.type
class CatalogQuery:
    @strawberry.field(description="The skills the product ships, in name order.")
    def shipped_skills(self) -> list[ShippedSkill]:
        return [ShippedSkill.from_row(one) for one in shipped.shipped_skills()]
