"""A Dreamer pass's days and months are UTC's, whatever the offset of the time it runs at: the
month it is charged to and checked against, the month it defers to, the day its reader is
told."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

from db.pool import begin_workspace
from resolvers.memory.dreamer.passes import PassSettings, Prices, month_of, next_month
from resolvers.memory.dreamer.reader import Usage
from tests.memory.dreamer.dreaming import FixedReader, said
from tests.memory.dreamer.rulebook import dream_at

AHEAD = timezone(timedelta(hours=2))
BEHIND = timezone(timedelta(hours=-5))
# 01:00 on 1 December two hours ahead of UTC: 23:00 UTC on 30 November.
LAST_HOUR_OF_NOVEMBER = datetime(2026, 12, 1, 1, 0, tzinfo=AHEAD)


def test_the_month_and_the_next_are_utcs():
    assert month_of(LAST_HOUR_OF_NOVEMBER) == date(2026, 11, 1)
    assert next_month(LAST_HOUR_OF_NOVEMBER) == datetime(2026, 12, 1, tzinfo=UTC)
    # 20:00 on 31 December five hours behind: 01:00 UTC on 1 January.
    new_year = datetime(2026, 12, 31, 20, 0, tzinfo=BEHIND)
    assert month_of(new_year) == date(2027, 1, 1)
    assert next_month(new_year) == datetime(2027, 2, 1, tzinfo=UTC)
    assert next_month(new_year).utcoffset() == timedelta(0)


async def test_a_pass_at_a_time_with_an_offset_is_charged_to_the_utc_month(pool, ws, stand):
    said_at = LAST_HOUR_OF_NOVEMBER - timedelta(minutes=30)
    stand(said_at)
    await said(pool, ws, "member", "Remember: I prefer calls", said_at)
    reader = FixedReader(usage=Usage(input_tokens=100_000))
    settings = PassSettings(reader=reader, reader_name="test", prices=Prices(Decimal(1)))
    [report] = await dream_at(pool, ws, LAST_HOUR_OF_NOVEMBER, settings=settings)
    assert report.read == 1 and report.cost_usd == Decimal("0.1")
    [batch] = reader.calls
    assert batch.today == date(2026, 11, 30)
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rows = await conn.fetch("SELECT payer_id, month, cost_usd FROM memory_spend")
    assert [tuple(row) for row in rows] == [
        (ws.members["member"], date(2026, 11, 1), Decimal("0.1"))
    ]
