"""Root fields about the caller and the workspace."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from db import identity
from schema.context import Context
from schema.identity.types import Me, Workspace


@strawberry.type
class IdentityQuery:
    @strawberry.field(description="The caller of this request.")
    def me(self, info: Info[Context, None]) -> Me:
        return Me.from_row(info.context.principal.row)

    @strawberry.field(description="The caller's workspace.")
    async def workspace(self, info: Info[Context, None]) -> Workspace:
        row = await identity.workspace(info.context.conn)
        assert row is not None  # the request's transaction is bound to this workspace
        return Workspace.from_row(row)
