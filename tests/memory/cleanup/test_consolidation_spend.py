"""What consolidation spends (seed 000 "What memory may spend"), on the real database: a
person's private pages charged to that person, the workspace's to the workspace; nothing
consolidated while the payer is at its allowance (until it is raised, or next month) or the
workspace has no AI credits, and never retried in a loop; a reader that fails, or that cannot
consolidate."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from resolvers.memory.cleanup import consolidation
from resolvers.memory.cleanup.rereading import OVER_ALLOWANCE
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.dreamer.reader import ReaderError, Usage
from tests.memory.cleanup.consolidating import (
    DAY,
    HOUR,
    MINUTE,
    SECOND,
    T0,
    Proposing,
    consolidate_at,
    due_at,
    fetch,
    page_at,
    rewrite_at,
    runs,
    settings_of,
    souvenir,
)
from tests.memory.dreamer.dreaming import FixedReader

T1 = T0 + MINUTE
DECEMBER = datetime(2026, 12, 1, tzinfo=UTC)
TOKENS = Usage(input_tokens=100_000)  # $0.10 at $1 a million


async def spend(pool, ws) -> dict[tuple[str, object], tuple[Decimal, int]]:
    """The spend by payer and month: (cost, passes)."""
    rows = await fetch(
        pool, ws, "SELECT payer_kind, payer_id, month, cost_usd, passes FROM memory_spend"
    )
    return {
        (r["payer_kind"], r["payer_id"], r["month"].isoformat()): (
            Decimal(r["cost_usd"]),
            r["passes"],
        )
        for r in rows
    }


async def patch_settings(client, ws, **changes) -> None:
    response = await client.patch(
        "/tenant/settings", json=changes, headers={"authorization": f"Bearer {ws.tokens['admin']}"}
    )
    assert response.status_code == 200, response.text


async def test_each_audience_is_charged_to_its_payer(pool, ws):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    await page_at(pool, ws, T0, "workspace", None, [souvenir("We sell boats")])
    reports = await consolidate_at(pool, ws, T1, Proposing(usage=TOKENS), per_mtok="1")
    assert sorted(r.cost_usd for r in reports) == [Decimal("0.1")] * 2
    assert await spend(pool, ws) == {
        ("member", me, "2026-11-01"): (Decimal("0.1"), 1),
        ("workspace", None, "2026-11-01"): (Decimal("0.1"), 1),
    }
    found = sorted(
        (r["audience_kind"], r["payer_kind"], r["payer_id"], r["input_tokens"], r["cost_usd"])
        for r in await runs(pool, ws)
    )
    assert found == [
        ("member", "member", me, 100_000, Decimal("0.1")),
        ("workspace", "workspace", None, 100_000, Decimal("0.1")),
    ]


async def over_after_one_run(pool, ws, client) -> str:
    """The member's allowance set to $0.10 and spent by a first consolidation at T1, then
    something written; their profile's id."""
    await patch_settings(client, ws, memoryPersonMonthlyLimitUsd="0.1")
    me = ws.members["member"]
    page = await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    [report] = await consolidate_at(pool, ws, T1, Proposing(usage=TOKENS), per_mtok="1")
    assert report.cost_usd == Decimal("0.1")
    await rewrite_at(pool, ws, T1 + HOUR, page, [souvenir("Likes tea"), souvenir("Hates fax")])
    return page


async def test_over_the_allowance_it_waits_for_next_month(pool, ws, client):
    await over_after_one_run(pool, ws, client)
    reader = Proposing(usage=TOKENS)
    # A week later it would be due; the allowance is spent: not due, not even looked at.
    assert await due_at(pool, ws, T1 + 7 * DAY) == []
    assert await consolidate_at(pool, ws, T1 + 7 * DAY, reader, per_mtok="1") == []
    assert await consolidate_at(pool, ws, DECEMBER - SECOND, reader, per_mtok="1") == []
    assert reader.batches == []
    # The first day of the next month: due, and run.
    assert await due_at(pool, ws, DECEMBER) == [("member", ws.members["member"], "week")]
    [report] = await consolidate_at(pool, ws, DECEMBER, reader, per_mtok="1")
    assert report.ran and len(reader.batches) == 1


async def test_over_the_allowance_it_runs_once_the_allowance_is_raised(pool, ws, client):
    await over_after_one_run(pool, ws, client)
    assert await due_at(pool, ws, T1 + 7 * DAY) == []
    await patch_settings(client, ws, memoryPersonMonthlyLimitUsd="0.3")
    assert await due_at(pool, ws, T1 + 7 * DAY) == [("member", ws.members["member"], "week")]
    # The run that crosses the allowance finishes, and is charged in full.
    await patch_settings(client, ws, memoryPersonMonthlyLimitUsd="0.15")
    [report] = await consolidate_at(pool, ws, T1 + 7 * DAY, Proposing(usage=TOKENS), per_mtok="1")
    assert report.ran
    me = ws.members["member"]
    assert await spend(pool, ws) == {("member", me, "2026-11-01"): (Decimal("0.2"), 2)}


