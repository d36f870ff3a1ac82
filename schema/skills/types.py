"""Skills: the skill, its files, versions, activation, catalog entries and form checks."""

from __future__ import annotations

import base64
from datetime import date, datetime
from enum import Enum
from uuid import UUID

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from db.skill_polish import PolishRow
from db.skills import FileRow, SkillRow, VersionRow
from resolvers.common import clock, ids
from resolvers.skills import reading
from resolvers.skills.dormancy import is_dormant
from resolvers.skills.form import FormCheck
from resolvers.skills.panel import PROMOTED_MIN_USES, PanelEntry
from resolvers.skills.reading import Activation, script_flag
from schema.context import Context
from schema.records.types import VISIBILITIES, PageInfo, Visibility


@strawberry.enum
class SkillTarget(Enum):
    SANDBOX = "sandbox"
    HARNESS = "harness"


@strawberry.type
class SkillFile:
    path: str
    size: int
    sha256: str
    script: bool = strawberry.field(description="An executable file, or a file under scripts/.")
    executable: bool

    @classmethod
    def from_row(cls, row: FileRow) -> SkillFile:
        return cls(
            path=row.path,
            size=row.size,
            sha256=row.sha256,
            script=script_flag(row),
            executable=bool(row.mode & 0o111),
        )


@strawberry.type
class SkillFileContent:
    file: SkillFile
    content: strawberry.Private[bytes]

    @classmethod
    def from_row(cls, row: FileRow, content: bytes) -> SkillFileContent:
        return cls(file=SkillFile.from_row(row), content=content)

    # Decoded only when asked for: a file can be large.
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
    version: int
    description: str
    author_name: str
    created_at: datetime

    @classmethod
    def from_row(cls, row: VersionRow) -> SkillVersion:
        return cls(
            version=row.version,
            description=row.description,
            author_name=row.author_name,
            created_at=row.created_at,
        )


@strawberry.type
class SkillLesson:
    day: date
    text: str


@strawberry.type(description="One look of the automatic polish at a skill's state.")
class SkillPolish:
    version: int = strawberry.field(description="The version it read.")
    trigger: str = strawberry.field(
        description="lessons (3 or more waiting), form (the form check fails), or none."
    )
    outcome: str = strawberry.field(
        description="polished, refused (a guard refused the draft: the body was kept), "
        "unchanged, skipped, failed (the reader could not draft) or checked (nothing to do)."
    )
    new_version: int | None = strawberry.field(description="The version polish wrote.")
    reason: str = strawberry.field(description="Why it was refused, skipped or failed.")
    reader: str = strawberry.field(description="The reader that drafted.")
    cost_usd: str = strawberry.field(description="What drafting cost, in USD.")
    at: datetime

    @classmethod
    def from_row(cls, row: PolishRow) -> SkillPolish:
        return cls(
            version=row.version,
            trigger=row.trigger,
            outcome=row.outcome,
            new_version=row.new_version,
            reason=row.reason,
            reader=row.reader,
            cost_usd=str(row.cost_usd),
            at=row.created_at,
        )


@strawberry.type
class SkillActivation:
    name: str
    version: int
    body: str
    directory: str = strawberry.field(
        description="Where the skill's folder is written for the agent."
    )
    files: list[SkillFile] = strawberry.field(
        description="The skill's files by path, never their content."
    )
    sub_skills: list[str] = strawberry.field(
        description="Its sub-skills the reader may read: read them by name."
    )

    @classmethod
    def from_row(cls, value: Activation) -> SkillActivation:
        return cls(
            name=value.name,
            version=value.version,
            body=value.body,
            directory=value.directory,
            files=[SkillFile.from_row(f) for f in value.files],
            sub_skills=value.sub_skills,
        )


# The catalog's resolver gives its rows (db.skills.CatalogEntryRow) in place of these objects:
# they have the same attributes, which the fields read (schema/direct.py).
@strawberry.type
class SkillCatalogEntry:
    name: str
    description: str | None = strawberry.field(description="Null for a dormant skill.")
    dormant: bool


