"""A conversation compacted or ended: the profiles snapshot is kept until then."""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.types import Info

from resolvers.turns import conversations
from schema.cards.types import ConversationState
from schema.context import Context

ConversationId = Annotated[str, strawberry.argument(description="Your own id (turnContext's).")]


@strawberry.type
class CardsMutation:
    @strawberry.mutation(
        description="Mark your conversation compacted: its next turn reads the profiles afresh"
        " (an ended conversation: MEMORY_PRECONDITION_FAILED)."
    )
    async def compact_conversation(
        self,
        info: Info[Context, None],
        conversation_id: ConversationId,
    ) -> ConversationState:
        ctx = info.context
        found = await conversations.compact(ctx.conn, ctx.principal, conversation_id)
        return ConversationState.from_row(found)

    @strawberry.mutation(
        description="Record the end of your conversation: its messages' turns still replay, a"
        " new turn of it is refused. Ending it again answers the end recorded."
    )
    async def end_conversation(
        self,
        info: Info[Context, None],
        conversation_id: ConversationId,
    ) -> ConversationState:
        ctx = info.context
        found = await conversations.end(ctx.conn, ctx.principal, conversation_id)
        return ConversationState.from_row(found)
