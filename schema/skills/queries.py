"""Root fields that read skills."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from db.skills import CatalogEntryRow, SkillRow
from resolvers.common import ids
from resolvers.common.pages import DEFAULT_PAGE_SIZE, check_page_size
from resolvers.skills import panel, reading
from schema.context import Context
from schema.records.types import PageInfo
from schema.skills.types import (
    Skill,
    SkillActivation,
    SkillCatalogEntry,
    SkillConnection,
    SkillEdge,
    SkillFileContent,
    SkillFormCheck,
    SkillPanelEntry,
    SkillTarget,
)


def skill_node(row: SkillRow, info: Info[Context, None]) -> Skill:
    """The GraphQL skill for a row read as the request's caller."""
    return Skill.from_row(row, info.context.principal.workspace_id)


@strawberry.input
class SkillFilter:
    name_contains: str | None = None
    parent: str | None = strawberry.field(default=None, description="Sub-skills of this skill.")


@strawberry.type
class SkillsQuery:
    @strawberry.field(description="Skills the caller may read, in name order.")
    async def skills(
        self,
        info: Info[Context, None],
        first: int | None = DEFAULT_PAGE_SIZE,
        after: str | None = None,
        filter: SkillFilter | None = None,
    ) -> SkillConnection:
        size = check_page_size(first)
        after_name = ids.decode_text_cursor(after) if after else None
        where = filter or SkillFilter()
        rows, more = await reading.skills_page(
            info.context.conn,
            info.context.principal,
            first=size,
            after=after_name,
            name_contains=where.name_contains,
            parent=where.parent,
        )
        edges = [
            SkillEdge(cursor=ids.encode_text_cursor(r.name), node=skill_node(r, info)) for r in rows
        ]
        return SkillConnection(
            edges=edges,
            page_info=PageInfo(
                has_next_page=more,
                has_previous_page=after is not None,
                start_cursor=edges[0].cursor if edges else None,
                end_cursor=edges[-1].cursor if edges else None,
            ),
        )

    @strawberry.field(description="One skill by name, at a version (default: the latest).")
    async def skill(
        self, info: Info[Context, None], name: str, version: int | None = None
    ) -> Skill | None:
        row = await reading.skill(info.context.conn, info.context.principal, name, version)
        return skill_node(row, info)

    @strawberry.field(description="Reading skill:<name>: its body, folder and file list.")
    async def skill_activation(
        self,
        info: Info[Context, None],
        name: str,
        version: int | None = None,
        target: SkillTarget = SkillTarget.SANDBOX,
    ) -> SkillActivation | None:
        value = await reading.activation(
            info.context.conn, info.context.principal, name, version, target.value
        )
        return SkillActivation.from_row(value)

    @strawberry.field(description="Reading skill:<name>/<path>: one file with its content.")
    async def skill_file(
        self, info: Info[Context, None], name: str, path: str, version: int | None = None
    ) -> SkillFileContent | None:
        row, content = await reading.skill_file(
            info.context.conn, info.context.principal, name, path, version
        )
        return SkillFileContent.from_row(row, content)

    @strawberry.field(
        description="The skills a model's prompt lists (dormant ones bare).",
        graphql_type=list[SkillCatalogEntry],
    )
    async def skill_catalog(self, info: Info[Context, None]) -> list[CatalogEntryRow]:
        # The statement's own records, completed as SkillCatalogEntry objects: its fields read
        # the attributes of the same names, which the records have. An object a row cost ~0.6
        # ms over 2,000 skills (BENCHMARKS.md).
        return await reading.catalog(info.context.conn, info.context.principal)

    @strawberry.field(
        description="The skills panel: the catalog's skills, most used first (ties in name "
        "order), with their trigger, uses, promoted and dormant badges and harness path."
    )
    async def skills_panel(self, info: Info[Context, None]) -> list[SkillPanelEntry]:
        entries = await panel.skills_panel(info.context.conn, info.context.principal)
        return [SkillPanelEntry.from_row(e) for e in entries]

    @strawberry.field(description="The L1 form checks of a skill, each passed or failed with why.")
    async def skill_form_check(self, info: Info[Context, None], name: str) -> list[SkillFormCheck]:
        checks = await reading.skill_form_check(info.context.conn, info.context.principal, name)
        return [SkillFormCheck.from_row(c) for c in checks]
