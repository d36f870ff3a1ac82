"""Mutations about the caller's own credentials."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from db import identity
from schema.context import Context


@strawberry.type
class IdentityMutation:
    @strawberry.mutation(
        description="Revoke the token this request carries (sign out). Later requests with it "
        "answer UNAUTHENTICATED."
    )
    async def revoke_current_token(self, info: Info[Context, None]) -> bool:
        await identity.revoke_token(info.context.conn, info.context.principal.row.token_id)
        return True
