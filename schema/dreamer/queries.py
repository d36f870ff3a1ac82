"""What the Dreamer read and decided, what it spent, and what memory's cleanups changed:
memoryItems, memorySpend and memoryCleanups."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any
from uuid import UUID

import strawberry
from strawberry.types import Info

from db.dreamer_items import ItemRow, SpendRow
from resolvers.common import ids
from resolvers.memory.cleanup import visible as cleanups_visible
from resolvers.memory.dreamer import visible
from schema.context import Context
from schema.dreamer.cleanups import MemoryCleanup, MemoryCleanupKind, MemoryCleanupsPage
from schema.dreamer.types import MemoryItemStatus
from schema.mail.types import MailExchange


@strawberry.enum(description="What a pass did with one learning.")
class MemoryVerdictKind(Enum):
    WRITTEN = "written"
    REFRESHED = "refreshed"
    REFUSED = "refused"


@strawberry.type(description="One learning of an item and its verdict.")
class MemoryVerdict:
    verdict: MemoryVerdictKind
    reason: str | None = strawberry.field(
        description="Why it was refused: record_stores_it, log, task, one_off, not_durable,"
        " inference, sensitive_private_to_shared, no_subject, satellite_no_record,"
        " not_permitted, older_than_existing, person_version_kept, contradiction_in_doubt or"
        " cap_reached."
    )
    page_id: strawberry.ID | None = strawberry.field(
        description="The page written or refreshed (when you can open the item's source)."
    )
    line_key: str | None = strawberry.field(description="The souvenir's key on that page.")
    text: str | None = strawberry.field(description="What was learned (same condition).")

    @classmethod
    def from_row(cls, raw: dict[str, Any], workspace_id: UUID, shown: bool) -> MemoryVerdict:
        page = raw.get("page_id") if shown else None
        return cls(
            verdict=MemoryVerdictKind(raw["verdict"]),
            reason=raw.get("reason"),
            page_id=strawberry.ID(ids.encode("MemoryPage", workspace_id, UUID(str(page))))
            if page
            else None,
            line_key=raw.get("line_key") if shown else None,
            text=raw.get("text") if shown else None,
        )


@strawberry.type(description="Something the Dreamer read, keeps waiting, or did not read.")
class MemoryItem:
    id: strawberry.ID
    kind: str = strawberry.field(description="conversation, meeting, run, proposal or mail.")
    status: MemoryItemStatus
    reason: str | None = strawberry.field(description="Why it is not read.")
    said_at: datetime
    arrived_at: datetime
    read_at: datetime | None
    deferred_until: datetime | None = strawberry.field(
        description="Kept past its payer's allowance: read from then (or once it is raised)."
    )
    source_open: bool = strawberry.field(description="Whether you can open its source.")
    text: str | None = strawberry.field(description="What it said, when you can open it.")
    proposal_id: strawberry.ID | None
    payer_kind: str = strawberry.field(description="member or workspace.")
    payer_name: str | None
    cost_usd: str | None = strawberry.field(description="Its share of its pass's cost.")
    exchange: MailExchange | None = strawberry.field(
        description="A mail item's exchange (its mailbox, thread and window), when you can open it."
    )
    verdicts: list[MemoryVerdict]

    @classmethod
    def from_row(cls, row: ItemRow, workspace_id: UUID) -> MemoryItem:
        shown = row.source_open
        return cls(
            id=strawberry.ID(ids.encode("MemoryItem", workspace_id, row.id)),
            kind=row.kind,
            status=MemoryItemStatus(row.status),
            reason=row.reason,
            said_at=row.said_at,
            arrived_at=row.arrived_at,
            read_at=row.read_at,
            deferred_until=row.deferred_until,
            source_open=shown,
            text=row.text if shown else None,
            proposal_id=strawberry.ID(ids.encode("MemoryProposal", workspace_id, row.proposal_id))
            if row.proposal_id and shown
            else None,
            payer_kind=row.payer_kind,
            payer_name=row.payer_name,
            cost_usd=row.cost_usd,
            exchange=MailExchange.from_item(row, workspace_id) if shown else None,
            verdicts=[MemoryVerdict.from_row(v, workspace_id, shown) for v in row.verdicts],
        )


@strawberry.type(description="A page of memory items, newest first.")
class MemoryItemsPage:
    items: list[MemoryItem]
    end_cursor: str | None = strawberry.field(description="Pass it as `after` for more.")


@strawberry.type(description="What one payer spent on memory in a month (UTC).")
class MemorySpend:
    payer_kind: str = strawberry.field(description="member or workspace.")
    payer_id: strawberry.ID | None
    payer_name: str | None
    month: str = strawberry.field(description="YYYY-MM.")
    cost_usd: str
    passes: int

    @classmethod
    def from_row(cls, row: SpendRow, workspace_id: UUID) -> MemorySpend:
        return cls(
            payer_kind=row.payer_kind,
            payer_id=strawberry.ID(ids.encode("Member", workspace_id, row.payer_id))
            if row.payer_id
            else None,
            payer_name=row.payer_name,
            month=row.month.strftime("%Y-%m"),
            cost_usd=row.cost_usd,
            passes=row.passes,
        )


@strawberry.type
class DreamerQuery:
    @strawberry.field(
        description="What memory read, keeps waiting or did not read, with each learning's"
        " verdict: your own, or with `workspace: true` (admins) the workspace's."
    )
    async def memory_items(
        self,
        info: Info[Context, None],
        status: MemoryItemStatus | None = None,
        workspace: bool = False,
        first: int | None = None,
        after: str | None = None,
    ) -> MemoryItemsPage:
        ctx = info.context
        found = await visible.memory_items(
            ctx.conn,
            ctx.principal,
            status=status.value if status else None,
            every=workspace,
            first=first,
            after=after,
        )
        ws = ctx.principal.workspace_id
        return MemoryItemsPage(
            items=[MemoryItem.from_row(row, ws) for row in found.items],
            end_cursor=found.end_cursor,
        )

    @strawberry.field(description="What each payer spent on memory in a month (admins).")
    async def memory_spend(self, info: Info[Context, None], month: str) -> list[MemorySpend]:
        ctx = info.context
        rows = await visible.memory_spend(ctx.conn, ctx.principal, month)
        return [MemorySpend.from_row(row, ctx.principal.workspace_id) for row in rows]

    @strawberry.field(
        description="Memory's cleanup runs (the Monday removal, consolidations) with their"
        " changes and reasons: your own profile's, or with `workspace: true` (admins) every"
        " run; a change's page and text only when you may read that page."
    )
    async def memory_cleanups(
        self,
        info: Info[Context, None],
        kind: MemoryCleanupKind | None = None,
        workspace: bool = False,
        first: int | None = None,
        after: str | None = None,
    ) -> MemoryCleanupsPage:
        ctx = info.context
        found = await cleanups_visible.memory_cleanups(
            ctx.conn,
            ctx.principal,
            kind=kind.value if kind else None,
            every=workspace,
            first=first,
            after=after,
        )
        ws = ctx.principal.workspace_id
        return MemoryCleanupsPage(
            cleanups=[MemoryCleanup.from_row(row, ws) for row in found.runs],
            end_cursor=found.end_cursor,
        )
