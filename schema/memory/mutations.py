"""Mutations that write memory. Each changes nothing when it fails."""

from __future__ import annotations

from enum import Enum

import strawberry
from strawberry.types import Info

from resolvers.common import ids
from resolvers.memory import edits, history, proposals, settings
from resolvers.memory.reading import Page
from schema.context import Context
from schema.memory.queries import decode_page_id
from schema.memory.types import (
    MemoryPage,
    MemoryPreferences,
    MemoryProposal,
    MemoryVersion,
    TenantSettings,
)


@strawberry.enum
class MemoryPreferenceKey(Enum):
    SHARE_WITH_TEAM = "memory.shareWithTeam"
    LEARN_FROM_EMAIL = "memory.learnFromEmail"


@strawberry.input
class TenantSettingsInput:
    memory_person_monthly_limit_usd: str | None = strawberry.field(
        default=strawberry.UNSET,
        description='A decimal string with at most six decimals ("3", "0.50"); null: the'
        " default; left out: unchanged.",
    )
    memory_tenant_monthly_limit_usd: str | None = strawberry.field(
        default=strawberry.UNSET, description="As memoryPersonMonthlyLimitUsd."
    )
    ai_credits: bool | None = strawberry.field(
        default=strawberry.UNSET,
        description="Whether the workspace has AI credits (without them memory reads nothing);"
        " left out: unchanged.",
    )


def _page(info: Info[Context, None], found: Page) -> MemoryPage:
    return MemoryPage.from_row(found, info.context.principal.workspace_id)


@strawberry.type
class MemoryMutation:
    @strawberry.mutation(
        description="A person rewrites a page's content: lines kept word for word keep their"
        " keys, new or reworded lines become ✍ lines. With baseSha256 (the contentSha256 the"
        " edit started from), a page changed since answers MEMORY_PRECONDITION_FAILED."
    )
    async def edit_memory_page(
        self,
        info: Info[Context, None],
        page_id: strawberry.ID,
        content: str,
        base_sha256: str | None = None,
    ) -> MemoryPage:
        ctx = info.context
        local = decode_page_id(info, page_id)
        found = await edits.edit_page(ctx.conn, ctx.principal, local, content, base_sha256)
        return _page(info, found)

    @strawberry.mutation(description="A person deletes one souvenir by its page and key.")
    async def delete_souvenir(
        self, info: Info[Context, None], page_id: strawberry.ID, key: str
    ) -> MemoryPage:
        ctx = info.context
        local = decode_page_id(info, page_id)
        return _page(info, await edits.delete_souvenir(ctx.conn, ctx.principal, local, key))

    @strawberry.mutation(description="Take a trashed page out of the trash.")
    async def restore_memory_page(
        self, info: Info[Context, None], page_id: strawberry.ID
    ) -> MemoryPage:
        ctx = info.context
        local = decode_page_id(info, page_id)
        return _page(info, await history.restore_page(ctx.conn, ctx.principal, local))

    @strawberry.mutation(description="Write a version's content back, as a new version.")
    async def rollback_memory_page(
        self, info: Info[Context, None], version_id: strawberry.ID
    ) -> MemoryPage:
        ctx = info.context
        local = ids.decode(version_id, "MemoryVersion", ctx.principal.workspace_id, "versionId")
        return _page(info, await history.rollback(ctx.conn, ctx.principal, local))

    @strawberry.mutation(
        description="Scrub a version's content, keeping who made it, when and from where."
    )
    async def redact_memory_version(
        self, info: Info[Context, None], version_id: strawberry.ID
    ) -> MemoryVersion:
        ctx = info.context
        workspace = ctx.principal.workspace_id
        local = ids.decode(version_id, "MemoryVersion", workspace, "versionId")
        return MemoryVersion.from_row(
            await history.redact(ctx.conn, ctx.principal, local), workspace
        )

    @strawberry.mutation(
        description="Propose a learning for the Dreamer, with the record it is about and the"
        " conversation it comes from (the person's own id); at most 30 an hour per proposer."
    )
    async def propose_memory(
        self,
        info: Info[Context, None],
        text: str,
        record_id: strawberry.ID | None = None,
        conversation_id: str | None = None,
    ) -> MemoryProposal:
        ctx = info.context
        row = await proposals.propose(ctx.conn, ctx.principal, text, record_id, conversation_id)
        return MemoryProposal.from_row(row, ctx.principal.workspace_id)

    @strawberry.mutation(description="Set one of your own memory preferences.")
    async def set_memory_preference(
        self, info: Info[Context, None], key: MemoryPreferenceKey, value: bool
    ) -> MemoryPreferences:
        ctx = info.context
        found = await settings.set_preference(ctx.conn, ctx.principal, key.value, value)
        return MemoryPreferences.from_row(found)

    @strawberry.mutation(
        description="Set the monthly memory allowances (needs the settings update right)."
    )
    async def update_tenant_settings(
        self, info: Info[Context, None], input: TenantSettingsInput
    ) -> TenantSettings:
        ctx = info.context
        changes = {
            key: value
            for key, value in (
                ("memoryPersonMonthlyLimitUsd", input.memory_person_monthly_limit_usd),
                ("memoryTenantMonthlyLimitUsd", input.memory_tenant_monthly_limit_usd),
                ("aiCredits", input.ai_credits),
            )
            if value is not strawberry.UNSET
        }
        found = await settings.update_allowances(ctx.conn, ctx.principal, changes)
        return TenantSettings.from_row(found)
