"""The weekly removal on a real database: each cause removes its lines with its reason, each
keep cause keeps them, an emptied page is deleted and restorable, every change is a version by
the weekly removal and a recorded change, on Mondays only and once a Monday, one workspace at a
time."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from uuid import uuid4

from db import removal
from db.pool import begin_workspace
from resolvers.common import clock, ids
from resolvers.common.principals import principal_for_token
from resolvers.memory.cleanup import removal as removal_run
from resolvers.memory.cleanup.weekly import review_before
from resolvers.memory.content import MISSION_HEADING
from resolvers.records.trash import set_trashed
from tests.factories import company, data, gql, local, make_page, private_deal
from tests.memory.cleanup.removal_world import (
    MONDAY,
    SUNDAY,
    TODAY,
    blank,
    changes,
    delete_member,
    fetch,
    heading,
    kept,
    line,
    mission,
    new_member,
    page_state,
    page_with,
    remove,
    remove_all,
    runs,
    trash,
    versions,
)
from tests.memory.dreamer.dreaming import said
from tests.memory.dreamer.intake_api import meeting
from tests.memory.dreamer.rulebook import SOON, dream_at, mention, souvenir, texts
from tests.memory.mail.mailing import important, mailbox, post


async def test_each_cause_removes_its_lines_with_its_reason(pool, ws):
    acme = local(ws, await company(pool, ws, "Acme"))
    bob = await new_member(pool, ws, "Bob")
    page = await page_with(
        pool,
        ws,
        "record",
        acme,
        [
            heading("## Acme"),
            line("ended yesterday", until=SUNDAY),
            line("ends today", until=TODAY),
            line("reviewed yesterday", type="contexte", day=date(2026, 5, 1)),
            line("reviewed today", type="contexte", day=date(2026, 5, 2)),
            line("an old decision", type="décision", day=date(2025, 1, 1)),
            line("from a record now gone", source=("record", uuid4())),
            line("from Bob, who left", source=("conversation", bob)),
            line("from Bob's colleague", source=("conversation", ws.members["other"])),
            line("said by nobody in particular"),
        ],
    )
    await delete_member(pool, ws, bob)
    report = await remove(pool, ws)
    assert (report.lines_removed, report.pages_deleted, report.note) == (4, 0, "")
    assert await kept(pool, ws, page) == [
        "## Acme",
        "ends today",
        "reviewed today",
        "an old decision",
        "from Bob's colleague",
        "said by nobody in particular",
    ]
    assert await changes(pool, ws) == [
        ("removed", "ended", "ended yesterday"),
        ("removed", "review_passed", "reviewed yesterday"),
        ("removed", "source_gone", "from a record now gone"),
        ("removed", "source_gone", "from Bob, who left"),
    ]
    *_, last = await versions(pool, ws, page)
    assert (last["operation"], last["actor_kind"], last["actor_id"], last["actor_name"]) == (
        "modified",
        "system",
        None,
        "weekly removal",
    )
    assert last["created_at"] == MONDAY
    assert [x["text"] for x in last["lines"]] == await kept(pool, ws, page)
    [run] = await runs(pool, ws)
    assert (run["kind"], run["audience_kind"], run["audience_id"], run["trigger"]) == (
        "removal",
        "workspace",
        None,
        "monday",
    )
    assert (run["reader"], run["cost_usd"], run["input_tokens"], run["output_tokens"]) == (
        "code",
        0,
        0,
        0,
    )
    assert (run["pages_read"], run["lines_changed"], run["pages_deleted"]) == (1, 4, 0)
    assert run["started_at"] == MONDAY and run["finished_at"] >= MONDAY


async def test_on_a_profile_a_source_its_member_can_no_longer_open_goes(pool, ws):
    member, other = ws.members["member"], ws.members["other"]
    theirs = local(ws, await private_deal(pool, ws, "other", "Their deal"))
    mine = local(ws, await private_deal(pool, ws, "member", "My deal"))
    binned = local(ws, await private_deal(pool, ws, "member", "My binned deal"))
    acme = local(ws, await company(pool, ws, "Acme"))
    profile = await page_with(
        pool,
        ws,
        "member",
        member,
        [
            line("from their deal", source=("record", theirs)),
            line("from my deal", source=("record", mine)),
            line("from Acme", source=("record", acme)),
            line("from my binned deal", source=("record", binned)),
            line("from my conversation", source=("conversation", member)),
            line("from theirs", source=("conversation", other)),
        ],
    )
    await trash(pool, ws, binned)
    await remove(pool, ws)
    # A source in the trash may come back: its line stays.
    assert await kept(pool, ws, profile) == [
        "from my deal",
        "from Acme",
        "from my binned deal",
        "from my conversation",
    ]
    assert await changes(pool, ws) == [
        ("removed", "source_closed", "from their deal"),
        ("removed", "source_closed", "from theirs"),
    ]
    [run] = await runs(pool, ws)
    assert (run["audience_kind"], run["audience_id"], run["lines_changed"]) == (
        "member",
        member,
        2,
    )


async def test_a_role_that_no_longer_reads_the_source_closes_it_on_the_profile(pool, ws):
    acme = local(ws, await company(pool, ws, "Acme"))
    viewer = ws.members["viewer"]
    profile = await page_with(
        pool, ws, "member", viewer, [line("from Acme", source=("record", acme)), line("mine")]
    )
    await remove(pool, ws)
    assert await kept(pool, ws, profile) == ["from Acme", "mine"]
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await conn.execute(
            "UPDATE role_permissions SET can_read = false WHERE role_id = $1 AND object_id = $2",
            ws.roles["viewer"],
            ws.objects["companies"],
        )
    await remove(pool, ws, MONDAY + timedelta(days=7))
    assert await kept(pool, ws, profile) == ["mine"]


async def test_elsewhere_a_line_from_a_private_source_stays_while_the_source_exists(pool, ws):
    bob = await new_member(pool, ws, "Bob")
    deal = local(ws, await private_deal(pool, ws, "other", "Their deal"))
    acme = local(ws, await company(pool, ws, "Acme"))
    shared = [
        line("from their deal", source=("record", deal)),
        line("from Bob's conversation", source=("conversation", bob)),
    ]
    page = await page_with(pool, ws, "record", acme, shared)
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        scout = await conn.fetchval("SELECT id FROM agents WHERE name = 'Scout'")
    agent = await page_with(
        pool,
        ws,
        "agent",
        scout,
        [line(x.text, source=(x.source_kind, x.source_id)) for x in shared],
    )  # type: ignore[arg-type]
    workspace = await page_with(
        pool, ws, "workspace", None, [line("from their deal", source=("record", deal))]
    )
    await remove(pool, ws)
    both = ["from their deal", "from Bob's conversation"]
    assert await kept(pool, ws, page) == both
    assert await kept(pool, ws, agent) == both
    assert await kept(pool, ws, workspace) == ["from their deal"]
    assert await changes(pool, ws) == []
    await delete_member(pool, ws, bob)
    await remove(pool, ws, MONDAY + timedelta(days=7))
    assert await kept(pool, ws, page) == ["from their deal"]
    assert await kept(pool, ws, agent) == ["from their deal"]


async def test_a_trashed_record_keeps_its_souvenirs_and_a_trashed_page_is_left(pool, ws, client):
    acme = local(ws, await company(pool, ws, "Acme"))
    beta = local(ws, await company(pool, ws, "Beta"))
    page = await page_with(pool, ws, "record", acme, [line("ended", until=SUNDAY)])
    binned = await page_with(pool, ws, "record", beta, [line("Beta pays late")])
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens["admin"])
        assert principal is not None
        await set_trashed(conn, principal, acme, True)
    deleted = await gql(
        client,
        ws.tokens["admin"],
        "mutation($id: ID!, $content: String!) { editMemoryPage(pageId: $id, content: $content)"
        " { trashed } }",
        {"id": ws.gid(binned, "MemoryPage"), "content": ""},
    )
    assert data(deleted, "editMemoryPage") == {"trashed": True}
    before = await page_state(pool, ws, page), await page_state(pool, ws, binned)
    report = await remove(pool, ws)
    assert (report.lines_removed, report.pages_read) == (0, 0)
    assert await kept(pool, ws, page) == ["ended"]
    assert (await page_state(pool, ws, page), await page_state(pool, ws, binned)) == before
    # The trashed record's page still counts as its audience's; nothing of it was read.
    [run] = await runs(pool, ws)
    assert (run["pages_read"], run["lines_changed"]) == (0, 0)


async def test_a_line_whose_source_cannot_be_checked_is_kept(pool, ws):
    acme = local(ws, await company(pool, ws, "Acme"))
    gone = ("record", uuid4())
    page = await page_with(
        pool,
        ws,
        "record",
        acme,
        [line("no source at all"), line("odd", source=gone), line("gone", source=gone)],
    )
    # A source of a kind the removal does not know: none can be stored today, so the table's
    # check is lifted for this transaction only (rolled back), and the candidates looked at in
    # it. The same source as a record is gone.
    async with pool.acquire() as conn:
        transaction = conn.transaction()
        await transaction.start()
        try:
            await conn.execute(
                "ALTER TABLE memory_lines DROP CONSTRAINT memory_lines_source_kind_check"
            )
            await begin_workspace(conn, ws.id)
            await conn.execute(
                "UPDATE memory_lines SET source_kind = 'carrier pigeon'"
                " WHERE page_id = $1 AND text = 'odd'",
                page,
            )
            found = await removal.candidates(conn, TODAY, review_before(TODAY), None)
        finally:
            await transaction.rollback()
    assert [(c.text, c.reason) for c in found] == [("gone", "source_gone")]
    # Out of that transaction "odd" is a gone record again.
    await remove(pool, ws)
    assert await kept(pool, ws, page) == ["no source at all"]


async def test_a_human_line_never_goes(pool, ws):
    acme = local(ws, await company(pool, ws, "Acme"))
    mine = [
        line("ended, but mine", until=SUNDAY, human=True, author="Member"),
        line("old context, mine", type="contexte", day=date(2025, 1, 1), human=True),
    ]
    page = await page_with(pool, ws, "record", acme, mine)
    report = await remove(pool, ws)
    assert report.lines_removed == 0
    assert await kept(pool, ws, page) == ["ended, but mine", "old context, mine"]
    assert len(await versions(pool, ws, page)) == 2  # created, then its lines: none by the removal


async def test_an_emptied_page_is_deleted_and_restorable(pool, ws, client):
    acme = local(ws, await company(pool, ws, "Acme"))
    page = await page_with(
        pool, ws, "record", acme, [heading("## Acme"), blank(), line("ended", until=SUNDAY)]
    )
    profile = await page_with(
        pool,
        ws,
        "workspace",
        None,
        [heading(MISSION_HEADING), mission("Serve well"), blank(), line("ended", until=SUNDAY)],
    )
    report = await remove(pool, ws)
    assert (report.lines_removed, report.pages_deleted) == (2, 1)
    state = await page_state(pool, ws, page)
    assert state["trashed_at"] == MONDAY and await kept(pool, ws, page) == []
    *_, last = await versions(pool, ws, page)
    assert (last["operation"], last["actor_name"], last["lines"]) == (
        "deleted",
        "weekly removal",
        [],
    )
    # The workspace profile keeps its mission, and stays.
    assert await kept(pool, ws, profile) == [MISSION_HEADING, "Serve well", ""]
    assert (await page_state(pool, ws, profile))["trashed_at"] is None
    # By page (in id order), each page's lines in order, its deletion last.
    found = await changes(pool, ws)
    deleted = [("removed", "ended", "ended"), ("page_deleted", "page_empty", None)]
    assert found in (
        [*deleted, ("removed", "ended", "ended")],
        [("removed", "ended", "ended"), *deleted],
    )
    [run] = await runs(pool, ws)
    assert (run["pages_read"], run["lines_changed"], run["pages_deleted"]) == (2, 2, 1)
    restored = await gql(
        client,
        ws.tokens["admin"],
        "mutation($id: ID!) { restoreMemoryPage(pageId: $id) { trashed content } }",
        {"id": ws.gid(page, "MemoryPage")},
    )
    found = data(restored, "restoreMemoryPage")
    assert not found["trashed"]
    assert found["content"].startswith("## Acme\n\n- ended — Memory")
    assert await kept(pool, ws, page) == ["## Acme", "", "ended"]


async def test_only_on_a_monday_and_once_that_monday(pool, ws):
    acme = local(ws, await company(pool, ws, "Acme"))
    page = await page_with(
        pool,
        ws,
        "record",
        acme,
        [line("ended Sunday", until=SUNDAY), line("ends Monday", until=TODAY), line("stays")],
    )
    for day in range(1, 7):
        assert await remove_all(pool, [ws], MONDAY + timedelta(days=day)) == []
    assert (await remove(pool, ws, MONDAY - timedelta(days=1))).note == "not a Monday"
    assert len(await kept(pool, ws, page)) == 3 and await runs(pool, ws) == []
    [report] = await remove_all(pool, [ws], MONDAY)
    assert report.lines_removed == 1
    # Later that Monday the schedule finds nothing due, and a direct run does nothing.
    assert await remove_all(pool, [ws], MONDAY + timedelta(hours=23)) == []
    again = await remove(pool, ws, MONDAY + timedelta(hours=1))
    assert (again.note, again.lines_removed) == ("ran already this Monday", 0)
    assert len(await runs(pool, ws)) == 1
    # The next Monday it runs again: "ends Monday" ended the Monday before.
    [later] = await remove_all(pool, [ws], MONDAY + timedelta(days=7))
    assert later.lines_removed == 1
    assert await kept(pool, ws, page) == ["stays"]
    assert len(await runs(pool, ws)) == 2


async def test_one_run_per_audience_holding_pages(pool, ws):
    acme = local(ws, await company(pool, ws, "Acme"))
    await page_with(pool, ws, "record", acme, [line("ended", until=SUNDAY), line("stays")])
    await page_with(pool, ws, "workspace", None, [line("stays")])
    await page_with(
        pool, ws, "member", ws.members["member"], [line("ended", until=SUNDAY), line("stays")]
    )
    await page_with(pool, ws, "member", ws.members["other"], [line("stays")])
    await remove(pool, ws)
    found = {
        (row["audience_kind"], row["audience_id"]): (row["pages_read"], row["lines_changed"])
        for row in await runs(pool, ws)
    }
    assert found == {
        ("workspace", None): (2, 1),
        ("member", ws.members["member"]): (1, 1),
        ("member", ws.members["other"]): (1, 0),
    }
    ids = {row["audience_id"]: row["id"] for row in await runs(pool, ws)}
    rows = await fetch(
        pool, ws, "SELECT cleanup_id, number FROM memory_cleanup_changes ORDER BY cleanup_id"
    )
    assert sorted((row["cleanup_id"], row["number"]) for row in rows) == sorted(
        [(ids[None], 1), (ids[ws.members["member"]], 1)]
    )


async def test_workspaces_are_removed_apart(pool, ws, ws2):
    mine = await page_with(
        pool,
        ws,
        "record",
        local(ws, await company(pool, ws, "Acme")),
        [line("x", until=SUNDAY), line("y")],
    )
    theirs = await page_with(
        pool,
        ws2,
        "record",
        local(ws2, await company(pool, ws2, "Acme")),
        [line("x", until=SUNDAY), line("y")],
    )
    [report] = await remove_all(pool, [ws], MONDAY)
    assert report.workspace_id == ws.id
    assert await kept(pool, ws, mine) == ["y"]
    assert await kept(pool, ws2, theirs) == ["x", "y"] and await runs(pool, ws2) == []
    [other] = await remove_all(pool, [ws, ws2], MONDAY)
    assert other.workspace_id == ws2.id
    assert await kept(pool, ws2, theirs) == ["y"]
    assert len(await runs(pool, ws)) == len(await runs(pool, ws2)) == 1


async def test_a_contexte_the_dreamer_confirmed_since_its_day_stays(pool, ws, stand):
    acme = await company(pool, ws, "Acme")
    old = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
    lines = [
        souvenir("Acme signs in March", "Scout", old, "contexte"),
        souvenir("Acme freezes its purchases", "Scout", old, "contexte"),
    ]
    await make_page(pool, ws, "record", local(ws, acme), "\n".join(lines), name="Acme")
    # The Friday before, a person says it again: the rules reader confirms the line, whose day
    # (and review date) moves to that Friday.
    friday = datetime(2026, 10, 30, 12, 0, tzinfo=UTC)
    stand(friday)
    await said(pool, ws, "member", f"Remember: {mention('Acme', acme)} signs in March", friday)
    [report] = await dream_at(pool, ws, friday + SOON)
    assert report.refreshed == 1
    await remove(pool, ws)
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Acme signs in March"]
    assert await changes(pool, ws) == [("removed", "review_passed", "Acme freezes its purchases")]


async def test_a_souvenir_from_a_deleted_meeting_goes(pool, ws, client):
    acme = await company(pool, ws, "Acme")
    recorded = await meeting(client, ws.tokens["admin"], scope="WORKSPACE", recordIds=[acme])
    held = local(ws, data(recorded, "recordMeeting")["id"])
    page = await page_with(
        pool,
        ws,
        "record",
        local(ws, acme),
        [line("said in the meeting", source=("record", held)), line("said elsewhere")],
    )
    await remove(pool, ws)
    assert await kept(pool, ws, page) == ["said in the meeting", "said elsewhere"]
    gone = await gql(
        client,
        ws.tokens["admin"],
        "mutation($id: ID!) { deleteMeeting(id: $id) }",
        {"id": ws.gid(held)},
    )
    assert data(gone, "deleteMeeting") is True
    await remove(pool, ws, MONDAY + timedelta(days=7))
    assert await kept(pool, ws, page) == ["said elsewhere"]
    assert await changes(pool, ws) == [("removed", "source_gone", "said in the meeting")]


async def test_pages_are_locked_and_written_a_chunk_at_a_time(pool, ws, monkeypatch):
    monkeypatch.setattr(removal_run, "CHUNK_PAGES", 2)
    made = []
    for n in range(5):
        about = local(ws, await company(pool, ws, f"Company {n}"))
        made.append(
            await page_with(pool, ws, "record", about, [line("x", until=SUNDAY), line("y")])
        )
    report = await remove(pool, ws)
    assert (report.lines_removed, report.pages_read) == (5, 5)
    for page in made:
        assert await kept(pool, ws, page) == ["y"]
        assert (await page_state(pool, ws, page))["version"] == 3
    [run] = await runs(pool, ws)
    assert run["lines_changed"] == 5
    numbers = await fetch(pool, ws, "SELECT number FROM memory_cleanup_changes ORDER BY number")
    assert [row["number"] for row in numbers] == [1, 2, 3, 4, 5]


async def test_a_souvenir_from_a_mail_its_mailbox_deleted_goes(pool, ws):
    box = await mailbox(pool, ws, owner=None)
    sent_at = MONDAY - timedelta(days=3)
    try:  # posting stands the clock at the mail's time
        posted = await post(pool, ws, box, [important("m1", sent_at)], sent_at)
    finally:
        clock.set_clock(None)
    mail = posted.messages[0].message.id
    acme = await company(pool, ws, "Acme")
    page = await page_with(
        pool,
        ws,
        "record",
        local(ws, acme),
        [line("said in the mail", source=("record", mail)), line("said elsewhere")],
    )
    await remove(pool, ws)
    assert await kept(pool, ws, page) == ["said in the mail", "said elsewhere"]
    # The mailbox deletes the mail: its record stays, the mail is gone as a source.
    try:
        await post(pool, ws, box, [important("m1", sent_at, deleted=True)], sent_at)
    finally:
        clock.set_clock(None)
    await remove(pool, ws, MONDAY + timedelta(days=7))
    assert await kept(pool, ws, page) == ["said elsewhere"]
    assert await changes(pool, ws) == [("removed", "source_gone", "said in the mail")]


async def test_one_workspace_failing_keeps_no_other_waiting(pool, ws, ws2, monkeypatch):
    pages = {}
    for each in (ws, ws2):
        acme = local(each, await company(pool, each, "Acme"))
        pages[each.id] = await page_with(
            pool, each, "record", acme, [line("x", until=SUNDAY), line("y")]
        )
    real = removal_run.remove_in_workspace

    async def failing_first(pool_, workspace_id, now):  # type: ignore[no-untyped-def]
        if workspace_id == ws.id:
            raise RuntimeError("this workspace's removal fails")
        return await real(pool_, workspace_id, now)

    monkeypatch.setattr(removal_run, "remove_in_workspace", failing_first)
    reports = await remove_all(pool, [ws, ws2], MONDAY)
    assert {r.workspace_id: r.note for r in reports} == {
        ws.id: "failed (RuntimeError)",
        ws2.id: "",
    }
    assert await kept(pool, ws, pages[ws.id]) == ["x", "y"] and await runs(pool, ws) == []
    assert await kept(pool, ws2, pages[ws2.id]) == ["y"]
    # The next Monday hour runs the one that failed.
    monkeypatch.setattr(removal_run, "remove_in_workspace", real)
    [again] = await remove_all(pool, [ws, ws2], MONDAY + timedelta(hours=1))
    assert again.workspace_id == ws.id and await kept(pool, ws, pages[ws.id]) == ["y"]


async def test_redacting_a_version_scrubs_the_removal_s_copy_of_its_lines(pool, ws, client):
    acme = local(ws, await company(pool, ws, "Acme"))
    page = await page_with(pool, ws, "record", acme, [line("PIN 1234", until=SUNDAY), line("y")])
    await remove(pool, ws)
    assert await changes(pool, ws) == [("removed", "ended", "PIN 1234")]
    # The version that held the line: the last before the removal's.
    held = await fetch(
        pool,
        ws,
        "SELECT id FROM memory_versions WHERE page_id = $1 ORDER BY number DESC OFFSET 1 LIMIT 1",
        page,
    )
    redacted = await gql(
        client,
        ws.tokens["admin"],
        "mutation($v: ID!) { redactMemoryVersion(versionId: $v) { redacted } }",
        {"v": ids.encode("MemoryVersion", ws.id, held[0]["id"])},
    )
    assert data(redacted, "redactMemoryVersion")["redacted"] is True
    assert await changes(pool, ws) == [("removed", "ended", None)]


async def test_redacting_a_version_scrubs_the_verdict_s_copy_of_its_line(pool, ws, stand, client):
    acme = await company(pool, ws, "Acme")
    friday = datetime(2026, 10, 30, 12, 0, tzinfo=UTC)
    stand(friday)
    await said(pool, ws, "member", f"Remember: {mention('Acme', acme)} wants PIN 1234", friday)
    [report] = await dream_at(pool, ws, friday + SOON)
    assert report.written == 1
    verdicts = "SELECT text FROM memory_verdicts WHERE verdict = 'written'"
    assert [r["text"] for r in await fetch(pool, ws, verdicts)] == ["Acme wants PIN 1234"]
    page = (await fetch(pool, ws, "SELECT page_id FROM memory_verdicts"))[0]["page_id"]
    last = await fetch(
        pool, ws, "SELECT id FROM memory_versions WHERE page_id = $1 ORDER BY number DESC", page
    )
    await gql(
        client,
        ws.tokens["admin"],
        "mutation($v: ID!) { redactMemoryVersion(versionId: $v) { redacted } }",
        {"v": ids.encode("MemoryVersion", ws.id, last[0]["id"])},
    )
    assert [r["text"] for r in await fetch(pool, ws, verdicts)] == [None]
