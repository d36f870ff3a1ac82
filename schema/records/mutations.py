"""Mutations on records: the trash."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.common import ids
from resolvers.records import read, trash
from schema.context import Context
from schema.records.types import Record, record


@strawberry.type
class RecordsMutation:
    @strawberry.mutation(
        description="Move a record to the trash (needs the delete right): no one reads it until"
        " it is restored, and it keeps its memory page."
    )
    async def trash_record(self, info: Info[Context, None], id: strawberry.ID) -> bool:
        principal = info.context.principal
        local = ids.decode(id, "Record", principal.workspace_id)
        await trash.set_trashed(info.context.conn, principal, local, True)
        return True

    @strawberry.mutation(description="Take a record out of the trash (needs the delete right).")
    async def restore_record(self, info: Info[Context, None], id: strawberry.ID) -> Record:
        principal = info.context.principal
        local = ids.decode(id, "Record", principal.workspace_id)
        await trash.set_trashed(info.context.conn, principal, local, False)
        return record(await read.record(info.context.conn, principal, local), info)
