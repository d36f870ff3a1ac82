"""Skills: the skill, its files, versions, activation, catalog entries and form checks."""

from __future__ import annotations

import base64
from datetime import date, datetime
from enum import Enum
from uuid import UUID

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from db.skills import FileRow, SkillRow, VersionRow
from resolvers.common import clock, ids
from resolvers.skills import service
from resolvers.skills.dormancy import is_dormant
from resolvers.skills.form import FormCheck
from resolvers.skills.service import Activation, CatalogEntry, script_flag
from schema.context import Context
from schema.records.types import PageInfo, Visibility


@strawberry.enum
class SkillTarget(Enum):
    SANDBOX = "sandbox"
    HARNESS = "harness"


@strawberry.type
class SkillFile:
    row: strawberry.Private[FileRow]

    @strawberry.field
    def path(self) -> str:
        return self.row.path

    @strawberry.field
    def size(self) -> int:
        return self.row.size

    @strawberry.field
    def sha256(self) -> str:
        return self.row.sha256

    @strawberry.field(description="An executable file, or a file under scripts/.")
    def script(self) -> bool:
        return script_flag(self.row)

    @strawberry.field
    def executable(self) -> bool:
        return bool(self.row.mode & 0o111)


@strawberry.type
class SkillFileContent:
    row: strawberry.Private[FileRow]
    content: strawberry.Private[bytes]

    @strawberry.field
    def file(self) -> SkillFile:
        return SkillFile(row=self.row)

    @strawberry.field(description="The content as text, or null when it is not UTF-8.")
    def text(self) -> str | None:
        try:
            return self.content.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @strawberry.field(description="The content, base64-encoded.")
    def base64(self) -> str:
        return base64.b64encode(self.content).decode()


@strawberry.type
class SkillVersion:
    row: strawberry.Private[VersionRow]

    @strawberry.field
    def version(self) -> int:
        return self.row.version

    @strawberry.field
    def description(self) -> str:
        return self.row.description

    @strawberry.field
    def author_name(self) -> str:
        return self.row.author_name

    @strawberry.field
    def created_at(self) -> datetime:
        return self.row.created_at


@strawberry.type
class SkillLesson:
    day: date
    text: str


@strawberry.type
class SkillActivation:
    value: strawberry.Private[Activation]

    @strawberry.field
    def name(self) -> str:
        return self.value.name

    @strawberry.field
    def version(self) -> int:
        return self.value.version

    @strawberry.field
    def body(self) -> str:
        return self.value.body

    @strawberry.field(description="Where the skill's folder is written for the agent.")
    def directory(self) -> str:
        return self.value.directory

    @strawberry.field(description="The skill's files by path, never their content.")
    def files(self) -> list[SkillFile]:
        return [SkillFile(row=f) for f in self.value.files]

    @strawberry.field(description="Its sub-skills the reader may read: read them by name.")
    def sub_skills(self) -> list[str]:
        return self.value.sub_skills


@strawberry.type
class SkillCatalogEntry:
    value: strawberry.Private[CatalogEntry]

    @strawberry.field
    def name(self) -> str:
        return self.value.name

    @strawberry.field(description="Null for a dormant skill.")
    def description(self) -> str | None:
        return self.value.description

    @strawberry.field
    def dormant(self) -> bool:
        return self.value.dormant


@strawberry.type
class SkillFormCheck:
    value: strawberry.Private[FormCheck]

    @strawberry.field(description="name, purpose, trigger, steps, check or reflex.")
    def check(self) -> str:
        return self.value.name

    @strawberry.field
    def passed(self) -> bool:
        return self.value.passed

    @strawberry.field
    def why(self) -> str:
        return self.value.why


@strawberry.type
class Skill:
    row: strawberry.Private[SkillRow]
    workspace_id: strawberry.Private[UUID]

    @strawberry.field(description="The skill's record id.")
    def id(self) -> strawberry.ID:
        return strawberry.ID(ids.encode("Record", self.workspace_id, self.row.id))

    @strawberry.field
    def name(self) -> str:
        return self.row.name

    @strawberry.field
    def description(self) -> str:
        return self.row.description

    @strawberry.field(description="The body of SKILL.md.")
    def content(self) -> str:
        return self.row.content

    @strawberry.field(description="SKILL.md's frontmatter beyond name and description, as written.")
    def extra_frontmatter(self) -> JSON:
        return self.row.extra_frontmatter  # type: ignore[return-value]

    @strawberry.field
    def visibility(self) -> Visibility:
        return Visibility(self.row.visibility)

    @strawberry.field(description="The version read.")
    def version(self) -> int:
        return self.row.version

    @strawberry.field
    def latest_version(self) -> int:
        return self.row.latest_version

    @strawberry.field(description="The parent's name, for a sub-skill.")
    def parent(self) -> str | None:
        return self.row.parent_name

    @strawberry.field
    def use_count(self) -> int:
        return self.row.use_count

    @strawberry.field(description="No use and 21 days or more since the last change.")
    def dormant(self) -> bool:
        return is_dormant(self.row.use_count, self.row.updated_at, clock.now())

    @strawberry.field(description="Where a catalogue install came from.")
    def source(self) -> JSON | None:
        return self.row.source  # type: ignore[return-value]

    @strawberry.field(description="Who wrote the version read.")
    def author(self) -> str:
        return self.row.author_name

    @strawberry.field
    def created_at(self) -> datetime:
        return self.row.created_at

    @strawberry.field
    def updated_at(self) -> datetime:
        return self.row.updated_at

    @strawberry.field(description="The files of the version read, never their content.")
    async def files(self, info: Info[Context, None]) -> list[SkillFile]:
        return [SkillFile(row=f) for f in await service.files(info.context.conn, self.row)]

    @strawberry.field(description="Every version, newest first.")
    async def versions(self, info: Info[Context, None]) -> list[SkillVersion]:
        return [SkillVersion(row=v) for v in await service.versions(info.context.conn, self.row)]

    @strawberry.field(description="The names of its sub-skills.")
    async def sub_skills(self, info: Info[Context, None]) -> list[str]:
        context = info.context
        return await service.sub_skills(context.conn, context.principal, self.row)

    @strawberry.field(description="Lessons waiting to be folded into the body by polish.")
    async def lessons(self, info: Info[Context, None]) -> list[SkillLesson]:
        waiting = await service.lessons(info.context.conn, self.row)
        return [SkillLesson(day=x.day, text=x.text) for x in waiting]


@strawberry.type
class SkillEdge:
    cursor: str
    node: Skill


@strawberry.type
class SkillConnection:
    edges: list[SkillEdge]
    page_info: PageInfo

    @strawberry.field
    def nodes(self) -> list[Skill]:
        return [edge.node for edge in self.edges]
