"""The hourly mail job (resolvers/memory/mail/exchanges.py, mail_openable in migrations 0015 and
0018) on the real database: which mail opens an exchange, the quiet, the window, a second
important mail, the 30 days, deleted mail, a mail in two mailboxes, learnFromEmail, the caps."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import asyncpg
import pytest

from db.pool import SerialConnection, api_dsn, init_connection, keep_session
from db.sql import queries
from resolvers.common import clock
from resolvers.memory.mail import exchanges
from tests.factories import logging_pool
from tests.memory.mail.mailing import (
    exchanges_of,
    important,
    mailbox,
    message,
    open_at,
    openings,
    post,
    reply,
    set_preference,
)

T0 = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
QUIET = timedelta(hours=2)
LATER = T0 + timedelta(hours=3)


@pytest.mark.parametrize(
    "given",
    [
        {"category": "newsletter", "important": True},
        {"category": "notification", "important": True},
        {"category": "marketing", "important": True},
        {"category": "transactional", "important": True},
        {"category": "custom", "important": True},
        {"category": None, "important": True},
        {"category": "direct", "important": False},
        {"category": "direct", "important": True, "filed": "sent"},
    ],
    ids=[
        "newsletter",
        "notification",
        "marketing",
        "transactional",
        "custom",
        "uncategorized",
        "direct-not-important",
        "reply-sent",
    ],
)
async def test_only_a_received_direct_important_mail_opens_an_exchange(pool, ws, given):
    box = await mailbox(pool, ws)
    await post(pool, ws, box, [message("m1", T0, **given)], T0)
    assert await open_at(pool, ws, LATER) == 0
    assert await exchanges_of(pool, ws) == []
    await post(pool, ws, box, [important("m2", T0, thread="t2")], T0)
    assert await open_at(pool, ws, LATER) == 1
    assert await openings(pool, ws) == ["m2"]


async def test_a_thread_opens_once_quiet_for_two_hours_since_its_last_message(pool, ws):
    box = await mailbox(pool, ws)
    last = T0 + timedelta(minutes=30)
    await post(pool, ws, box, [important("m1", T0), reply("m2", last, ws)], last)
    assert await open_at(pool, ws, last + QUIET - timedelta(minutes=1)) == 0
    assert await open_at(pool, ws, last + QUIET) == 1
    [exchange] = await exchanges_of(pool, ws)
    assert exchange["quiet_since"] == last and exchange["opened_at"] == last + QUIET


async def test_the_window_runs_from_the_message_before_through_the_threads_last(pool, ws):
    box = await mailbox(pool, ws)
    thread = [
        message("m1", T0, important=False),
        reply("m2", T0 + timedelta(minutes=10), ws),
        important("m3", T0 + timedelta(minutes=20)),
        reply("m4", T0 + timedelta(minutes=30), ws),
        message("m5", T0 + timedelta(minutes=40), category="newsletter"),
        important("o1", T0 + timedelta(minutes=50), thread="other"),
    ]
    await post(pool, ws, box, thread, T0 + timedelta(hours=1))
    assert await open_at(pool, ws, LATER) == 2
    by_opening = {row["opening"]: row for row in await exchanges_of(pool, ws)}
    assert (by_opening["m3"]["first"], by_opening["m3"]["last"]) == ("m2", "m5")
    assert by_opening["m3"]["first_at"] == T0 + timedelta(minutes=10)
    assert by_opening["m3"]["last_at"] == T0 + timedelta(minutes=40)
    # An important mail that opens its thread is its window's first message.
    assert (by_opening["o1"]["first"], by_opening["o1"]["last"]) == ("o1", "o1")


async def test_its_item_is_the_mailbox_owners_or_the_workspaces(pool, ws):
    mine = await mailbox(pool, ws, "member")
    shared = await mailbox(pool, ws, None)
    await post(pool, ws, mine, [important("m1", T0)], T0)
    await post(pool, ws, shared, [important("s1", T0 + timedelta(minutes=1))], T0)
    await open_at(pool, ws, LATER)
    member = ws.members["member"]
    rows = {row["mailbox"]: row for row in await exchanges_of(pool, ws)}
    personal = rows["box-member"]
    assert (personal["owner_kind"], personal["owner_id"], personal["private_to"]) == (
        "member",
        member,
        member,
    )
    assert (personal["payer_kind"], personal["payer_id"]) == ("member", member)
    assert personal["share_with_team"] is True and personal["status"] == "waiting"
    assert personal["said_at"] == T0
    workspace = rows["box-shared"]
    assert (workspace["owner_kind"], workspace["owner_id"], workspace["private_to"]) == (
        "workspace",
        None,
        None,
    )
    assert (workspace["payer_kind"], workspace["payer_id"]) == ("workspace", None)
    assert workspace["share_with_team"] is False


async def test_a_later_important_mail_opens_a_new_exchange_from_that_point(pool, ws):
    box = await mailbox(pool, ws)
    await post(pool, ws, box, [important("m1", T0), reply("m2", T0 + timedelta(minutes=5), ws)], T0)
    assert await open_at(pool, ws, LATER) == 1
    later = T0 + timedelta(hours=5)
    await post(
        pool,
        ws,
        box,
        [message("m3", later), important("m4", later + timedelta(minutes=5))],
        later,
    )
    assert await open_at(pool, ws, later + timedelta(hours=3)) == 1
    first, second = await exchanges_of(pool, ws)
    assert (first["opening"], first["first"], first["last"]) == ("m1", "m1", "m2")
    assert (second["opening"], second["first"], second["last"]) == ("m4", "m3", "m4")


async def test_two_important_mails_waiting_together_open_one_exchange_each(pool, ws):
    box = await mailbox(pool, ws)
    thread = [
        message("m1", T0, important=False),
        important("m2", T0 + timedelta(minutes=10)),
        reply("m3", T0 + timedelta(minutes=20), ws),
        important("m4", T0 + timedelta(minutes=30)),
        reply("m5", T0 + timedelta(minutes=40), ws),
    ]
    await post(pool, ws, box, thread, T0 + timedelta(hours=1))
    assert await open_at(pool, ws, LATER) == 2
    windows = {row["opening"]: (row["first"], row["last"]) for row in await exchanges_of(pool, ws)}
    # The first ends before the second important mail, which opens its own from the message
    # just before it.
    assert windows == {"m2": ("m1", "m3"), "m4": ("m3", "m5")}


async def test_only_mail_classified_in_the_last_30_days_is_read(pool, ws):
    box = await mailbox(pool, ws)
    job = T0 + timedelta(days=40)
    edge = job - timedelta(days=30)
    await post(
        pool,
        ws,
        box,
        [
            message("old", edge - timedelta(days=1), thread="a"),
            important("in", edge, thread="a"),
            important("out", edge - timedelta(seconds=1), thread="b"),
            important("late", edge, thread="c", classified_at=edge - timedelta(seconds=1)),
        ],
        edge,
    )
    assert await open_at(pool, ws, job) == 1
    [exchange] = await exchanges_of(pool, ws)
    # The message before it was classified too long ago: the window starts at the mail.
    assert (exchange["opening"], exchange["first"]) == ("in", "in")


async def test_deleted_mail_is_left_out(pool, ws):
    box = await mailbox(pool, ws)
    await post(pool, ws, box, [important("gone", T0, deleted=True)], T0)
    last = T0 + timedelta(minutes=30)
    await post(
        pool,
        ws,
        box,
        [
            important("m1", T0, thread="t2"),
            reply("m2", T0 + timedelta(minutes=10), ws, thread="t2"),
            reply("m3", last, ws, thread="t2"),
        ],
        last,
    )
    await post(pool, ws, box, [reply("m3", last, ws, thread="t2", deleted=True)], last)
    # m3 deleted: the thread has been quiet since m2, and its window ends there.
    assert await open_at(pool, ws, T0 + timedelta(minutes=10) + QUIET) == 1
    [exchange] = await exchanges_of(pool, ws)
    assert (exchange["opening"], exchange["last"]) == ("m1", "m2")


async def test_a_mail_in_two_mailboxes_opens_an_exchange_in_each(pool, ws):
    alices = await mailbox(pool, ws, "member")
    bobs = await mailbox(pool, ws, "other")
    same = important("provider-1", T0)
    await post(pool, ws, alices, [same], T0)
    await post(pool, ws, bobs, [same], T0)
    assert await open_at(pool, ws, LATER) == 2
    rows = {row["mailbox"]: row for row in await exchanges_of(pool, ws)}
    assert rows["box-member"]["private_to"] == ws.members["member"]
    assert rows["box-other"]["private_to"] == ws.members["other"]
    assert rows["box-member"]["opening_id"] != rows["box-other"]["opening_id"]


async def test_learn_from_email_off_skips_the_mailbox_and_mail_received_meanwhile(pool, ws):
    box = await mailbox(pool, ws)
    shared = await mailbox(pool, ws, None)
    key = "memory.learnFromEmail"
    await set_preference(pool, ws, "member", key, False, T0)
    received = T0 + timedelta(minutes=10)
    await post(pool, ws, box, [important("while-off", received)], received)
    await post(pool, ws, shared, [important("shared", received)], received)
    # Skipped while off; a shared mailbox is still read.
    assert await open_at(pool, ws, LATER) == 1
    assert await openings(pool, ws) == ["shared"]
    back_on = T0 + timedelta(hours=4)
    await set_preference(pool, ws, "member", key, True, back_on)
    assert await open_at(pool, ws, back_on + timedelta(hours=3)) == 0
    # Mail received after it was turned on again is read, without what came while it was off.
    await post(pool, ws, box, [important("after", back_on + timedelta(minutes=1))], back_on)
    assert await open_at(pool, ws, back_on + timedelta(hours=6)) == 1
    rows = {row["opening"]: row for row in await exchanges_of(pool, ws)}
    assert "while-off" not in rows
    assert (rows["after"]["first"], rows["after"]["last"]) == ("after", "after")


async def test_a_preference_never_turned_off_reads_all_of_the_mailbox(pool, ws):
    box = await mailbox(pool, ws)
    # Set on (it was on by default) before the mail arrived: nothing was off.
    await set_preference(pool, ws, "member", "memory.learnFromEmail", True, T0)
    await post(pool, ws, box, [important("before", T0 - timedelta(days=2))], T0)
    assert await open_at(pool, ws, LATER) == 1


async def test_at_most_50_an_hour_and_300_a_day_the_longest_quiet_first(pool, ws):
    box = await mailbox(pool, ws)
    start = T0 - timedelta(days=1)
    threads = [
        important(f"m{n:03}", start + timedelta(minutes=n), thread=f"t{n:03}") for n in range(360)
    ]
    for n in range(0, 360, 100):
        await post(pool, ws, box, threads[n : n + 100], T0)
    day = datetime(2027, 3, 1, 0, 0, tzinfo=UTC)
    hours = [day + timedelta(hours=h) for h in range(7)]
    assert [await open_at(pool, ws, hour) for hour in hours] == [50, 50, 50, 50, 50, 50, 0]
    # The longest quiet first: the oldest threads, in order.
    assert await openings(pool, ws) == [f"m{n:03}" for n in range(300)]
    # Running the job again within the hour opens nothing more.
    assert await open_at(pool, ws, hours[6] + timedelta(minutes=30)) == 0
    assert await open_at(pool, ws, day + timedelta(days=1)) == 50
    assert (await openings(pool, ws))[300:] == [f"m{n:03}" for n in range(300, 350)]


async def test_running_the_job_again_at_the_same_time_opens_nothing_twice(pool, ws):
    box = await mailbox(pool, ws)
    await post(pool, ws, box, [important("m1", T0)], T0)
    assert await open_at(pool, ws, LATER) == 1
    assert await open_at(pool, ws, LATER) == 0
    assert await open_at(pool, ws, LATER + timedelta(hours=1)) == 0
    assert len(await exchanges_of(pool, ws)) == 1


async def test_mailboxes_with_nothing_to_open_cost_the_job_no_statement(dsn, pool, ws, ws2):
    boxes = [await mailbox(pool, ws, None, external_id=f"b{n}") for n in range(30)]
    for n, box in enumerate(boxes):
        # Quiet too short, not important, deleted, out of reach: nothing to open.
        kinds = [
            important(f"m{n}", LATER - timedelta(minutes=30)),
            message(f"m{n}", T0),
            important(f"m{n}", T0, deleted=True),
            important(f"m{n}", T0 - timedelta(days=31)),
        ]
        await post(pool, ws, box, [kinds[n % 4]], LATER)
    other = await mailbox(pool, ws2, None)
    await post(pool, ws2, other, [message("x", T0)], T0)
    await post(pool, ws, boxes[1], [important("due", T0, thread="t9")], T0)
    counting, sent = await logging_pool(dsn)
    try:
        clock.set_clock(lambda: LATER)
        opened = await exchanges.open_due(counting, LATER, workspaces={ws.id})
    finally:
        await counting.close()
    assert opened.total == 1
    # One transaction lists the workspaces to open in; one opens this workspace's exchanges.
    named = {text: name for name, text in queries("mail").items()}
    named[queries("dreamer")["lock_source"]] = "lock_source"
    assert [named.get(s.strip(), s.split()[0].rstrip(";").upper()) for s in sent] == [
        "BEGIN",
        "SELECT",  # the application role
        "due_workspaces",
        "COMMIT",
        "BEGIN",
        "SELECT",  # the workspace
        "lock_source",
        "open_exchanges",
        "COMMIT",
    ]


async def test_two_runs_at_once_open_each_exchange_once_within_the_caps(pool, ws):
    box = await mailbox(pool, ws)
    threads = [important(f"m{n}", T0, thread=f"t{n}") for n in range(60)]
    await post(pool, ws, box, threads, T0)
    clock.set_clock(lambda: LATER)
    runs = await asyncio.gather(
        *(exchanges.open_due(pool, LATER, workspaces={ws.id}) for _ in range(3))
    )
    assert sorted(run.total for run in runs) == [0, 0, 50]
    assert len(await exchanges_of(pool, ws)) == 50


async def test_a_workspace_that_fails_keeps_no_other_waiting(pool, ws, ws2, monkeypatch, caplog):
    # The failing workspace's mail has been quiet longest: it comes first.
    await post(pool, ws, await mailbox(pool, ws, None), [important("m1", T0, text="secret")], T0)
    later = T0 + timedelta(minutes=30)
    await post(pool, ws2, await mailbox(pool, ws2, None), [important("m2", later)], later)
    real = exchanges.mail.open_exchanges

    async def broken(conn, now, rules):  # type: ignore[no-untyped-def]
        if await conn.fetchval("SELECT app_workspace_id()") == ws.id:
            raise asyncpg.PostgresError("the disk is full")
        return await real(conn, now, rules)

    monkeypatch.setattr(exchanges.mail, "open_exchanges", broken)
    clock.set_clock(lambda: LATER)
    with caplog.at_level("ERROR", logger="skillmem.mail"):
        opened = await exchanges.open_due(pool, LATER, workspaces={ws.id, ws2.id})
    assert opened.by_workspace == {str(ws2.id): 1}
    assert opened.failed == {str(ws.id): "PostgresError"}
    assert exchanges.lines(opened) == [
        f"mail: workspace {ws2.id}: 1 exchange(s) opened at {LATER.isoformat()}",
        f"mail: workspace {ws.id}: failed (PostgresError)",
    ]
    [logged] = caplog.records
    assert logged.getMessage() == f"mail job of workspace {ws.id} failed"
    assert "secret" not in caplog.text and "m1" not in logged.getMessage()
    assert await openings(pool, ws2) == ["m2"]
    # Nothing of it was written: the next hour opens it.
    assert await openings(pool, ws) == []
    monkeypatch.setattr(exchanges.mail, "open_exchanges", real)
    assert await open_at(pool, ws, LATER + timedelta(hours=1)) == 1


async def test_a_mail_flagged_important_later_opens_an_exchange_at_the_next_hour(pool, ws):
    box = await mailbox(pool, ws)
    await post(pool, ws, box, [message("m1", T0), reply("m2", T0 + timedelta(minutes=5), ws)], T0)
    assert await open_at(pool, ws, LATER) == 0
    # The provider's classifier flags it important the next day: the re-send says so.
    flagged_at = T0 + timedelta(days=1)
    recorded = await post(
        pool, ws, box, [important("m1", T0, classified_at=flagged_at)], flagged_at
    )
    [found] = recorded.messages
    assert found.replayed is False and found.message.important
    assert found.message.classified_at == flagged_at
    assert await open_at(pool, ws, flagged_at + timedelta(hours=1)) == 1
    [exchange] = await exchanges_of(pool, ws)
    assert (exchange["opening"], exchange["first"], exchange["last"]) == ("m1", "m1", "m2")


def test_the_caps_hour_and_day_are_utcs_whatever_the_offset_of_now():
    # 08:00 on 2 March at +14:00 is 18:00 on 1 March in UTC: the day of the cap is 1 March.
    rules = exchanges.rules_at(datetime.fromisoformat("2027-03-02T08:30:00+14:00"))
    assert rules.hour == datetime(2027, 3, 1, 18, 0, tzinfo=UTC)
    assert rules.day == datetime(2027, 3, 1, 0, 0, tzinfo=UTC)


async def test_the_30_days_are_counted_in_utc_whatever_the_sessions_time_zone(dsn, pool, ws):
    # After the change to summer time in Paris (28 March 2027), 30 days before 10 April at
    # 12:00 UTC is 11 March at 12:00 UTC: 720 hours, not the 719 Paris's calendar would count.
    now = datetime(2027, 4, 10, 12, 0, tzinfo=UTC)
    start = now - timedelta(days=30)
    box = await mailbox(pool, ws)
    mails = [
        important("in", start + timedelta(minutes=30), thread="a"),
        important("out", start - timedelta(seconds=1), thread="b"),
    ]
    await post(pool, ws, box, mails, start + timedelta(minutes=30))
    await post(pool, ws, box, [important("edge", start, thread="c")], start + timedelta(hours=1))
    paris = await asyncpg.create_pool(
        api_dsn(dsn),
        min_size=1,
        max_size=2,
        init=init_connection,
        connection_class=SerialConnection,
        reset=keep_session,
        server_settings={"TimeZone": "Europe/Paris"},
    )
    try:
        async with paris.acquire() as conn:
            assert await conn.fetchval("SHOW TimeZone") == "Europe/Paris"
        clock.set_clock(lambda: now)
        # Seen from +14:00, the same instant.
        at = now.astimezone(timezone(timedelta(hours=14)))
        opened = await exchanges.open_due(paris, at, workspaces={ws.id})
    finally:
        await paris.close()
    assert opened.at == now and opened.at.utcoffset() == timedelta(0)
    assert sorted(await openings(pool, ws)) == ["edge", "in"]
