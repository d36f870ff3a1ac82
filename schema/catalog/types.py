"""The catalogue's types: the skills the product ships, and a search of the catalogue."""

from __future__ import annotations

from enum import Enum

import strawberry

from resolvers.catalog import search, shipped
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
