"""A consolidation asks its reader in parts a chat model can take (issue 11, item 4): the pages
it rereads, in their order, in parts of at most a Dreamer batch's characters (a longer page
alone), their usage summed; a part that fails ends the asking, what was answered before it is
applied, everything spent is charged, and the run counts as one whose reader failed."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from resolvers.common import ids
from resolvers.memory.cleanup.asking import page_chars, parts
from resolvers.memory.dreamer.consolidating import (
    Audience,
    ConsolidationAnswer,
    ConsolidationBatch,
    ConsolidationLine,
    ConsolidationPage,
)
from resolvers.memory.dreamer.passes import MAX_BATCH_CHARS
from resolvers.memory.dreamer.reader import ReaderError, Usage
from tests.factories import load_records
from tests.memory.cleanup.consolidating import (
    HOUR,
    MINUTE,
    SECOND,
    T0,
    Proposing,
    consolidate_at,
    due_at,
    fetch,
    page_at,
    runs,
    souvenir,
    texts,
)

T1 = T0 + 30 * MINUTE
TOKENS = Usage(input_tokens=100_000, output_tokens=10)  # $0.10 at $1 a million


def a_page(n: int, chars: int) -> ConsolidationPage:
    line = ConsolidationLine(
        key=f"k{n}", type="relation", day=date(2026, 10, 2), human=False, text="x" * chars
    )
    return ConsolidationPage(id=f"p{n}", kind="record", name=f"Page {n}", lines=(line,))


def test_parts_keep_the_order_and_hold_to_the_cap_a_longer_page_alone():
    pages = (a_page(0, 300), a_page(1, 300), a_page(2, 2_000), a_page(3, 100), a_page(4, 300))
    batch = ConsolidationBatch(
        audience=Audience(kind="workspace", id=None, name="Acme"),
        pages=pages,
        mission="Keep what clients decide.",
        today=date(2026, 11, 10),
    )
    limit = page_chars(pages[0]) + page_chars(pages[1])
    found = parts(batch, limit)
    assert [[p.id for p in part.pages] for part in found] == [
        ["p0", "p1"],
        ["p2"],  # longer than the cap: alone
        ["p3", "p4"],
    ]
    assert all(
        (part.audience, part.mission, part.today) == (batch.audience, batch.mission, batch.today)
        for part in found
    )
    # A cap every page fits in: one part; a batch of no page: none.
    assert parts(batch, 10**6) == [batch]
    assert parts(batch.model_copy(update={"pages": ()})) == []


async def pages_over_the_cap(pool, ws, count: int = 20) -> list[str]:
    """``count`` record pages of about 3,900 characters each (over ``MAX_BATCH_CHARS`` in
    all), each holding two lines saying the same; their ids, the most recently written first."""
    companies = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "label": f"Company {n:02d}"} for n in range(count)],
    )
    pages = []
    for n, gid in enumerate(companies):
        text = f"{n:02d} " + "x" * 1_750
        lines = [souvenir(text), souvenir(text + "!")]
        about = ids.decode(gid, "Record", ws.id)
        pages.append(await page_at(pool, ws, T0 + n * SECOND, "record", about, lines))
    return pages[::-1]


async def test_pages_over_the_cap_are_read_in_parts_their_usage_summed(pool, ws):
    pages = await pages_over_the_cap(pool, ws)
    reader = Proposing(usage=TOKENS)
    [report] = await consolidate_at(pool, ws, T1, reader, per_mtok="1")
    # Two calls, each under the cap, the pages in their order.
    assert len(reader.batches) == 2
    assert all(
        sum(page_chars(page) for page in batch.pages) <= MAX_BATCH_CHARS for batch in reader.batches
    )
    assert sum(page_chars(page) for page in reader.batches[0].pages) > MAX_BATCH_CHARS * 0.9
    assert [page.id for batch in reader.batches for page in batch.pages] == pages
    # Both parts' proposals applied, both calls charged, under the rules.
    assert (report.pages_read, report.lines_changed, report.note) == (20, 20, "")
    assert report.cost_usd == Decimal("0.2")
    [run] = await runs(pool, ws)
    assert (run["rules_version"], run["input_tokens"], run["output_tokens"]) == (1, 200_000, 20)
    for page in pages:
        assert len(await texts(pool, ws, page)) == 1


async def test_a_part_that_fails_keeps_what_was_answered_and_charges_every_call(pool, ws):
    pages = await pages_over_the_cap(pool, ws)
    reader = Proposing(usage=TOKENS)
    original = reader.consolidate

    async def second_fails(batch: ConsolidationBatch) -> ConsolidationAnswer:
        if reader.batches:
            reader.batches.append(batch)
            raise ReaderError("the model did not answer within 60 s", usage=TOKENS)
        return await original(batch)

    reader.consolidate = second_fails  # type: ignore[method-assign]
    [report] = await consolidate_at(pool, ws, T1, reader, per_mtok="1")
    first, second = ([p.id for p in batch.pages] for batch in reader.batches)
    assert first + second == pages
    assert report.note == (
        "the reader failed: the model did not answer within 60 s (part 2 of 2:"
        f" {len(first)} page(s) answered before it, the other {len(second)} left for the next"
        " run)"
    )
    # The pages of the part answered are consolidated; the others are as they were.
    assert report.lines_changed == len(first)
    for page in first:
        assert len(await texts(pool, ws, page)) == 1
    for page in second:
        assert len(await texts(pool, ws, page)) == 2
    # Every call charged; recorded under no rules, so due again six hours later.
    [run] = await runs(pool, ws)
    assert (run["rules_version"], run["cost_usd"]) == (0, Decimal("0.2"))
    spent = await fetch(pool, ws, "SELECT payer_kind, cost_usd FROM memory_spend")
    assert [tuple(row) for row in spent] == [("workspace", Decimal("0.2"))]
    assert await due_at(pool, ws, T1 + 6 * HOUR - SECOND) == []
    assert await due_at(pool, ws, T1 + 6 * HOUR) == [("workspace", None, "rules")]