@strawberry.type
class SkillPanelEntry:
    name: str
    trigger: str | None = strawberry.field(
        description="When to use it, on one line, from its When to use section (with its "
        '"don\'t use when" part); null without that section.'
    )
    uses: int
    promoted: bool = strawberry.field(
        description=f"Used {PROMOTED_MIN_USES} times or more, and passing every form check."
    )
    dormant: bool = strawberry.field(
        description="No use and 21 days or more since the last change."
    )
    path: str = strawberry.field(description="Where a harness agent finds the skill's folder.")

    @classmethod
    def from_row(cls, value: PanelEntry) -> SkillPanelEntry:
        return cls(
            name=value.name,
            trigger=value.trigger,
            uses=value.uses,
            promoted=value.promoted,
            dormant=value.dormant,
            path=value.path,
        )


@strawberry.type
class SkillFormCheck:
    check: str = strawberry.field(description="name, purpose, trigger, steps, check or reflex.")
    passed: bool
    why: str

    @classmethod
    def from_row(cls, value: FormCheck) -> SkillFormCheck:
        return cls(check=value.name, passed=value.passed, why=value.why)


@strawberry.type
class Skill:
    id: strawberry.ID = strawberry.field(description="The skill's record id.")
    name: str
    description: str
    content: str = strawberry.field(description="The body of SKILL.md.")
    extra_frontmatter: JSON = strawberry.field(
        description="SKILL.md's frontmatter beyond name and description, as written."
    )
    visibility: Visibility
    version: int = strawberry.field(description="The version read.")
    latest_version: int
    parent: str | None = strawberry.field(description="The parent's name, for a sub-skill.")
    use_count: int
    dormant: bool = strawberry.field(
        description="No use and 21 days or more since the last change."
    )
    source: JSON | None = strawberry.field(description="Where a catalogue install came from.")
    author: str = strawberry.field(description="Who wrote the version read.")
    created_at: datetime
    updated_at: datetime
    row: strawberry.Private[SkillRow]

    @classmethod
    def from_row(cls, row: SkillRow, workspace_id: UUID) -> Skill:
        return cls(
            id=strawberry.ID(ids.encode("Record", workspace_id, row.id)),
            name=row.name,
            description=row.description,
            content=row.content,
            extra_frontmatter=JSON(row.extra_frontmatter),
            visibility=VISIBILITIES[row.visibility],
            version=row.version,
            latest_version=row.latest_version,
            parent=row.parent_name,
            use_count=row.use_count,
            dormant=is_dormant(row.use_count, row.updated_at, clock.now()),
            source=JSON(row.source) if row.source is not None else None,
            author=row.author_name,
            created_at=row.created_at,
            updated_at=row.updated_at,
            row=row,
        )

    @strawberry.field(description="The files of the version read, never their content.")
    async def files(self, info: Info[Context, None]) -> list[SkillFile]:
        return [SkillFile.from_row(f) for f in await reading.files(info.context.conn, self.row)]

    @strawberry.field(description="Every version, newest first.")
    async def versions(self, info: Info[Context, None]) -> list[SkillVersion]:
        rows = await reading.versions(info.context.conn, self.row)
        return [SkillVersion.from_row(v) for v in rows]

    @strawberry.field(description="The names of its sub-skills.")
    async def sub_skills(self, info: Info[Context, None]) -> list[str]:
        context = info.context
        return await reading.sub_skills(context.conn, context.principal, self.row)

    @strawberry.field(description="Lessons waiting to be folded into the body by polish.")
    async def lessons(self, info: Info[Context, None]) -> list[SkillLesson]:
        waiting = await reading.lessons(info.context.conn, self.row)
        return [SkillLesson(day=x.day, text=x.text) for x in waiting]

    @strawberry.field(description="The automatic polish's looks at it, newest first.")
    async def polishes(self, info: Info[Context, None]) -> list[SkillPolish]:
        found = await reading.polishes(info.context.conn, self.row)
        return [SkillPolish.from_row(row) for row in found]


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
