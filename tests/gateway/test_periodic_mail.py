"""The hourly mail job as one of memory's periodic jobs (gateway/worker/periodic.py): first of
them, on the hour, and run by `skillmem dreamer run --now TIME` before the passes, on a
database of its own."""

from __future__ import annotations

from datetime import UTC, datetime

from db.migrate import apply_migrations
from db.pool import connect, create_pool
from gateway.cli import dreamer
from gateway.settings import Settings
from gateway.worker.periodic import periodic_jobs
from resolvers.common import clock
from tests.factories import company, make_workspace
from tests.gateway.test_cli_dreamer import parse
from tests.memory.mail.mailing import important, mailbox, post, reply

RECEIVED = datetime(2026, 11, 2, 6, 0, tzinfo=UTC)


def test_the_mail_job_runs_first_every_hour():
    first = periodic_jobs()[0]
    assert (first.name, first.cron) == ("memory.mail", "0 * * * *")


async def test_dreamer_run_opens_the_exchanges_due_then_reads_them(new_database, capsys):
    url = str(await new_database())
    conn = await connect(url)
    await apply_migrations(conn)
    await conn.close()
    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        ws = await make_workspace(pool, "Cli")
        acme = await company(pool, ws, "Acme")
        box = await mailbox(pool, ws)
        rule = "Retiens : le DAF d'Acme décide seul."
        thread = [
            important("m1", RECEIVED, text="Qui décide ?", record_ids=[acme]),
            reply("r1", RECEIVED, ws, text=rule, record_ids=[acme]),
        ]
        await post(pool, ws, box, thread, RECEIVED)
        assert (
            await dreamer.dreamer_run(
                parse("--now", "2026-11-02T07:00:00Z"), Settings(database_url=url)
            )
            == 0
        )
        assert capsys.readouterr().out.startswith("0 passes due at ")
        assert (
            await dreamer.dreamer_run(
                parse("--now", "2026-11-02T08:00:00Z"), Settings(database_url=url)
            )
            == 0
        )
        opened, total = capsys.readouterr().out.splitlines()
        assert (
            opened == f"mail: workspace {ws.id}: 1 exchange(s) opened at 2026-11-02T08:00:00+00:00"
        )
        assert total.startswith("0 passes due at ")
        assert (
            await dreamer.dreamer_run(
                parse("--now", "2026-11-02T09:00:00Z"), Settings(database_url=url)
            )
            == 0
        )
        first, total = capsys.readouterr().out.splitlines()
        assert first.startswith(f"workspace {ws.id}, member {ws.members['member']}: read 1,")
        assert "written 1" in first
    finally:
        clock.set_clock(None)
        await pool.close()