async def test_the_workspace_allowance_defers_the_workspace_pages_only(pool, ws, client):
    await patch_settings(client, ws, memoryTenantMonthlyLimitUsd="0")
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    await page_at(pool, ws, T0, "workspace", None, [souvenir("We sell boats")])
    assert await due_at(pool, ws, T1) == [("member", me, "rules")]
    await patch_settings(client, ws, memoryTenantMonthlyLimitUsd=None)
    assert len(await due_at(pool, ws, T1)) == 2


async def test_found_due_then_over_the_allowance_it_waits_and_records_nothing(pool, ws, client):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    [audience] = [a for a in await consolidation.due(pool, T1) if a.workspace_id == ws.id]
    await patch_settings(client, ws, memoryPersonMonthlyLimitUsd="0")
    reader = Proposing()
    report = await consolidation.consolidate(pool, audience, settings_of(reader), reader)
    assert (report.ran, report.note) == (False, OVER_ALLOWANCE)
    assert reader.batches == [] and await runs(pool, ws) == []


async def test_without_ai_credits_nothing_is_consolidated(pool, ws, client):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    await patch_settings(client, ws, aiCredits=False)
    reader = Proposing()
    assert await due_at(pool, ws, T1) == []
    assert await consolidate_at(pool, ws, T1, reader) == []
    assert reader.batches == [] and await spend(pool, ws) == {}
    await patch_settings(client, ws, aiCredits=True)
    [report] = await consolidate_at(pool, ws, T1 + HOUR, reader)
    assert report.ran


async def test_a_failed_reader_is_recorded_charged_and_tried_again_six_hours_later(pool, ws):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    reader = Proposing()
    reader.fail = ReaderError("the model's answer breaks its schema", usage=TOKENS)
    [report] = await consolidate_at(pool, ws, T1, reader, per_mtok="1")
    assert report.ran and report.note == "the reader failed: the model's answer breaks its schema"
    [run] = await runs(pool, ws)
    assert (run["rules_version"], run["cost_usd"], run["lines_changed"]) == (0, Decimal("0.1"), 0)
    assert await spend(pool, ws) == {("member", me, "2026-11-01"): (Decimal("0.1"), 1)}
    # Not in a loop: not due again within six hours; then due, still under no rules.
    assert await due_at(pool, ws, T1 + 6 * HOUR - SECOND) == []
    assert await due_at(pool, ws, T1 + 6 * HOUR) == [("member", me, "rules")]
    reader.fail = RuntimeError("secret detail")
    [report] = await consolidate_at(pool, ws, T1 + 6 * HOUR, reader)
    assert report.note == "the reader failed: RuntimeError"
    reader.fail = None
    [report] = await consolidate_at(pool, ws, T1 + 12 * HOUR, reader)
    assert report.note == "" and [r["rules_version"] for r in await runs(pool, ws)] == [0, 0, 1]


async def test_a_reader_that_cannot_consolidate_skips_it_and_says_so(pool, ws):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    settings = PassSettings(reader=FixedReader(), reader_name="mine.module:Reader")
    lines = await consolidation.run_periodic(pool, T1, settings)
    assert lines == [
        "consolidation skipped: the Dreamer reader 'mine.module:Reader' cannot consolidate (a "
        "reader that does has: async def consolidate(self, batch: ConsolidationBatch) -> "
        "ConsolidationAnswer)"
    ]
    assert await runs(pool, ws) == []
    assert await due_at(pool, ws, T1) == [("member", me, "rules")]


async def test_nothing_a_reader_could_change_is_recorded_without_reading(pool, ws, client, stand):
    # Only ✍ lines: nothing to propose; the run is recorded (it is not due again), free.
    me = ws.members["member"]
    page = await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    stand(T0 + SECOND)
    response = await client.post(
        "/graphql",
        json={
            "query": "mutation($id: ID!, $c: String!) { editMemoryPage(pageId: $id, content: $c)"
            " { id } }",
            "variables": {"id": page, "c": "- Likes green tea [préférence]"},
        },
        headers={"authorization": f"Bearer {ws.tokens['member']}"},
    )
    assert "errors" not in response.json(), response.json()
    reader = Proposing(usage=TOKENS)
    [report] = await consolidate_at(pool, ws, T1, reader, per_mtok="1")
    assert report.ran and reader.batches == [] and report.cost_usd == 0
    assert await spend(pool, ws) == {}
    assert await due_at(pool, ws, T1 + 30 * DAY) == []
