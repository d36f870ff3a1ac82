"""A turn's context: the profiles snapshot, the record cards and their budget."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry

from resolvers.turns import cards as domain
from resolvers.turns.conversations import Conversation
from resolvers.turns.turns import TurnContext as DomainTurnContext


@strawberry.enum
class CardSignal(Enum):
    MENTION = "mention"
    ATTACHED = "attached"
    PROFILE = "profile"


@strawberry.type(description="A principal value of a card, cut to 120 characters.")
class CardValue:
    attribute: str
    title: str
    value: str


@strawberry.type(description="A record related to a card's record (one the person may read).")
class CardRelated:
    record_id: strawberry.ID
    label: str
    object: str
    attribute: str
    direction: str = strawberry.field(
        description="to: the card's record points to it; from: it points to the card's record."
    )


@strawberry.type
class CardChange:
    actor_name: str
    at: str
    fields: list[str]


@strawberry.type
class CardSouvenir:
    key: str
    line: str = strawberry.field(description="As the person sees it (a closed source unlinked).")


@strawberry.type(description="What an agent is told about one record this turn.")
class Card:
    record_id: strawberry.ID
    label: str
    object: str
    object_name: str
    signal: CardSignal
    values: list[CardValue]
    related: list[CardRelated]
    last_change: CardChange | None
    souvenirs: list[CardSouvenir] = strawberry.field(description="The record page's souvenirs.")
    profile_souvenirs: list[CardSouvenir] = strawberry.field(
        description="The person's own profile souvenirs about the record."
    )
    text: str = strawberry.field(description="The card as the agent reads it.")

    @classmethod
    def from_row(cls, card: domain.Card, text: str | None = None) -> Card:
        """The card, its ``text`` when the caller rendered it already (else rendered here)."""
        change = card.last_change
        return cls(
            record_id=strawberry.ID(card.record_id),
            label=card.label,
            object=card.object,
            object_name=card.object_name,
            signal=CardSignal(card.signal),
            values=[
                CardValue(attribute=v.attribute, title=v.title, value=v.value) for v in card.values
            ],
            related=[
                CardRelated(
                    record_id=strawberry.ID(r.record_id),
                    label=r.label,
                    object=r.object,
                    attribute=r.attribute,
                    direction=r.direction,
                )
                for r in card.related
            ],
            last_change=CardChange(actor_name=change.actor_name, at=change.at, fields=change.fields)
            if change
            else None,
            souvenirs=[CardSouvenir(key=s.key, line=s.line) for s in card.souvenirs],
            profile_souvenirs=[
                CardSouvenir(key=s.key, line=s.line) for s in card.profile_souvenirs
            ],
            text=card.text if text is None else text,
        )


@strawberry.type(description="What the budget left out, and why.")
class DroppedItem:
    record_id: strawberry.ID
    kind: str = strawberry.field(description="souvenir or card")
    key: str | None
    reason: str


@strawberry.type(description="The characters all cards of a turn share.")
class CardBudget:
    limit: int
    used: int
    dropped: list[DroppedItem]


@strawberry.type(
    description="The profiles an agent reads at the start of a conversation (the person's"
    " souvenirs about records left out), kept until the conversation ends or is compacted."
)
class ProfileSnapshot:
    workspace: str | None
    person: str | None
    agent: str | None


@strawberry.type(description="What an agent reads this turn.")
class TurnContext:
    profiles: ProfileSnapshot
    cards: list[Card]
    budget: CardBudget
    text: str = strawberry.field(description="The cards' text, as the agent receives it.")
    replayed: bool = strawberry.field(
        description="The cards were stored with this message earlier and are replayed as written."
    )

    @classmethod
    def from_row(cls, context: DomainTurnContext) -> TurnContext:
        budget = context.budget
        # Each card rendered once (a card's text is rendered each time it is asked for).
        texts = [card.text for card in context.cards]
        return cls(
            profiles=ProfileSnapshot(
                workspace=context.profiles.workspace,
                person=context.profiles.person,
                agent=context.profiles.agent,
            ),
            cards=[
                Card.from_row(card, text) for card, text in zip(context.cards, texts, strict=True)
            ],
            budget=CardBudget(
                limit=budget.limit,
                used=budget.used,
                dropped=[
                    DroppedItem(
                        record_id=strawberry.ID(d.record_id),
                        kind=d.kind,
                        key=d.key,
                        reason=d.reason,
                    )
                    for d in budget.dropped
                ],
            ),
            text=domain.texts_joined(texts),
            replayed=context.replayed,
        )


@strawberry.type(
    description="A conversation's compactions and end: after a compaction its next turn reads"
    " the profiles afresh; once ended, only its messages' turns replay."
)
class ConversationState:
    conversation_id: str = strawberry.field(description="The person's own id (turnContext's).")
    compactions: int
    compacted_at: datetime | None = strawberry.field(description="The last compaction.")
    ended_at: datetime | None
    ended: bool

    @classmethod
    def from_row(cls, found: Conversation) -> ConversationState:
        state = found.state
        return cls(
            conversation_id=found.conversation_id,
            compactions=state.compactions,
            compacted_at=state.compacted_at,
            ended_at=state.ended_at,
            ended=state.ended_at is not None,
        )
