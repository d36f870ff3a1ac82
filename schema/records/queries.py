"""Root fields over objects and records."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.common import ids
from resolvers.common.errors import Problem, invalid
from resolvers.common.pages import DEFAULT_PAGE_SIZE
from resolvers.records import objects, read
from schema.context import Context
from schema.records.types import (
    Record,
    RecordConnection,
    RecordFilter,
    RecordObject,
    connection,
    record,
)


@strawberry.type
class RecordsQuery:
    @strawberry.field(description="The objects the caller may read, with the caller's rights.")
    async def objects(self, info: Info[Context, None]) -> list[RecordObject]:
        views = await objects.readable_objects(info.context.conn, info.context.principal)
        return [RecordObject.from_row(v) for v in views]

    @strawberry.field(description="One record; NOT_FOUND when absent or not readable.")
    async def record(self, info: Info[Context, None], id: strawberry.ID) -> Record | None:
        principal = info.context.principal
        local = ids.decode(id, "Record", principal.workspace_id)
        return record(await read.record(info.context.conn, principal, local), info)

    @strawberry.field(description="Records of one object the caller may read, oldest first.")
    async def records(
        self,
        info: Info[Context, None],
        object: str,
        first: int | None = DEFAULT_PAGE_SIZE,
        after: str | None = None,
        filter: RecordFilter | None = None,
    ) -> RecordConnection:
        principal = info.context.principal
        where = read.RecordFilter()
        if filter is not None:
            related = None
            if filter.related_to is not None:
                related = ids.decode_or_absent(
                    filter.related_to, "Record", principal.workspace_id, "filter.relatedTo"
                )
            values = None
            if filter.values:
                names = [v.attribute for v in filter.values]
                if len(set(names)) != len(names):
                    raise invalid([Problem("an attribute is listed twice", field="filter.values")])
                values = {v.attribute: v.equals for v in filter.values}
            where = read.RecordFilter(filter.label_contains, values, related)
        page = await read.record_page(
            info.context.conn, principal, object, first=first, after=after, where=where
        )
        return connection(page.records, page.has_next_page, after is not None, info)
