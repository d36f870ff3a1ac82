"""Search results and recall."""

from __future__ import annotations

from datetime import date
from enum import Enum

import strawberry

from resolvers.search import search


@strawberry.enum
class SearchObject(Enum):
    MEMORY = "memory"
    SKILL = "skill"
    CATALOG = "catalog"  # the product's own skills offered in the catalogue


@strawberry.type
class SearchHit:
    object: SearchObject
    id: str = strawberry.field(
        description="A memory page's id, a skill's name, or a catalogue source (shipped:<name>)."
    )
    title: str
    snippet: str = strawberry.field(
        description="The matching souvenir's words (never its source), or the skill's description."
    )
    rank: float

    @classmethod
    def from_row(cls, hit: search.Hit) -> SearchHit:
        return cls(
            object=SearchObject(hit.object),
            id=hit.id,
            title=hit.title,
            snippet=hit.snippet,
            rank=hit.rank,
        )


@strawberry.type
class SearchResults:
    hits: list[SearchHit]
    total: int = strawberry.field(description="How many readable pages and skills match.")
    capped: bool = strawberry.field(
        description="More souvenirs matched than a search ranks (2,000): total is a lower bound."
    )

    @classmethod
    def from_row(cls, found: search.Results) -> SearchResults:
        return cls(
            hits=[SearchHit.from_row(h) for h in found.hits],
            total=found.total,
            capped=found.capped,
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

    @classmethod
    def from_row(cls, found: search.Recall) -> Recall:
        return cls(
            memories=[
                RecalledMemory(page=m.page, type=m.type, text=m.text, day=m.day)
                for m in found.memories
            ],
            skills=[
                RecalledSkill(name=s.name, trigger=s.trigger, path=s.path) for s in found.skills
            ],
            text=found.text,
        )
