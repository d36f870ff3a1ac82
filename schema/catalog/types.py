"""The catalogue's types: the skills the product ships."""

from __future__ import annotations

import strawberry

from resolvers.catalog import shipped
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
