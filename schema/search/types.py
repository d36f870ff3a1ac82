"""Search results and recall."""

from __future__ import annotations

from datetime import date
from enum import Enum

import strawberry


@strawberry.enum
class SearchObject(Enum):
    MEMORY = "memory"
    SKILL = "skill"


@strawberry.type
class SearchHit:
    object: SearchObject
    id: str = strawberry.field(description="A memory page's id, or a skill's name.")
    title: str
    snippet: str = strawberry.field(
        description="The matching souvenir's words (never its source), or the skill's description."
    )
    rank: float


@strawberry.type
class SearchResults:
    hits: list[SearchHit]
    total: int = strawberry.field(description="How many readable pages and skills match.")
    capped: bool = strawberry.field(
        description="More souvenirs matched than a search ranks (2,000): total is a lower bound."
    )


@strawberry.type
class RecalledMemory:
    page: str
    type: str
    text: str
    day: date


@strawberry.type
class RecalledSkill:
    name: str
    trigger: str
    path: str = strawberry.field(description="Where its SKILL.md is on a harness.")


@strawberry.type
class Recall:
    memories: list[RecalledMemory]
    skills: list[RecalledSkill]
    text: str = strawberry.field(description="Ready to inject: memories, then the skill catalog.")
