"""The turn context root field: the query frontends call on every turn."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.turns import turns
from schema.cards.types import TurnContext
from schema.context import Context


@strawberry.input
class TurnInput:
    message: str = strawberry.field(
        description="The message; it mentions records as @[Label](record:<id>)."
    )
    conversation_id: str | None = strawberry.field(
        default=None, description="The profiles are read once per conversation and kept."
    )
    message_id: str | None = strawberry.field(
        default=None, description="The cards are stored with it and replayed as written."
    )
    person_id: strawberry.ID | None = strawberry.field(
        default=None, description="The person the turn acts for (your token's)."
    )
    agent_id: strawberry.ID | None = strawberry.field(
        default=None, description="The agent whose profile is read (an agent's token: itself)."
    )
    attached_record_id: strawberry.ID | None = strawberry.field(
        default=None, description="The record whose page the message is sent from."
    )


@strawberry.type
class CardsQuery:
    @strawberry.field(
        description="What an agent reads this turn: the profiles, the record cards (read as the"
        " person), and the 4,000-character budget they share."
    )
    async def turn_context(self, info: Info[Context, None], input: TurnInput) -> TurnContext:
        ctx = info.context
        found = await turns.turn_context(
            ctx.conn,
            ctx.principal,
            turns.TurnInput(
                message=input.message,
                conversation_id=input.conversation_id,
                message_id=input.message_id,
                person_id=input.person_id,
                agent_id=input.agent_id,
                attached_record_id=input.attached_record_id,
            ),
        )
        return TurnContext.from_row(found)
