"""The catalogue's types: the skills the product ships, a search of the catalogue, a preview."""

from __future__ import annotations

from enum import Enum
from typing import Any

import strawberry

from resolvers.catalog import preview, search, shipped
from schema.records.types import VISIBILITIES, Visibility


@strawberry.type
class ShippedSkillFile:
    path: str = strawberry.field(description="Its path in the skill's folder.")
    size: int = strawberry.field(description="Its size in bytes.")
    script: bool = strawberry.field(description="Under scripts/, or with a script extension.")

    @classmethod
    def from_row(cls, value: shipped.ShippedFile) -> ShippedSkillFile:
        return cls(path=value.path, size=value.size, script=value.script)


@strawberry.type(description="A skill the product ships, offered in every workspace's catalogue.")
class ShippedSkill:
    name: str
    description: str
    skill_md: str = strawberry.field(description="Its SKILL.md as plain text.")
    files: list[ShippedSkillFile] = strawberry.field(description="Its other files.")
    visibility: Visibility = strawberry.field(description="Who will see it once added.")

    @classmethod
    def from_row(cls, value: shipped.ShippedSkill) -> ShippedSkill:
        return cls(
            name=value.name,
            description=value.description,
            skill_md=value.skill_md,
            files=[ShippedSkillFile.from_row(f) for f in value.files],
            visibility=VISIBILITIES[shipped.SHIPPED_VISIBILITY],
        )


@strawberry.enum(description="How one side of a catalogue search answered.")
class CatalogSideStatus(Enum):
    OK = "ok"
    UNAVAILABLE = "unavailable"
    NOT_ASKED = "not_asked"


@strawberry.enum(description="What a catalogue search came to.")
class CatalogSearchStatus(Enum):
    MATCHED = "matched"
    NO_MATCH = "no_match"
    UNAVAILABLE = "unavailable"


@strawberry.enum(description="Where a skill found in the catalogue comes from.")
class CatalogOrigin(Enum):
    PRODUCT = "product"
    COMMUNITY = "community"


@strawberry.type(description="A skill the catalogue found.")
class CatalogSearchHit:
    origin: CatalogOrigin = strawberry.field(description="The product's own, or the directory's.")
    name: str
    description: str | None = strawberry.field(description="The product's skills only.")
    source: str | None = strawberry.field(description="owner/repo, for a community skill.")
    skill_id: str = strawberry.field(description="Its id at its source (a product skill's name).")
    installs: int | None = strawberry.field(description="How often the directory counts it.")
    exact: bool = strawberry.field(description="Named exactly like the text or one of its words.")

    @classmethod
    def from_row(cls, value: search.CatalogHit) -> CatalogSearchHit:
        return cls(
            origin=CatalogOrigin(value.origin),
            name=value.name,
            description=value.description,
            source=value.source,
            skill_id=value.skill_id,
            installs=value.installs,
            exact=value.exact,
        )

    @classmethod
    def from_dict(cls, value: dict[str, Any]) -> CatalogSearchHit:
        """A hit kept in an approval's outcome (``CatalogHit`` as a dict)."""
        return cls.from_row(search.CatalogHit(**value))


@strawberry.type(description="A catalogue search: its skills, and how each side answered.")
class CatalogSearchResults:
    results: list[CatalogSearchHit] = strawberry.field(
        description="Named exactly first, then the product's own, then the most installed."
    )
    status: CatalogSearchStatus = strawberry.field(
        description="UNAVAILABLE only when nothing came back and a side did not answer."
    )
    own_status: CatalogSideStatus = strawberry.field(
        description="How the search of the product's own skills answered."
    )
    community_status: CatalogSideStatus = strawberry.field(
        description="How the community directory answered (NOT_ASKED unless community)."
    )
    sent: list[str] = strawberry.field(
        description="Every text sent to the community directory: the whole text, then words."
    )

    @classmethod
    def from_row(cls, value: search.CatalogResults) -> CatalogSearchResults:
        return cls(
            results=[CatalogSearchHit.from_row(h) for h in value.hits],
            status=CatalogSearchStatus(value.status),
            own_status=CatalogSideStatus(value.own_status),
            community_status=CatalogSideStatus(value.community_status),
            sent=list(value.sent),
        )


