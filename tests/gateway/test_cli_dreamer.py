"""`skillmem dreamer run [--now TIME]`: the time parsed, the clock stood at it for the run,
``passes.run_due`` called with it, one line per pass and a total printed (the pass a stand-in),
and the real pass run end to end on a database of its own, then due consolidations."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from db.dreamer_schedule import DueOwner
from db.migrate import apply_migrations
from db.pool import begin_workspace, connect, create_pool
from gateway.cli import dreamer
from gateway.cli.main import main
from gateway.cli.main import parse as parse_command_line
from gateway.settings import Settings
from resolvers.common import clock
from resolvers.common.principals import principal_for_token
from resolvers.memory.dreamer import passes
from resolvers.memory.dreamer.guard import owner_lock
from resolvers.memory.dreamer.messages import MessageInput, record_message
from resolvers.memory.dreamer.passes import PassReport, PassSettings
from tests.factories import company, local, make_workspace
from tests.gateway.dreamer_items import add_waiting, clear_items

WS = uuid.UUID("0b9c4c1e-5f0a-4c56-9d1e-111111111111")
MEMBER = uuid.UUID("0b9c4c1e-5f0a-4c56-9d1e-222222222222")


def parse(*argv: str) -> datetime | None:
    """The time `skillmem dreamer run ARGV` runs at, as the command line's parser reads it."""
    now: datetime | None = parse_command_line(["dreamer", "run", *argv])["now"]
    return now


def test_now_is_an_iso_time_in_utc_unless_it_says_its_zone():
    assert parse("--now", "2026-11-02T09:30:00Z") == datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    assert parse("--now", "2026-11-02T09:30") == datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    paris = parse("--now", "2026-11-02T10:30:00+01:00")
    assert paris is not None
    assert paris.utcoffset() == timedelta(hours=1)
    assert paris == datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    assert parse() is None


def test_a_time_that_does_not_parse_is_refused(capsys):
    assert main(["dreamer", "run", "--now", "next tuesday"]) == 2
    assert "not an ISO 8601 time: 'next tuesday'" in capsys.readouterr().err


async def no_periodic_jobs(pool, now, settings):  # type: ignore[no-untyped-def]
    """``run_all`` doing nothing: the session's database holds every other test's pages, which
    memory's periodic jobs (consolidation) would tidy and print."""
    return []


async def test_the_passes_due_at_now_run_and_each_prints_a_line(dsn, monkeypatch, capsys):
    at = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
    monkeypatch.setattr(dreamer, "run_all", no_periodic_jobs)
    seen: list[tuple[datetime, datetime, PassSettings]] = []

    async def run_due(pool, now, settings):  # type: ignore[no-untyped-def]
        seen.append((now, clock.now(), settings))
        member = DueOwner(WS, "member", MEMBER, at, 3)
        workspace = DueOwner(WS, "workspace", None, at, 1)
        return [
            PassReport(member, read=3, written=2, refused=1, cost_usd=Decimal("0.0012")),
            PassReport(workspace, read=0, waiting=1, note="over its allowance"),
        ]

    async def run_all(pool, now, settings):  # type: ignore[no-untyped-def]
        seen.append((now, clock.now(), settings))
        return ["weekly removal, workspace …"]

    monkeypatch.setattr(passes, "run_due", run_due)
    # The periodic jobs run first, at the same time (each has tests of its own).
    monkeypatch.setattr(dreamer, "run_all", run_all)
    code = await dreamer.dreamer_run(
        parse("--now", "2026-11-02T09:30:00Z"), Settings(database_url=dsn)
    )
    assert code == 0
    # run_all and run_due were given the time, the clock stood at it meanwhile, and stands no
    # more.
    assert [(now, stood) for now, stood, _ in seen] == [(at, at), (at, at)]
    assert isinstance(seen[0][2], PassSettings)
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(seconds=5)
    assert capsys.readouterr().out.splitlines() == [
        "weekly removal, workspace …",
        f"workspace {WS}, member {MEMBER}: read 3, waiting 0; written 2, refreshed 0, "
        "refused 1; cost $0.0012",
        f"workspace {WS}, workspace: read 0, waiting 1; written 0, refreshed 0, refused 0; "
        "cost $0 (over its allowance)",
        "2 passes due at 2026-11-02T09:30:00+00:00: read 3, waiting 1; written 2, "
        "refreshed 0, refused 1; cost $0.0012",
    ]


