"""What a consolidation rereads (issue 11, item 4), in the workspace's transaction: the audience
checked again (no run started since it was found due, its payer under its allowance, AI
credits), then its pages, at most a given number, and the batch a reader gets of them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from db import consolidation, dreamer_pass
from db.consolidation import DueAudience, PageToConsolidate
from resolvers.common import clock, ids
from resolvers.memory.dreamer.consolidating import (
    Audience,
    ConsolidationBatch,
    ConsolidationLine,
    ConsolidationPage,
)
from resolvers.memory.dreamer.passes import allowance, month_of

RAN_MEANWHILE = "consolidated meanwhile"
NO_CREDITS = "the workspace has no AI credits"
OVER_ALLOWANCE = "over the allowance"
NO_MEMBER = "the member is gone"


@dataclass(frozen=True, slots=True)
class Reading:
    """One audience as reread: who it is, who pays, the batch, and the pages by their batch
    ids (with the versions they were read at)."""

    audience: DueAudience
    payer_kind: str
    payer_id: UUID | None
    batch: ConsolidationBatch
    pages: dict[str, PageToConsolidate]

    @property
    def changeable(self) -> bool:
        """Whether any line read may be changed (a ✍ line never is)."""
        return any(not line.human for page in self.batch.pages for line in page.lines)


async def read(
    conn: asyncpg.Connection, audience: DueAudience, started: datetime, limit: int
) -> Reading | str:
    """The audience's pages to consolidate and their batch; or why it does not run now (a
    run started since it was found due, its payer at its allowance, no AI credits): it is then
    looked at again at the next check, nothing recorded."""
    kind, who = audience.audience_kind, audience.audience_id
    facts = await consolidation.audience(conn, kind, who, started)
    if facts.last_run_at != audience.last_run_at:
        return RAN_MEANWHILE
    if facts.name is None:
        return NO_MEMBER
    workspace = await dreamer_pass.workspace_facts(conn)
    if not workspace.ai_credits:
        return NO_CREDITS
    payer_kind = "member" if kind == "member" else "workspace"
    spent = await dreamer_pass.spent(conn, payer_kind, who, month_of(started))
    if spent >= allowance(workspace, payer_kind):
        return OVER_ALLOWANCE
    since = audience.consolidated_at
    pages = await consolidation.pages_to_consolidate(conn, kind, who, since, started, limit)
    ws = audience.workspace_id
    by_id = {ids.encode("MemoryPage", ws, page.id): page for page in pages}
    batch = ConsolidationBatch(
        audience=Audience(
            kind="person" if kind == "member" else "workspace",
            id=ids.encode("Member", ws, who) if who is not None else None,
            name=facts.name,
        ),
        pages=tuple(_page(page_id, page) for page_id, page in by_id.items()),
        mission=facts.mission,
        today=clock.utc_day(started),
    )
    return Reading(audience, payer_kind, who, batch, by_id)


def _page(page_id: str, page: PageToConsolidate) -> ConsolidationPage:
    """A page as the reader gets it; each line's source a tag of the page's own (s1, s2 ... in
    the order they first appear; '' for none): enough to keep lines of different sources
    apart, without telling the reader what they are."""
    tags: dict[tuple[str | None, UUID | None], str] = {(None, None): ""}
    for line in page.lines:
        tags.setdefault((line.source_kind, line.source_id), f"s{len(tags)}")
    return ConsolidationPage(
        id=page_id,
        kind=page.about_kind,  # type: ignore[arg-type]
        name=page.name,
        lines=tuple(
            ConsolidationLine(
                key=line.key,
                type=line.type,  # type: ignore[arg-type]
                day=line.day,
                human=line.human,
                text=line.text,
                source=tags[line.source_kind, line.source_id],
            )
            for line in page.lines
        ),
    )
