"""What a subscriber hears of (issue 13, item 2): the lines a pass wrote or refreshed, and the
proposals it decided, read under the subscriber's own workspace and permissions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import asyncpg

from db.memory import Actor, LineRow, line_from_json
from db.memory_proposals import ProposalRow
from db.sql import queries

Q = queries("memory_updates")


@dataclass(frozen=True, slots=True)
class UpdatedLineRow:
    """A line a pass wrote or refreshed, as one reader sees it."""

    verdict: str
    page_id: UUID
    page_name: str
    key: str
    line: LineRow


async def updated_lines(
    conn: asyncpg.Connection, item_ids: Sequence[UUID], readable: Sequence[UUID], person: UUID
) -> list[UpdatedLineRow]:
    """The lines written or refreshed for ``item_ids`` that ``person`` may see, in order."""
    rows = await conn.fetch(Q["updated_lines"], list(item_ids), list(readable), person)
    found = []
    for row in rows:
        for raw in row["lines"]:
            found.append(
                UpdatedLineRow(
                    row["verdict"],
                    row["page_id"],
                    row["page_name"],
                    row["key"],
                    line_from_json(raw),
                )
            )
    return found


async def decided_proposals(
    conn: asyncpg.Connection,
    proposal_ids: Sequence[UUID],
    proposer: Actor,
    on_behalf_of: UUID | None,
) -> list[ProposalRow]:
    """The decided proposals among ``proposal_ids`` that ``proposer`` made for ``on_behalf_of``."""
    rows = await conn.fetch(
        Q["decided_proposals"], list(proposal_ids), proposer.kind, proposer.id, on_behalf_of
    )
    return [ProposalRow(**dict(row)) for row in rows]