async def test_with_nothing_due_it_says_so(dsn, monkeypatch, capsys):
    async def run_due(pool, now, settings):  # type: ignore[no-untyped-def]
        return []

    monkeypatch.setattr(passes, "run_due", run_due)
    monkeypatch.setattr(dreamer, "run_all", no_periodic_jobs)
    before = clock.now()
    assert await dreamer.dreamer_run(parse(), Settings(database_url=dsn)) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("0 passes due at ")
    assert datetime.fromisoformat(line.split(" at ")[1].split(": ")[0]) >= before
    assert line.endswith(": read 0, waiting 0; written 0, refreshed 0, refused 0; cost $0")


async def test_dreamer_run_leaves_an_owner_whose_pass_runs_elsewhere(dsn, pool, ws, monkeypatch):
    # run_due runs each pass through run_pass, under the owner's lock (guard.owner_lock), so
    # that a worker's pass is never run twice.
    ran: list[DueOwner] = []

    async def stand_in(pool, owner, settings):  # type: ignore[no-untyped-def]
        ran.append(owner)
        return PassReport(owner)

    monkeypatch.setattr(passes, "run_unguarded", stand_in)
    busy, free = uuid.uuid4(), uuid.uuid4()
    long_ago = datetime(2026, 1, 5, tzinfo=UTC)
    await add_waiting(pool, ws.id, "agent", busy, arrived_at=long_ago)
    await add_waiting(pool, ws.id, "agent", free, arrived_at=long_ago)
    try:
        async with owner_lock(pool, DueOwner(ws.id, "agent", busy, long_ago, 1)) as taken:
            assert taken
            reports = await passes.run_due(pool, datetime.now(UTC), PassSettings(), {ws.id})
    finally:
        await clear_items(pool, ws.id)
    assert [o.owner_id for o in ran if o.workspace_id == ws.id] == [free]
    assert {r.owner.owner_id: r.note for r in reports}[busy] == "running elsewhere"


async def test_dreamer_run_runs_the_real_pass_end_to_end(new_database, capsys):
    # A database of its own: `dreamer run` runs every pass due, in every workspace.
    # A Tuesday: the Monday removal does not run (its own tests show it in `dreamer run`).
    url = str(await new_database())
    conn = await connect(url)
    await apply_migrations(conn)
    await conn.close()
    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        ws = await make_workspace(pool, "Cli")
        acme = await company(pool, ws, "Acme")
        said_at = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)
        clock.set_clock(lambda: said_at)
        try:
            async with pool.acquire() as conn, conn.transaction():
                principal = await principal_for_token(conn, ws.tokens["member"])
                text = f"Remember: @[Acme](record:{acme}) wants every message in French."
                await record_message(conn, principal, MessageInput("c1", "user", text))
        finally:
            clock.set_clock(None)
        # Not due a minute later; a few minutes later the pass writes on Acme's page.
        early = parse("--now", "2026-11-03T09:31:00Z")
        assert await dreamer.dreamer_run(early, Settings(database_url=url)) == 0
        assert capsys.readouterr().out.startswith("0 passes due at ")
        later = parse("--now", "2026-11-03T09:36:00Z")
        assert await dreamer.dreamer_run(later, Settings(database_url=url)) == 0
        first, total = capsys.readouterr().out.splitlines()
        assert first.startswith(f"workspace {ws.id}, member {ws.members['member']}: read 1,")
        assert "written 1" in first and total.startswith("1 pass due at ")
        async with pool.acquire() as conn, conn.transaction():
            await begin_workspace(conn, ws.id)
            texts = await conn.fetch(
                "SELECT l.text FROM memory_lines l JOIN memory_pages p ON p.id = l.page_id"
                " WHERE p.subject_id = $1 AND l.kind = 'souvenir'",
                local(ws, acme),
            )
        assert [row["text"] for row in texts] == ["Acme wants every message in French."]
        # The next run consolidates the workspace's pages, never consolidated yet, first.
        again = parse("--now", "2026-11-03T09:40:00Z")
        assert await dreamer.dreamer_run(again, Settings(database_url=url)) == 0
        consolidated, total = capsys.readouterr().out.splitlines()
        assert consolidated == (
            f"consolidation of workspace {ws.id}, workspace (rules): pages read 1, "
            "lines changed 0, pages deleted 0; cost $0"
        )
        assert total.startswith("0 passes due at ")
    finally:
        await pool.close()
