"""Consolidation's days and months are UTC's, whatever the offset of the time it runs at
(`skillmem dreamer run --now 2026-12-01T01:00+02:00` is the last hour of November in UTC, as
``consolidation_due`` counts it): the month it is charged to and checked against, the day its
reader is told, and the day a contexte's review falls due on."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

from db import consolidation as db_consolidation
from db.pool import begin_workspace
from resolvers.common import ids
from resolvers.memory.dreamer.reader import Usage
from tests.memory.cleanup.consolidating import (
    T0,
    Proposing,
    consolidate_at,
    due_at,
    fetch,
    page_at,
    souvenir,
)

# 01:00 on 1 December in a zone two hours ahead: 23:00 UTC on 30 November.
PARIS_SUMMER = timezone(timedelta(hours=2))
LAST_HOUR_OF_NOVEMBER = datetime(2026, 12, 1, 1, 0, tzinfo=PARIS_SUMMER)
TOKENS = Usage(input_tokens=100_000)  # $0.10 at $1 a million


async def test_a_run_at_a_time_with_an_offset_is_charged_to_the_utc_month(pool, ws):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    assert await due_at(pool, ws, LAST_HOUR_OF_NOVEMBER) == [("member", me, "rules")]
    reader = Proposing(usage=TOKENS)
    [report] = await consolidate_at(pool, ws, LAST_HOUR_OF_NOVEMBER, reader, per_mtok="1")
    assert report.ran and report.cost_usd == Decimal("0.1")
    [batch] = reader.batches
    assert batch.today == date(2026, 11, 30)
    rows = await fetch(pool, ws, "SELECT payer_id, month, cost_usd FROM memory_spend")
    assert [tuple(row) for row in rows] == [(me, date(2026, 11, 1), Decimal("0.1"))]


async def test_a_review_falls_due_on_its_utc_day(pool, ws):
    me = ws.members["member"]
    # Reviewed on 1 December (a contexte of 1 June).
    page = await page_at(
        pool, ws, T0, "member", me, [souvenir("Moving offices", "contexte", day="2026-06-01")]
    )
    page_id = ids.decode(page, "MemoryPage", ws.id)

    async def first_at(now: datetime) -> bool:
        async with pool.acquire() as conn, conn.transaction():
            await begin_workspace(conn, ws.id)
            [found] = await db_consolidation.pages_to_consolidate(
                conn, "member", me, T0 + timedelta(days=1), now, 10
            )
        assert found.id == page_id
        return found.first

    assert not await first_at(LAST_HOUR_OF_NOVEMBER)
    assert await first_at(datetime(2026, 12, 1, tzinfo=UTC))
    assert await first_at(datetime(2026, 12, 1, 2, 0, tzinfo=PARIS_SUMMER))