@strawberry.enum(description="Why a file is a script: the first rule that holds.")
class ScriptRule(Enum):
    EXECUTABLE = "executable"  # its mode is executable (0755 in the archive)
    SCRIPTS_FOLDER = "scripts_folder"  # it is under scripts/
    EXTENSION = "extension"  # .sh .bash .py .js .ts .rb .pl


@strawberry.type(description="One file that would land, SKILL.md included.")
class PreviewFile:
    path: str = strawberry.field(description="Its path in the skill's folder.")
    size: int = strawberry.field(description="Its size in bytes.")
    script: bool = strawberry.field(description="A script (scriptRule says why).")
    script_rule: ScriptRule | None = strawberry.field(
        description="Why it is a script: its mode is executable, it is under scripts/, or its "
        "extension is a script's; null when it is not one."
    )

    @classmethod
    def from_row(cls, value: preview.PreviewFile) -> PreviewFile:
        rule = ScriptRule(value.script) if value.script else None
        return cls(path=value.path, size=value.size, script=rule is not None, script_rule=rule)


@strawberry.type(description="Something the product's folder rules refuse, and where.")
class PreviewProblem:
    message: str
    field: str | None = strawberry.field(description="Where: folder/<field or file>.")
    line: int | None = strawberry.field(description="Its line in SKILL.md, when it has one.")


@strawberry.type(
    description=(
        "What adding a skill from the catalogue would land; nothing is written. A community "
        "source is pinned to the commit its reference names now: an install names `commit`."
    )
)
class CatalogPreview:
    source: str = strawberry.field(
        description="`shipped:<name>`, or the reference `owner/repo[/path][@ref]` as read."
    )
    shipped: bool = strawberry.field(description="A skill the product ships.")
    name: str = strawberry.field(description="Its name (the folder's when SKILL.md has none).")
    description: str | None = strawberry.field(description="Null when SKILL.md has none.")
    skill_md: str | None = strawberry.field(
        description="Its SKILL.md as plain text, never rendered; null when the folder has none."
    )
    files: list[PreviewFile] = strawberry.field(description="Every file, SKILL.md included.")
    visibility: Visibility = strawberry.field(
        description="Who will see it once added: the product's skills the workspace, a "
        "community skill only the person adding it."
    )
    name_taken: bool = strawberry.field(
        description="A skill of this name is already in the workspace: it cannot be added."
    )
    acceptable: bool = strawberry.field(
        description="The product's folder rules accept it (else `problems` says why)."
    )
    problems: list[PreviewProblem] = strawberry.field(description="Every problem, if any.")
    repository: str | None = strawberry.field(description="`owner/repo`; null when shipped.")
    path: str | None = strawberry.field(
        description='The folder inside the repository ("" its root); null when shipped.'
    )
    ref: str | None = strawberry.field(description="The ref asked for (HEAD: the default).")
    commit: str | None = strawberry.field(
        description="The full 40-hex commit the ref resolved to; null when shipped."
    )

    @classmethod
    def from_row(cls, value: preview.Preview) -> CatalogPreview:
        return cls(
            source=value.source,
            shipped=value.shipped,
            name=value.name,
            description=value.description,
            skill_md=value.skill_md,
            files=[PreviewFile.from_row(f) for f in value.files],
            visibility=VISIBILITIES[value.visibility],
            name_taken=value.name_taken,
            acceptable=value.acceptable,
            problems=[
                PreviewProblem(message=p.message, field=p.field, line=p.line)
                for p in value.problems
            ],
            repository=value.repository,
            path=value.path,
            ref=value.ref,
            commit=value.commit,
        )
