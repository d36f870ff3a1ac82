"""What a Dreamer pass reads and writes: one owner's waiting items with their sources, the
facts of the members, actors and records they involve, the pages they may touch, the spend,
and the pass's results (items read, verdicts, proposals decided, the charge)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

import asyncpg
import orjson

from db.sql import queries

Q = queries("dreamer_pass")


@dataclass(frozen=True, slots=True)
class WorkspaceFacts:
    name: str
    ai_credits: bool
    person_limit: str | None
    tenant_limit: str | None


@dataclass(frozen=True, slots=True)
class MemberFacts:
    id: UUID
    name: str
    can_update_settings: bool
    readable: list[UUID]
    updatable: list[UUID]


@dataclass(frozen=True, slots=True)
class ActorFacts:
    kind: str
    id: UUID
    name: str
    owner_member_id: UUID


@dataclass(frozen=True, slots=True)
class RecordFacts:
    id: UUID
    object_id: UUID
    object: str
    label: str
    values: dict[str, Any]
    carries: bool
    satellite: bool
    points_to: list[UUID]
    readable: bool


async def waiting_items(
    conn: asyncpg.Connection,
    owner_kind: str,
    owner_id: UUID | None,
    now: datetime,
    mail_reach: timedelta,
) -> list[asyncpg.Record]:
    """The owner's waiting items, locked for this pass, in reading order, with their sources
    as a pass at ``now`` reads them (a mail exchange: its mail classified within ``mail_reach``
    before ``now``)."""
    rows: list[asyncpg.Record] = await conn.fetch(
        Q["waiting_items"], owner_kind, owner_id, now, mail_reach
    )
    return rows


async def close_items(
    conn: asyncpg.Connection, item_ids: Sequence[UUID], reason: str, at: datetime
) -> None:
    """Waiting items that will not be read after all, with their reason (and their
    proposals, decided ``at``)."""
    await conn.execute(Q["close_items"], list(item_ids), reason, at)


async def still_waiting(conn: asyncpg.Connection, item_ids: Sequence[UUID]) -> list[UUID]:
    """Of ``item_ids``, the ones still waiting, locked until the transaction ends."""
    return [row["id"] for row in await conn.fetch(Q["still_waiting"], list(item_ids))]


async def workspace_facts(conn: asyncpg.Connection) -> WorkspaceFacts:
    row = await conn.fetchrow(Q["workspace_facts"])
    assert row is not None, "acting in no workspace"
    return WorkspaceFacts(**dict(row))


async def members(conn: asyncpg.Connection, member_ids: Sequence[UUID]) -> list[MemberFacts]:
    rows = await conn.fetch(Q["members"], list(member_ids))
    return [MemberFacts(**dict(row)) for row in rows]


async def member_names(conn: asyncpg.Connection) -> set[str]:
    return {row["name"] for row in await conn.fetch(Q["member_names"])}


async def actors(conn: asyncpg.Connection, actor_ids: Sequence[UUID]) -> list[ActorFacts]:
    rows = await conn.fetch(Q["actors"], list(actor_ids))
    return [ActorFacts(**dict(row)) for row in rows]


async def records(
    conn: asyncpg.Connection,
    record_ids: Sequence[UUID],
    readable: Sequence[UUID],
    person: UUID | None,
) -> list[RecordFacts]:
    """Records with what routing needs, and whether ``person`` may read them."""
    rows = await conn.fetch(Q["records"], list(record_ids), list(readable), person)
    return [RecordFacts(**dict(row)) for row in rows]


async def updatable(
    conn: asyncpg.Connection, member: MemberFacts, record_ids: Sequence[UUID]
) -> set[UUID]:
    """Which of ``record_ids`` the member may update."""
    rows = await conn.fetch(
        Q["updatable"], member.id, list(record_ids), member.readable, member.updatable
    )
    return {row["id"] for row in rows}


async def live_pages(
    conn: asyncpg.Connection, about_ids: Sequence[UUID]
) -> list[tuple[UUID, str, UUID | None]]:
    """(page id, about kind, about id) of the live pages about ``about_ids`` and the
    workspace's profile."""
    rows = await conn.fetch(Q["live_pages"], list(about_ids))
    return [(row["id"], row["about_kind"], row["about_id"]) for row in rows]


async def spent(
    conn: asyncpg.Connection, payer_kind: str, payer_id: UUID | None, month: date
) -> Decimal:
    value: str = await conn.fetchval(Q["spent"], payer_kind, payer_id, month)
    return Decimal(value)


async def charge(
    conn: asyncpg.Connection, payer_kind: str, payer_id: UUID | None, month: date, cost: Decimal
) -> None:
    await conn.execute(Q["charge"], payer_kind, payer_id, month, str(cost))


async def defer(conn: asyncpg.Connection, item_ids: Sequence[UUID], until: datetime) -> None:
    await conn.execute(Q["defer"], list(item_ids), until)


async def count_attempt(conn: asyncpg.Connection, item_ids: Sequence[UUID], until: datetime) -> int:
    """One more failed attempt at reading the items, which wait until ``until``; the most
    attempts any of them has made."""
    rows = await conn.fetch(Q["count_attempt"], list(item_ids), until)
    return max((row["attempts"] for row in rows), default=0)


async def give_up(conn: asyncpg.Connection, item_ids: Sequence[UUID], at: datetime) -> None:
    """The items are not read (``reader_failed``), and their proposals with them."""
    await conn.execute(Q["give_up"], list(item_ids), at)


@dataclass(frozen=True, slots=True)
class PassRow:
    id: UUID
    owner_kind: str
    owner_id: UUID | None
    payer_kind: str
    payer_id: UUID | None
    reader: str
    items: int
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal
    started_at: datetime
    finished_at: datetime


async def insert_pass(conn: asyncpg.Connection, row: PassRow) -> None:
    await conn.execute(
        Q["insert_pass"],
        row.id,
        row.owner_kind,
        row.owner_id,
        row.payer_kind,
        row.payer_id,
        row.reader,
        row.items,
        row.input_tokens,
        row.output_tokens,
        str(row.cost_usd),
        row.started_at,
        row.finished_at,
    )


async def mark_read(
    conn: asyncpg.Connection, item_ids: Sequence[UUID], at: datetime, pass_id: UUID
) -> None:
    await conn.execute(Q["mark_read"], list(item_ids), at, pass_id)


def _plain(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as plain JSON values (ids as text) for a jsonb parameter."""
    plain: list[dict[str, Any]] = orjson.loads(orjson.dumps(list(rows), default=str))
    return plain


async def insert_verdicts(
    conn: asyncpg.Connection, verdicts: Sequence[dict[str, Any]], at: datetime
) -> None:
    """Verdict rows: item_id, number, verdict, reason, page_id, line_key, text."""
    if verdicts:
        await conn.execute(Q["insert_verdicts"], _plain(verdicts), at)


async def decide_proposals(
    conn: asyncpg.Connection, decided: Sequence[dict[str, Any]], at: datetime
) -> None:
    """Proposals' status and verdict: id, status, verdict."""
    if decided:
        await conn.execute(Q["decide_proposals"], _plain(decided), at)
