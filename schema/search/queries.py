"""Search over memory and skills, and recall for harness agents."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from resolvers.common.pages import DEFAULT_PAGE_SIZE
from resolvers.search import search
from schema.context import Context
from schema.search.types import Recall, SearchObject, SearchResults


@strawberry.input
class RecallInput:
    query: str | None = strawberry.field(
        default=None, description="What the agent is about to do; none: the skill catalog only."
    )
    limit: int = strawberry.field(
        default=search.RECALL_MAX_ITEMS, description="Items at most (40 at most)."
    )
    max_chars: int = strawberry.field(
        default=search.RECALL_MAX_CHARS, description="Characters of text at most (6,000 at most)."
    )


@strawberry.type
class SearchQuery:
    @strawberry.field(
        description="Memory pages (by souvenir text) and skills (name, description, body)"
        " matching q, ranked, among what the caller may read. Accents fold: preference finds"
        " préférence."
    )
    async def search(
        self,
        info: Info[Context, None],
        q: str,
        objects: list[SearchObject] | None = None,
        first: int = DEFAULT_PAGE_SIZE,
    ) -> SearchResults:
        ctx = info.context
        wanted = [o.value for o in objects] if objects is not None else ["memory", "skill"]
        found = await search.search(ctx.conn, ctx.principal, q, wanted, first)
        return SearchResults.from_row(found)

    @strawberry.field(
        description="For harness agents: relevant memories inline and skills as catalog entries"
        " (name, trigger, path), within limit items and maxChars characters."
    )
    async def recall(self, info: Info[Context, None], input: RecallInput) -> Recall:
        ctx = info.context
        found = await search.recall(
            ctx.conn, ctx.principal, input.query, input.limit, input.max_chars
        )
        return Recall.from_row(found)
