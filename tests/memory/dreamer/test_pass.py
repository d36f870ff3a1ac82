"""The Dreamer's pass on the real database: batching time, what is written where, idempotence,
one pass at a time, spend and the allowance, the verdicts made visible."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from db.pool import begin_workspace
from resolvers.common.principals import principal_for_token
from resolvers.memory.dreamer import apply
from resolvers.memory.dreamer.messages import MessageInput, record_message
from resolvers.memory.dreamer.passes import (
    MAX_BATCH_ITEMS,
    MAX_READER_ATTEMPTS,
    PassSettings,
    Prices,
    owner_of,
    run_pass,
)
from resolvers.memory.dreamer.reader import ReaderError, Usage
from tests.factories import agent_id, company, local, make_page
from tests.memory.dreamer.dreaming import FixedReader, dream, items_of, lines_of, said

NOON = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)
COOKBOOK = (
    "Remember: @[Acme](record:{id}) wants every message in French, addressed to Claire Morel."
)


@pytest.fixture
async def acme(pool, ws):
    return await company(pool, ws, "Acme")


async def test_a_remember_request_is_written_a_few_minutes_later_on_the_records_page(
    pool, ws, acme, stand
):
    stand(NOON)
    item = await said(pool, ws, "member", COOKBOOK.format(id=acme), NOON)
    stand(NOON + timedelta(minutes=2))
    assert await dream(pool, ws, NOON + timedelta(minutes=2)) == []
    assert await lines_of(pool, ws, "record", local(ws, acme)) == []
    later = NOON + timedelta(minutes=6)
    stand(later)
    [report] = await dream(pool, ws, later)
    assert (report.read, report.written, report.refused) == (1, 1, 0)
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    assert line["text"] == "Acme wants every message in French, addressed to Claire Morel."
    assert (line["type"], line["author"], line["day"]) == ("relation", "Member", NOON.date())
    assert (line["source_kind"], line["source_id"]) == ("conversation", ws.members["member"])
    [row] = await items_of(pool, ws, [item])
    assert row["status"] == "read"
    [verdict] = row["verdicts"]
    assert (verdict["verdict"], verdict["line_key"]) == ("written", line["key"])


async def test_a_second_pass_writes_nothing_twice(pool, ws, acme, stand):
    stand(NOON)
    await said(pool, ws, "member", COOKBOOK.format(id=acme), NOON)
    later = NOON + timedelta(minutes=6)
    stand(later)
    await dream(pool, ws, later)
    assert await dream(pool, ws, later) == []
    owner = owner_of(ws.id, "member", ws.members["member"])
    again = await run_pass(pool, owner, PassSettings())
    assert again.note == "nothing waiting"
    assert len(await lines_of(pool, ws, "record", local(ws, acme))) == 1


async def test_a_pass_killed_before_it_commits_writes_nothing_and_is_run_again(
    pool, ws, acme, stand, monkeypatch
):
    stand(NOON)
    item = await said(pool, ws, "member", COOKBOOK.format(id=acme), NOON)
    later = NOON + timedelta(minutes=6)
    stand(later)
    real = apply.record

    async def killed(*args, **kwargs):
        raise KeyboardInterrupt("killed half-way")

    monkeypatch.setattr(apply, "record", killed)
    with pytest.raises(KeyboardInterrupt):
        await dream(pool, ws, later)
    assert await lines_of(pool, ws, "record", local(ws, acme)) == []
    [row] = await items_of(pool, ws, [item])
    assert row["status"] == "waiting"
    monkeypatch.setattr(apply, "record", real)
    [report] = await dream(pool, ws, later)
    assert report.written == 1
    assert len(await lines_of(pool, ws, "record", local(ws, acme))) == 1


async def test_two_passes_of_one_owner_never_run_together(pool, ws, acme, stand):
    stand(NOON)
    await said(pool, ws, "member", COOKBOOK.format(id=acme), NOON)
    stand(NOON + timedelta(minutes=6))
    gate = asyncio.Event()
    reader = FixedReader()
    reader.before = gate.wait
    settings = PassSettings(reader=reader)
    owner = owner_of(ws.id, "member", ws.members["member"])
    first = asyncio.create_task(run_pass(pool, owner, settings))
    await reader.called.wait()
    second = await run_pass(pool, owner, settings)
    gate.set()
    done = await first
    assert second.note == "running elsewhere" and second.read == 0
    assert done.written == 1
    assert len(reader.calls) == 1
    assert len(await lines_of(pool, ws, "record", local(ws, acme))) == 1


async def test_twenty_waiting_items_make_the_pass_due_at_once(pool, ws, stand):
    stand(NOON)
    for n in range(19):
        await said(pool, ws, "member", f"hello {n}", NOON + timedelta(seconds=n))
    at = NOON + timedelta(seconds=30)
    assert await dream(pool, ws, at) == []
    await said(pool, ws, "member", "hello 19", at)
    stand(at)
    [report] = await dream(pool, ws, at)
    assert report.read == 20 and report.refused == 20 and report.written == 0


async def test_without_a_request_the_pass_waits_about_an_hour(pool, ws, stand):
    stand(NOON)
    await said(pool, ws, "member", "we talked", NOON)
    await said(pool, ws, "member", "about the weather", NOON + timedelta(minutes=1))
    assert await dream(pool, ws, NOON + timedelta(minutes=59)) == []
    stand(NOON + timedelta(hours=1))
    [report] = await dream(pool, ws, NOON + timedelta(hours=1))
    assert (report.read, report.refused) == (2, 2)


# --- spend ---------------------------------------------------------------------------------


def priced(tokens: int = 1_000_000) -> PassSettings:
    """A reader that spends ``tokens`` input tokens a pass, at 1 USD a million."""
    reader = FixedReader(usage=Usage(input_tokens=tokens, output_tokens=0))
    return PassSettings(reader=reader, reader_name="test", prices=Prices(Decimal(1), Decimal(0)))


async def spent(pool, ws, who: str) -> Decimal:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        value = await conn.fetchval(
            "SELECT COALESCE(sum(cost_usd), 0) FROM memory_spend WHERE payer_id = $1",
            ws.members[who],
        )
    return Decimal(value)


async def test_a_pass_is_charged_to_its_person_and_the_crossing_pass_finishes(pool, ws, stand):
    # $1.00 a month by default; each pass costs $0.60: the second crosses it and finishes.
    settings = priced(600_000)
    for n in range(2):
        at = NOON + timedelta(hours=2 * n)
        stand(at)
        await said(pool, ws, "member", f"Remember: note {n}", at)
        stand(at + timedelta(minutes=6))
        [report] = await dream(pool, ws, at + timedelta(minutes=6), settings)
        assert report.read == 1 and report.cost_usd == Decimal("0.6")
    assert await spent(pool, ws, "member") == Decimal("1.2")
    # Over it: the next item is kept, deferred to the first day of next month.
    at = NOON + timedelta(hours=5)
    stand(at)
    [item] = [await said(pool, ws, "member", "Remember: note 2", at)]
    stand(at + timedelta(minutes=6))
    [report] = await dream(pool, ws, at + timedelta(minutes=6), settings)
    assert (report.read, report.waiting, report.note) == (0, 1, "over the allowance")
    [row] = await items_of(pool, ws, [item])
    assert row["status"] == "waiting"
    assert row["deferred_until"] == datetime(2026, 12, 1, tzinfo=UTC)
    assert await dream(pool, ws, datetime(2026, 11, 30, 23, 59, tzinfo=UTC), settings) == []
    december = datetime(2026, 12, 1, 0, 1, tzinfo=UTC)
    stand(december)
    [report] = await dream(pool, ws, december, settings)
    assert report.read == 1


# --- a reader that fails, and the size of a batch -----------------------------------------------


class Failing(FixedReader):
    """A reader whose every answer is malformed, after spending tokens."""

    async def read(self, batch):  # type: ignore[no-untyped-def]
        self.calls.append(batch)
        raise ReaderError("not JSON", usage=Usage(input_tokens=100_000))


async def test_a_failing_reader_is_tried_later_and_later_then_its_items_are_not_read(
    pool, ws, acme, stand
):
    stand(NOON)
    item = await said(pool, ws, "member", COOKBOOK.format(id=acme), NOON)
    reader = Failing()
    settings = PassSettings(reader=reader, reader_name="bad", prices=Prices(Decimal(1)))
    at = NOON + timedelta(minutes=6)
    waits = []
    for attempt in range(1, MAX_READER_ATTEMPTS + 1):
        stand(at)
        [report] = await dream(pool, ws, at, settings)
        assert report.read == 0 and len(reader.calls) == attempt
        [row] = await items_of(pool, ws, [item])
        assert row["attempts"] == attempt
        if attempt < MAX_READER_ATTEMPTS:
            assert row["status"] == "waiting"
            waits.append(row["deferred_until"] - at)
            # Not due again before its time.
            assert await dream(pool, ws, row["deferred_until"] - timedelta(seconds=1)) == []
            at = row["deferred_until"]
    assert waits == [timedelta(minutes=m) for m in (1, 2, 4, 8, 16)]
    assert (row["status"], row["reason"]) == ("not_read", "reader_failed")
    assert await dream(pool, ws, at + timedelta(days=1), settings) == []
    # Each malformed answer's tokens were spent: 6 x 100,000 tokens at $1 a million.
    assert await spent(pool, ws, "member") == Decimal("0.6")


async def test_a_batch_holds_at_most_fifty_items_and_the_next_follows(pool, ws, stand):
    stand(NOON)
    for n in range(MAX_BATCH_ITEMS + 5):
        await said(pool, ws, "member", f"note {n}", NOON + timedelta(seconds=n))
    at = NOON + timedelta(minutes=5)
    stand(at)
    reader = FixedReader()
    [report] = await dream(pool, ws, at, PassSettings(reader=reader))
    assert [len(batch.items) for batch in reader.calls] == [MAX_BATCH_ITEMS, 5]
    assert (report.read, report.refused, report.waiting) == (55, 55, 0)


async def test_a_stopping_process_ends_the_pass_after_its_batch_and_the_rest_waits(pool, ws, stand):
    stand(NOON)
    for n in range(MAX_BATCH_ITEMS + 5):
        await said(pool, ws, "member", f"note {n}", NOON + timedelta(seconds=n))
    at = NOON + timedelta(minutes=5)
    stand(at)
    reader = FixedReader()
    stopping = PassSettings(reader=reader, stopping=lambda: True)  # SIGTERM came meanwhile
    [report] = await dream(pool, ws, at, stopping)
    assert [len(batch.items) for batch in reader.calls] == [MAX_BATCH_ITEMS]
    assert (report.read, report.cut) == (MAX_BATCH_ITEMS, False)
    later = at + timedelta(hours=1)
    stand(later)
    [rest] = await dream(pool, ws, later, PassSettings(reader=reader))  # the next pass
    assert [len(batch.items) for batch in reader.calls] == [MAX_BATCH_ITEMS, 5]
    assert (rest.read, rest.waiting) == (5, 0)


async def test_a_reader_never_sees_the_private_profile_of_an_agents_owner(pool, ws, acme, stand):
    # Member talks with Scout, whom Admin owns: Admin's own profile is none of this pass's
    # business, and never goes to the reader; Member's own profile does.
    await make_page(
        pool, ws, "member", ws.members["admin"], "- Admin's secret — Admin, 2026-10-01 [relation]"
    )
    await make_page(
        pool, ws, "member", ws.members["member"], "- Member's own — Member, 2026-10-01 [relation]"
    )
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    clock_at = NOON
    stand(clock_at)
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens["member"])
        text = COOKBOOK.format(id=acme)
        await record_message(conn, principal, MessageInput("c9", "user", text, agent_id=scout))
    reader = FixedReader()
    later = NOON + timedelta(minutes=6)
    stand(later)
    [report] = await dream(pool, ws, later, PassSettings(reader=reader))
    assert report.written == 1
    [batch] = reader.calls
    texts = [line.text for line in batch.lines]
    assert "Member's own" in texts and "Admin's secret" not in texts
    member = ws.gid(ws.members["member"], "Member")
    assert [page.about_id for page in batch.pages if page.kind == "member"] == [member]
