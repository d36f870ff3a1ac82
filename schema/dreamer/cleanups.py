"""Memory's cleanup runs as GraphQL types (memoryCleanups): removals and consolidations, each
with its changes."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from uuid import UUID

import strawberry
from strawberry.types import Info

from db.cleanup_runs import ChangeRow, RunRow
from resolvers.common import ids
from resolvers.memory.cleanup import visible
from schema.context import Context


@strawberry.enum(description="The Monday removal, or a consolidation.")
class MemoryCleanupKind(Enum):
    REMOVAL = "removal"
    CONSOLIDATION = "consolidation"


@strawberry.type(description="One line a cleanup run changed, or a page it deleted, and why.")
class MemoryCleanupChange:
    number: int = strawberry.field(description="Its place in the run's changes, from 1.")
    change: str = strawberry.field(
        description="removed, retyped, rewritten, merged or page_deleted."
    )
    reason: str = strawberry.field(
        description="The removal's: ended, review_passed, source_gone, source_closed,"
        " page_empty; consolidation's: retyped, no_type, not_durable, principle, log,"
        " duplicate."
    )
    shown: bool = strawberry.field(
        description="Whether you may read its page: its page, key and texts show only then."
    )
    page_id: strawberry.ID | None
    line_key: str | None
    text: str | None = strawberry.field(description="What the line said.")
    new_text: str | None = strawberry.field(description="What it says now (a rewrite).")
    new_type: str | None = strawberry.field(description="Its new type (a retype).")

    @classmethod
    def from_row(cls, row: ChangeRow, workspace_id: UUID, shown: bool) -> MemoryCleanupChange:
        return cls(
            number=row.number,
            change=row.change,
            reason=row.reason,
            shown=shown,
            page_id=strawberry.ID(ids.encode("MemoryPage", workspace_id, row.page_id))
            if shown
            else None,
            line_key=row.line_key if shown else None,
            text=row.text if shown else None,
            new_text=row.new_text if shown else None,
            new_type=row.new_type if shown else None,
        )


@strawberry.type(description="One removal or consolidation run over one audience.")
class MemoryCleanup:
    run: strawberry.Private[RunRow]
    workspace_id: strawberry.Private[UUID]
    id: strawberry.ID
    kind: MemoryCleanupKind
    audience_kind: str = strawberry.field(
        description="member (one person's private pages: their profile) or workspace."
    )
    audience_id: strawberry.ID | None = strawberry.field(description="The member, if any.")
    audience_name: str | None
    trigger: str = strawberry.field(
        description="monday (the removal); written, week or rules (a consolidation)."
    )
    rules_version: int
    reader: str = strawberry.field(description="code for the removal (no model), else the reader.")
    payer_kind: str | None = strawberry.field(description="member or workspace; none: free.")
    payer_name: str | None
    pages_read: int
    lines_changed: int
    pages_deleted: int
    input_tokens: int
    output_tokens: int
    cost_usd: str
    note: str = strawberry.field(description="Why it did less than it could; empty otherwise.")
    started_at: datetime
    finished_at: datetime
    change_count: int = strawberry.field(description="How many changes it recorded.")

    @classmethod
    def from_row(cls, row: RunRow, workspace_id: UUID) -> MemoryCleanup:
        return cls(
            run=row,
            workspace_id=workspace_id,
            id=strawberry.ID(ids.encode("MemoryCleanup", workspace_id, row.id)),
            kind=MemoryCleanupKind(row.kind),
            audience_kind=row.audience_kind,
            audience_id=strawberry.ID(ids.encode("Member", workspace_id, row.audience_id))
            if row.audience_id
            else None,
            audience_name=row.audience_name,
            trigger=row.trigger,
            rules_version=row.rules_version,
            reader=row.reader,
            payer_kind=row.payer_kind,
            payer_name=row.payer_name,
            pages_read=row.pages_read,
            lines_changed=row.lines_changed,
            pages_deleted=row.pages_deleted,
            input_tokens=row.input_tokens,
            output_tokens=row.output_tokens,
            cost_usd=row.cost_usd,
            note=row.note,
            started_at=row.started_at,
            finished_at=row.finished_at,
            change_count=row.change_count,
        )

    @strawberry.field(description="Its changes in order, numbered after `after`.")
    async def changes(
        self, info: Info[Context, None], first: int = 20, after: int = 0
    ) -> list[MemoryCleanupChange]:
        size = visible.check_changes_window(first, after)
        loader = info.context.loaders.changes_by_cleanups
        rows = await loader.load((self.run.id, size, after))
        principal = info.context.principal
        return [
            MemoryCleanupChange.from_row(
                row, self.workspace_id, visible.change_shown(principal, row)
            )
            for row in rows
        ]


@strawberry.type(description="A page of cleanup runs, newest first.")
class MemoryCleanupsPage:
    cleanups: list[MemoryCleanup]
    end_cursor: str | None = strawberry.field(description="Pass it as `after` for more.")
