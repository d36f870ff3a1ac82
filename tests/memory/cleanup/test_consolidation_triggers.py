"""When consolidation runs (issue 11, item 4; seed 000 "Cleanup"), on the real database, each
trigger at its boundary: never consolidated under the current rules, about 4,000 characters
written since the last one (at most every six hours), a week after the last one when anything
was written since; what counts as written; and the schedule read in one statement."""

from __future__ import annotations

import asyncpg

from db import consolidation as db_consolidation
from db.pool import api_dsn, init_connection
from resolvers.memory.cleanup import consolidation
from resolvers.memory.cleanup.consolidation import CONSOLIDATION_RULES_VERSION, WRITTEN_CHARS
from tests.factories import split
from tests.memory.cleanup.consolidating import (
    DAY,
    HOUR,
    MINUTE,
    SECOND,
    T0,
    consolidate_at,
    due_at,
    page_at,
    rewrite_at,
    runs,
    souvenir,
    versions,
)

T1 = T0 + MINUTE  # the first consolidation


async def consolidated_profile(pool, ws, first: str = "Likes calls") -> str:
    """The member's profile written at T0 and consolidated at T1; its global id."""
    page = await page_at(pool, ws, T0, "member", ws.members["member"], [souvenir(first)])
    [report] = await consolidate_at(pool, ws, T1)
    assert report.ran
    return page


async def test_never_consolidated_under_the_current_rules_is_due_once(pool, ws):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes calls", "préférence")])
    assert await due_at(pool, ws, T0) == [("member", me, "rules")]
    [report] = await consolidate_at(pool, ws, T1)
    assert (report.ran, report.audience.trigger) == (True, "rules")
    [run] = await runs(pool, ws)
    assert (run["trigger"], run["rules_version"], run["audience_kind"], run["audience_id"]) == (
        "rules",
        CONSOLIDATION_RULES_VERSION,
        "member",
        me,
    )
    # Once: not again, even a month later, while nothing is written.
    assert await due_at(pool, ws, T1) == []
    assert await due_at(pool, ws, T1 + 30 * DAY) == []


async def test_new_rules_make_every_audience_due_again_six_hours_after_its_last_run(
    pool, ws, monkeypatch
):
    await consolidated_profile(pool, ws)
    monkeypatch.setattr(
        consolidation, "CONSOLIDATION_RULES_VERSION", CONSOLIDATION_RULES_VERSION + 1
    )
    me = ws.members["member"]
    assert await due_at(pool, ws, T1 + 6 * HOUR - SECOND) == []
    assert await due_at(pool, ws, T1 + 6 * HOUR) == [("member", me, "rules")]
    await consolidate_at(pool, ws, T1 + 6 * HOUR)
    assert [r["rules_version"] for r in await runs(pool, ws)] == [1, 2]
    assert await due_at(pool, ws, T1 + 30 * DAY) == []


async def test_4000_characters_written_make_it_due_six_hours_after_the_last_run(pool, ws):
    page = await consolidated_profile(pool, ws)
    first = souvenir("Likes calls")
    # 3,999 characters over four versions: a line added, then reworded three times.
    for n, (size, letter) in enumerate([(1000, "a"), (1000, "b"), (1000, "c"), (999, "d")]):
        await rewrite_at(pool, ws, T1 + (n + 1) * MINUTE, page, [first, souvenir(letter * size)])
    assert await due_at(pool, ws, T1 + 7 * DAY - SECOND) == []
    # One character more: 4,000; due, but not within six hours of the last run.
    last = [first, souvenir("d" * 999), souvenir("E")]
    await rewrite_at(pool, ws, T1 + HOUR, page, last)
    me = ws.members["member"]
    assert await due_at(pool, ws, T1 + 6 * HOUR - SECOND) == []
    assert await due_at(pool, ws, T1 + 6 * HOUR) == [("member", me, "written")]
    [report] = await consolidate_at(pool, ws, T1 + 6 * HOUR)
    assert report.audience.trigger == "written"
    assert [r["trigger"] for r in await runs(pool, ws)] == ["rules", "written"]
    assert WRITTEN_CHARS == 4000


