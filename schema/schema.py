"""The root schema, assembled from each domain's fields."""

from __future__ import annotations

import strawberry
from strawberry.schema.config import StrawberryConfig

from schema.identity.queries import IdentityQuery
from schema.records.queries import RecordsQuery


@strawberry.type
class Query(IdentityQuery, RecordsQuery):
    pass


schema = strawberry.Schema(query=Query, config=StrawberryConfig(auto_camel_case=True))
