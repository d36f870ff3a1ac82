"""What the Dreamer read, keeps waiting or did not read, as people and admins see it, and
what each payer spent a month."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

import asyncpg
import orjson

from db.sql import queries

Q = queries("dreamer_items")


@dataclass(frozen=True, slots=True)
class ItemRow:
    id: UUID
    kind: str
    status: str
    reason: str | None
    said_at: datetime
    arrived_at: datetime
    read_at: datetime | None
    deferred_until: datetime | None
    owner_kind: str
    payer_kind: str
    payer_id: UUID | None
    payer_name: str | None
    cost_usd: str | None
    source_open: bool
    text: str | None
    proposal_id: UUID | None
    meeting_id: UUID | None
    # A mail item's exchange: mailbox_id, mailbox_name, thread_id, opened_at, quiet_since,
    # first_at, last_at.
    exchange: dict[str, Any] | None
    verdicts: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class SpendRow:
    payer_kind: str
    payer_id: UUID | None
    payer_name: str | None
    month: date
    cost_usd: str
    passes: int


async def items(
    conn: asyncpg.Connection,
    person: UUID | None,
    every: bool,
    status: str | None,
    first: int,
    after: tuple[datetime, UUID] | None,
    readable: list[UUID],
) -> list[ItemRow]:
    """A person's own items (every item of the workspace when ``every``), newest first."""
    at, last = after if after else (None, None)
    rows = await conn.fetch(Q["items"], person, every, status, first, at, last, readable)
    found = []
    for row in rows:
        values = dict(row)
        raw = values["verdicts"]
        values["verdicts"] = orjson.loads(raw) if isinstance(raw, str | bytes) else raw
        raw = values["exchange"]
        values["exchange"] = orjson.loads(raw) if isinstance(raw, str | bytes) else raw
        found.append(ItemRow(**values))
    return found


async def spend(conn: asyncpg.Connection, month: date) -> list[SpendRow]:
    """What each payer spent in ``month`` (its first day)."""
    return [SpendRow(**dict(row)) for row in await conn.fetch(Q["spend"], month)]
