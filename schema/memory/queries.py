"""Root fields that read memory."""

from __future__ import annotations

from uuid import UUID

import strawberry
from strawberry.types import Info

from resolvers.common import ids
from resolvers.common.errors import Problem, invalid
from resolvers.common.pages import DEFAULT_PAGE_SIZE, check_page_size
from resolvers.memory import history, pages, proposals, settings
from schema.context import Context
from schema.memory.types import (
    MemoryPage,
    MemoryPageKind,
    MemoryPreferences,
    MemoryProposal,
    MemoryVersion,
    TenantSettings,
)

# The global id type of what each kind of profile is about.
PROFILE_TYPES = {
    MemoryPageKind.MEMBER: "Member",
    MemoryPageKind.AGENT: "Agent",
    MemoryPageKind.ROUTINE: "Routine",
}


def decode_page_id(info: Info[Context, None], global_id: str, field: str = "pageId") -> UUID:
    return ids.decode(global_id, "MemoryPage", info.context.principal.workspace_id, field)


@strawberry.type
class MemoryQuery:
    @strawberry.field(description="A memory page by id; NOT_FOUND when absent or not readable.")
    async def memory_page(self, info: Info[Context, None], id: strawberry.ID) -> MemoryPage:
        ctx = info.context
        found = await pages.page(ctx.conn, ctx.principal, decode_page_id(info, id, "id"))
        return MemoryPage.from_row(found, ctx.principal.workspace_id)

    @strawberry.field(description="The live page of a record, if there is one the caller reads.")
    async def memory_page_by_record(
        self, info: Info[Context, None], record_id: strawberry.ID
    ) -> MemoryPage | None:
        ctx = info.context
        workspace = ctx.principal.workspace_id
        record = ids.decode_or_absent(record_id, "Record", workspace, "recordId")
        found = await pages.page_about(ctx.conn, ctx.principal, "record", record)
        return MemoryPage.from_row(found, workspace) if found else None

    @strawberry.field(
        description="The profile of a member, agent or routine (by its id), or of the"
        " workspace (no id), if the caller may read it."
    )
    async def memory_profile(
        self, info: Info[Context, None], kind: MemoryPageKind, id: strawberry.ID | None = None
    ) -> MemoryPage | None:
        ctx = info.context
        workspace = ctx.principal.workspace_id
        if kind is MemoryPageKind.RECORD:
            raise invalid(
                [Problem("a profile is of a member, agent, routine or the workspace", "kind")]
            )
        if kind is MemoryPageKind.WORKSPACE:
            if id is not None:
                raise invalid([Problem("the workspace profile takes no id", "id")])
            about = None
        elif id is None:
            raise invalid([Problem("name whose profile to read", "id")])
        else:
            about = ids.decode_or_absent(id, PROFILE_TYPES[kind], workspace, "id")
        found = await pages.page_about(ctx.conn, ctx.principal, kind.value, about)
        return MemoryPage.from_row(found, workspace) if found else None

    @strawberry.field(
        description="The caller's own profile, with the souvenirs it holds about records."
    )
    async def my_memories(self, info: Info[Context, None]) -> MemoryPage | None:
        ctx = info.context
        found = await pages.my_memories(ctx.conn, ctx.principal)
        return MemoryPage.from_row(found, ctx.principal.workspace_id) if found else None

    @strawberry.field(description="A page's versions, newest first.")
    async def memory_versions(
        self,
        info: Info[Context, None],
        page_id: strawberry.ID,
        first: int | None = DEFAULT_PAGE_SIZE,
        before: int | None = None,
    ) -> list[MemoryVersion]:
        ctx = info.context
        size = check_page_size(first)
        rows = await history.versions(
            ctx.conn, ctx.principal, decode_page_id(info, page_id), size, before
        )
        return [MemoryVersion.from_row(row, ctx.principal.workspace_id) for row in rows]

    @strawberry.field(description="One version of a page.")
    async def memory_version(self, info: Info[Context, None], id: strawberry.ID) -> MemoryVersion:
        ctx = info.context
        workspace = ctx.principal.workspace_id
        version_id = ids.decode(id, "MemoryVersion", workspace, "id")
        row = await history.version(ctx.conn, ctx.principal, version_id)
        return MemoryVersion.from_row(row, workspace)

    @strawberry.field(description="The caller's proposals, newest first, with their status.")
    async def my_memory_proposals(
        self, info: Info[Context, None], first: int | None = DEFAULT_PAGE_SIZE
    ) -> list[MemoryProposal]:
        ctx = info.context
        rows = await proposals.my_proposals(ctx.conn, ctx.principal, check_page_size(first))
        return [MemoryProposal.from_row(row, ctx.principal.workspace_id) for row in rows]

    @strawberry.field(description="The memory preferences of the person the request acts for.")
    async def memory_preferences(self, info: Info[Context, None]) -> MemoryPreferences:
        ctx = info.context
        return MemoryPreferences.from_row(await settings.preferences(ctx.conn, ctx.principal))

    @strawberry.field(description="The workspace's settings (memory allowances).")
    async def tenant_settings(self, info: Info[Context, None]) -> TenantSettings:
        return TenantSettings.from_row(await settings.allowances(info.context.conn))

    @strawberry.field(
        description="The workspace profile's ## Mission mémoire section, if the caller reads"
        " that profile and it has one."
    )
    async def memory_mission(self, info: Info[Context, None]) -> str | None:
        ctx = info.context
        found = await pages.page_about(ctx.conn, ctx.principal, "workspace", None)
        return found.mission if found else None
