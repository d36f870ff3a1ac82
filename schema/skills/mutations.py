"""Mutations that write skills. Each changes nothing when it fails."""

from __future__ import annotations

import base64
import binascii

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from resolvers.common.errors import Problem, invalid
from resolvers.skills import writing
from resolvers.skills.versions import EXECUTABLE, REGULAR, NewFile
from schema.context import Context
from schema.records.types import Visibility
from schema.skills.queries import skill_node
from schema.skills.types import Skill


@strawberry.input
class CreateSkillInput:
    name: str
    description: str
    content: str | None = strawberry.field(
        default=None, description="The body; left out, the five-section template."
    )
    extra_frontmatter: JSON | None = None
    visibility: Visibility | None = strawberry.field(
        default=None, description="Workspace by default; a sub-skill has its parent's."
    )
    parent: str | None = strawberry.field(default=None, description="Files it as a sub-skill.")


@strawberry.input
class UpdateSkillInput:
    description: str | None = None
    content: str | None = None
    extra_frontmatter: JSON | None = None


def _content(text: str | None, content_base64: str | None) -> bytes:
    if (text is None) == (content_base64 is None):
        raise invalid([Problem("give exactly one of text and contentBase64", field="text")])
    if text is not None:
        return text.encode("utf-8")
    try:
        return base64.b64decode(content_base64 or "", validate=True)
    except (binascii.Error, ValueError):
        raise invalid([Problem("not valid base64", field="contentBase64")]) from None


@strawberry.type
class SkillsMutation:
    @strawberry.mutation(description="Create a skill (version 1).")
    async def create_skill(self, info: Info[Context, None], input: CreateSkillInput) -> Skill:
        row = await writing.create_skill(
            info.context.conn,
            info.context.principal,
            name=input.name,
            description=input.description,
            content=input.content,
            extra_frontmatter=input.extra_frontmatter,  # type: ignore[arg-type]
            visibility=input.visibility.value if input.visibility else None,
            parent=input.parent,
        )
        return skill_node(row, info)

    @strawberry.mutation(description="A new version with a new body, description or frontmatter.")
    async def update_skill(
        self, info: Info[Context, None], name: str, input: UpdateSkillInput
    ) -> Skill:
        row = await writing.update_skill(
            info.context.conn,
            info.context.principal,
            name,
            description=input.description,
            content=input.content,
            extra_frontmatter=input.extra_frontmatter,  # type: ignore[arg-type]
        )
        return skill_node(row, info)

    @strawberry.mutation(description="A new version with one file added or replaced.")
    async def put_skill_file(
        self,
        info: Info[Context, None],
        name: str,
        path: str,
        text: str | None = None,
        content_base64: str | None = None,
        executable: bool = False,
    ) -> Skill:
        content = _content(text, content_base64)
        mode = EXECUTABLE if executable else REGULAR
        row = await writing.put_skill_file(
            info.context.conn, info.context.principal, name, NewFile(path, content, mode)
        )
        return skill_node(row, info)

    @strawberry.mutation(description="A new version without one file.")
    async def delete_skill_file(self, info: Info[Context, None], name: str, path: str) -> Skill:
        row = await writing.delete_skill_file(info.context.conn, info.context.principal, name, path)
        return skill_node(row, info)

    @strawberry.mutation(description="Delete a skill and its versions.")
    async def delete_skill(self, info: Info[Context, None], name: str) -> bool:
        await writing.delete_skill(info.context.conn, info.context.principal, name)
        return True

    @strawberry.mutation(description="Count a use of a skill, with an optional lesson.")
    async def record_skill_use(
        self, info: Info[Context, None], name: str, lesson: str | None = None
    ) -> Skill:
        row = await writing.record_skill_use(
            info.context.conn, info.context.principal, name, lesson
        )
        return skill_node(row, info)

    @strawberry.mutation(
        description="Fold the waiting lessons into a new body, if the guards allow."
    )
    async def polish_skill(self, info: Info[Context, None], name: str) -> Skill:
        row = await writing.polish_skill(info.context.conn, info.context.principal, name)
        return skill_node(row, info)