async def test_lines_kept_retyped_redated_or_removed_write_nothing(pool, ws):
    page = await consolidated_profile(pool, ws)
    big = ["x" * 1500, "y" * 1500, "z" * 1500]
    await rewrite_at(pool, ws, T1 + MINUTE, page, [souvenir(big[0]), souvenir(big[1])])
    # The same words retyped, redated, then one removed: nothing more written.
    await rewrite_at(
        pool, ws, T1 + 2 * MINUTE, page, [souvenir(big[0], "préférence"), souvenir(big[1])]
    )
    await rewrite_at(
        pool, ws, T1 + 3 * MINUTE, page, [souvenir(big[0], day="2026-11-01"), souvenir(big[1])]
    )
    await rewrite_at(pool, ws, T1 + 4 * MINUTE, page, [souvenir(big[1])])
    assert await due_at(pool, ws, T1 + 6 * HOUR) == []  # 3,000 characters written
    await rewrite_at(pool, ws, T1 + 5 * MINUTE, page, [souvenir(big[1]), souvenir(big[2])])
    me = ws.members["member"]
    assert await due_at(pool, ws, T1 + 6 * HOUR) == [("member", me, "written")]


async def test_a_week_after_the_last_run_when_anything_was_written(pool, ws):
    page = await consolidated_profile(pool, ws)
    me = ws.members["member"]
    assert await due_at(pool, ws, T1 + 7 * DAY) == []  # nothing written
    await rewrite_at(pool, ws, T1 + DAY, page, [souvenir("Likes calls"), souvenir("Hates fax")])
    assert await due_at(pool, ws, T1 + 7 * DAY - SECOND) == []
    assert await due_at(pool, ws, T1 + 7 * DAY) == [("member", me, "week")]
    [report] = await consolidate_at(pool, ws, T1 + 7 * DAY)
    assert report.audience.trigger == "week"
    assert await due_at(pool, ws, T1 + 14 * DAY) == []


async def test_what_consolidation_itself_writes_does_not_count(pool, ws):
    me = ws.members["member"]
    twice = [souvenir("Likes calls"), souvenir("likes calls.")]
    page = await page_at(pool, ws, T0, "member", me, twice)
    await consolidate_at(pool, ws, T1)  # merges the duplicates: a version of its own
    assert len(await runs(pool, ws)) == 1
    *_, (_, _, _, last_actor) = await versions(pool, ws, page)
    assert last_actor == "consolidation"
    assert await due_at(pool, ws, T1 + 8 * DAY) == []


async def test_each_audience_is_its_own(pool, ws, ws2):
    me, admin = ws.members["member"], ws.members["admin"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes calls")])
    await page_at(pool, ws, T0, "member", admin, [souvenir("Likes mail")])
    await page_at(pool, ws, T0, "workspace", None, [souvenir("We sell boats")])
    assert sorted(await due_at(pool, ws, T1), key=str) == sorted(
        [("member", me, "rules"), ("member", admin, "rules"), ("workspace", None, "rules")],
        key=str,
    )
    await page_at(pool, ws2, T0, "workspace", None, [souvenir("We sell cars")])
    reports = await consolidate_at(pool, ws, T1)
    assert {(r.audience.audience_kind, r.audience.audience_id) for r in reports} == {
        ("member", me),
        ("member", admin),
        ("workspace", None),
    }
    assert await due_at(pool, ws, T1) == []
    assert await due_at(pool, ws2, T1) == [("workspace", None, "rules")]


async def test_the_schedule_is_one_statement_however_many_audiences(pool, ws, ws2, dsn):
    for space in (ws, ws2):
        for who in ("admin", "member", "viewer", "other"):
            await page_at(pool, space, T0, "member", space.members[who], [souvenir("Likes tea")])
    statements: list[str] = []
    conn = await asyncpg.connect(api_dsn(dsn))
    try:
        await init_connection(conn)
        conn.add_query_logger(lambda record: statements.append(record.query))
        found = await db_consolidation.due_audiences(conn, T1, consolidation.schedule())
    finally:
        await conn.close()
    assert len([a for a in found if a.workspace_id in (ws.id, ws2.id)]) == 8
    _control, data = split(statements)
    assert len(data) == 2  # the role, then the schedule
