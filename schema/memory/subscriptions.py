"""Root fields that stream (issue 13, item 2), over graphql-transport-ws on /graphql
(gateway/http/subscriptions.py): the "Memory updated" lines after a pass, and proposals
decided."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from enum import Enum
from typing import TypeVar
from uuid import UUID

import strawberry
from strawberry.types import Info

from db.events import Listener
from resolvers.common import ids
from resolvers.common.principals import Principal
from resolvers.memory import updates
from schema.context import SubscriptionContext
from schema.memory.types import MemoryProposal

T = TypeVar("T")
S = TypeVar("S")


@strawberry.enum
class MemoryUpdateVerdict(Enum):
    WRITTEN = "written"
    REFRESHED = "refreshed"


@strawberry.type(
    description='A "Memory updated" line: a souvenir a Dreamer pass wrote or refreshed.'
)
class MemoryUpdate:
    page_id: strawberry.ID = strawberry.field(description="The page (memoryPage(id:) reads it).")
    page_name: str
    key: str = strawberry.field(description="The souvenir's key (deleteSouvenir takes it).")
    line: str = strawberry.field(description="The line as the subscriber sees it.")
    verdict: MemoryUpdateVerdict = strawberry.field(
        description="WRITTEN (a new line) or REFRESHED (its date moved: said again)."
    )

    @classmethod
    def from_row(cls, row: updates.UpdatedLine, workspace_id: UUID) -> MemoryUpdate:
        return cls(
            page_id=strawberry.ID(ids.encode("MemoryPage", workspace_id, row.page_id)),
            page_name=row.page_name,
            key=row.key,
            line=row.line,
            verdict=MemoryUpdateVerdict(row.verdict),
        )


def _subscriber(
    info: Info[SubscriptionContext, None],
) -> tuple[SubscriptionContext, Listener, Principal]:
    ctx = info.context
    # connection_init resolved the principal with a listener running, or closed the socket.
    assert ctx.principal is not None and ctx.events is not None
    return ctx, ctx.events, ctx.principal


async def _each(rows: AsyncIterator[T], make: Callable[[T], S]) -> AsyncIterator[S]:
    """``make`` of each row; the rows' stream closed with this one."""
    async with aclosing(rows):  # type: ignore[type-var]
        async for row in rows:
            yield make(row)


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="The lines Dreamer passes write or refresh from the subscriber's own items"
        " (their conversations, proposals, mail, meetings), on pages they may read, each as they"
        " see it; an API key (acting for no person) is refused."
    )
    async def memory_updated(
        self, info: Info[SubscriptionContext, None]
    ) -> AsyncIterator[MemoryUpdate]:
        ctx, events, principal = _subscriber(info)
        lines = updates.memory_updated(ctx.pool, events, ctx.token, principal)
        return _each(lines, lambda line: MemoryUpdate.from_row(line, principal.workspace_id))

    @strawberry.subscription(
        description="The subscriber's proposals (as myMemoryProposals lists them), as Dreamer"
        " passes decide them."
    )
    async def proposal_decided(
        self, info: Info[SubscriptionContext, None]
    ) -> AsyncIterator[MemoryProposal]:
        ctx, events, principal = _subscriber(info)
        rows = updates.proposal_decided(ctx.pool, events, ctx.token, principal)
        return _each(rows, lambda row: MemoryProposal.from_row(row, principal.workspace_id))
