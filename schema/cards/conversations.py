"""A conversation created with its memory stores (seed 001's session resources): the types,
startConversation and the conversation query."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import strawberry
from strawberry.types import Info

from resolvers.common import ids
from resolvers.turns import attachments
from resolvers.turns.attachments import CreatedConversation, StartInput, StoreAttachment
from schema.context import Context


@strawberry.input(description="A memory store attached to a conversation at its creation.")
class ConversationStoreInput:
    memory_store_id: str = strawberry.field(
        description="The store's id (memstore_… as the Anthropic SDK's routes spell it, or its"
        " GraphQL id); the workspace's memory store attaches read_only only."
    )
    access: str = strawberry.field(
        default="read_write",
        description="read_only (the conversation's agent writes nothing to it) or read_write.",
    )
    instructions: str = strawberry.field(
        default="", description="What the agent is told of the store (at most 4,096 characters)."
    )


@strawberry.type(description="A memory store a conversation attached at its creation.")
class ConversationStore:
    memory_store_id: str = strawberry.field(description="memstore_…")
    access: str = strawberry.field(description="read_only or read_write.")
    instructions: str
    name: str
    description: str


@strawberry.type(description="A conversation created with its agent and memory stores.")
class StartedConversation:
    conversation_id: str = strawberry.field(description="Your own id (turnContext's).")
    agent_id: strawberry.ID | None
    created_at: datetime
    memory_stores: list[ConversationStore] = strawberry.field(description="In order, at most 8.")

    @classmethod
    def from_row(cls, found: CreatedConversation, workspace_id: UUID) -> StartedConversation:
        agent = found.agent_id
        return cls(
            conversation_id=found.conversation_id,
            agent_id=strawberry.ID(ids.encode("Agent", workspace_id, agent)) if agent else None,
            created_at=found.created_at,
            memory_stores=[
                ConversationStore(
                    memory_store_id=s.memory_store_id,
                    access=s.access,
                    instructions=s.instructions,
                    name=s.name,
                    description=s.description,
                )
                for s in found.memory_stores
            ],
        )


@strawberry.type
class ConversationsQuery:
    @strawberry.field(
        description="Your conversation as created by startConversation, with its memory stores"
        " (an agent's token: its own conversations); null when it was not created so."
    )
    async def conversation(
        self, info: Info[Context, None], conversation_id: str
    ) -> StartedConversation | None:
        ctx = info.context
        found = await attachments.conversation(ctx.conn, ctx.principal, conversation_id)
        return (
            None
            if found is None
            else StartedConversation.from_row(found, ctx.principal.workspace_id)
        )


@strawberry.type
class ConversationsMutation:
    @strawberry.mutation(
        description="Create your conversation before its first turn or message, with its agent"
        " (an agent's token: itself) and at most 8 memory stores. Stores attach at creation"
        " only: a conversation that has begun is refused (SCHEMA_VALIDATION_FAILED); a store"
        " you may not read is NOT_FOUND."
    )
    async def start_conversation(
        self,
        info: Info[Context, None],
        conversation_id: str,
        agent_id: strawberry.ID | None = None,
        memory_stores: list[ConversationStoreInput] | None = None,
    ) -> StartedConversation:
        ctx = info.context
        stores = [
            StoreAttachment(s.memory_store_id, s.access, s.instructions)
            for s in memory_stores or []
        ]
        given = StartInput(conversation_id, agent_id, stores)
        found = await attachments.start_conversation(ctx.conn, ctx.principal, given)
        return StartedConversation.from_row(found, ctx.principal.workspace_id)
