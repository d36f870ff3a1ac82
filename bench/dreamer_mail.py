"""The hourly mail job's benchmark: the job (`exchanges.open_due`) over 10,000 mailboxes' worth
of threads, its time and its SQL statements.

`python -m bench.dreamer_mail` (or `make bench-dreamer-mail`) starts PostgreSQL like
bench.records (DATABASE_URL's server, or the embedded one in .data/bench-postgres) and remakes
the `skillmem_bench_mail` database: migrated, `--workspaces` workspaces (20) sharing
`--mailboxes` mailboxes (10,000; one in ten shared, the others personal, one member each),
each with `--threads` threads (3) of four messages (received, a reply sent, received, a reply
sent), every message a record of the mail object, made in SQL (set-based: the data is not
what is measured). The threads, by mailbox and thread number, as a day in a workspace goes:

- due: a received Direct mail flagged important, answered, quiet for 3 hours: an exchange to
  open (one mailbox in `--due-every`, 25: 400 of 10,000, 20 a workspace);
- opened: the same, with its exchange opened the day before (what most important mail is; not
  counted in the day's cap of 300, which 480 a workspace would exceed);
- recent: an important mail answered 30 minutes ago (not quiet yet);
- plain: Direct mail not flagged important, and newsletters;
- old: important mail classified 40 days ago (out of reach);
- a personal mailbox in `--off-every` (10) belongs to a member who turned learnFromEmail off.

Each round copies the prepared database (`CREATE DATABASE skillmem_bench_mail_run TEMPLATE
skillmem_bench_mail`), then runs the job as the worker does (the application's login role, one
pooled connection logging every statement) twice at the same time: the first run opens what is
due (at most 50 a workspace: the hour's cap), the second finds nothing to open (the capped
workspaces are left out by `mail_due`, the others have nothing due). It reports each run's
time (median and spread over `--rounds`, 5) and its statements by name.

A smoke run: `python -m bench.dreamer_mail --mailboxes 200 --workspaces 2 --rounds 1`.
It prints Markdown tables and writes the figures to bench/results/dreamer-mail-<time>.json.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import asyncpg

from bench import records
from bench.dreamer_data import drop, remake
from bench.records import machine
from db.migrate import apply_migrations
from db.pool import SerialConnection, api_dsn, connect, init_connection, keep_session
from db.sql import queries
from resolvers.common import clock
from resolvers.memory.mail import exchanges
from resolvers.records.workspaces import create_workspace

DATABASE = "skillmem_bench_mail"
RUN_DATABASE = f"{DATABASE}_run"
# The job runs on the hour; every time in the data is relative to it.
NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK")

# One workspace's people, mailboxes and threads, set-based ($1 is always the workspace).
# A member for each mailbox but one in ten ($2 the first mailbox's number, $3 how many, $4 the
# member role, $5 now).
PEOPLE = """
INSERT INTO members (workspace_id, id, name, email, role_id, created_at)
SELECT $1, gen_random_uuid(), 'Person ' || n, 'person' || n || '@bench.example', $4,
       $5::timestamptz - interval '1 year'
  FROM generate_series($2::integer, $2 + $3 - 1) AS n WHERE n % 10 <> 0
"""
# Each member's personal mailbox, and a shared one for the others ($2, $3 as above, $4 now).
MAILBOXES = """
INSERT INTO mailboxes (workspace_id, id, external_id, kind, owner_id, name, addresses,
                       created_at)
SELECT $1, gen_random_uuid(), 'box-' || n, CASE WHEN m.id IS NULL THEN 'shared' ELSE 'personal' END,
       m.id, 'Mailbox ' || n, CASE WHEN m.id IS NULL THEN '{}' ELSE ARRAY[m.email] END,
       $4::timestamptz - interval '1 year'
  FROM generate_series($2::integer, $2 + $3 - 1) AS n
  LEFT JOIN members m ON m.workspace_id = $1 AND m.email = 'person' || n || '@bench.example'
"""
# learnFromEmail off for one member in $2 ($3 now).
OFF = """
INSERT INTO member_preferences (workspace_id, member_id, key, value, turned_on_at, updated_at)
SELECT $1, m.id, 'memory.learnFromEmail', false, m.created_at, $3::timestamptz - interval '1 day'
  FROM members m
 WHERE m.workspace_id = $1 AND substring(m.name FROM 8)::integer % $2 = 1
"""
# The threads' messages to make: one mailbox in $2 due, $3 threads each, $4 now.
GENERATED = """
CREATE TEMP TABLE bench_mail (id uuid, mailbox_id uuid, thread_id text, external_id text,
                              kind text, k integer, sent boolean, at timestamptz)
    ON COMMIT DROP
"""
THREADS = """
INSERT INTO bench_mail
WITH box AS (
    SELECT b.id, substring(b.external_id FROM 5)::integer AS n FROM mailboxes b
     WHERE b.workspace_id = $1
),
thread AS (
    SELECT box.id AS mailbox_id, box.n, t,
           CASE WHEN t = 0 AND box.n % $2 = 0 THEN 'due'
                WHEN t = 0 THEN 'opened'
                ELSE (ARRAY['recent', 'plain', 'old', 'plain'])[1 + (box.n + t) % 4] END AS kind
      FROM box, generate_series(0, $3::integer - 1) AS t
)
SELECT gen_random_uuid() AS id, h.mailbox_id, 'th-' || h.n || '-' || h.t AS thread_id,
       h.n || '-' || h.t || '-' || k AS external_id, h.kind, k,
       (k % 2 = 1) AS sent,
       $4::timestamptz - CASE h.kind WHEN 'recent' THEN interval '30 minutes' * (4 - k)
                                     WHEN 'old' THEN interval '40 days' - interval '1 hour' * k
                                     ELSE interval '3 hours' + interval '20 minutes' * (3 - k)
                                     END AS at
  FROM thread h, generate_series(0, 3) AS k
"""
MESSAGES = """
WITH made AS (
    INSERT INTO records (workspace_id, id, object_id, label, visibility, owner_member_id,
                         created_at, updated_at)
    SELECT $1, g.id, $2, 'Thread ' || g.thread_id,
           CASE WHEN b.owner_id IS NULL THEN 'workspace' ELSE 'private' END, b.owner_id, g.at,
           g.at
      FROM bench_mail g JOIN mailboxes b ON b.workspace_id = $1 AND b.id = g.mailbox_id
)
INSERT INTO mail_messages (workspace_id, id, mailbox_id, external_id, thread_id, filed,
                           category, important, classified_at, from_address, sent_at, subject,
                           text, created_at)
SELECT $1, g.id, g.mailbox_id, g.external_id, g.thread_id,
       CASE WHEN g.sent THEN 'sent' ELSE 'received' END,
       CASE WHEN g.sent THEN NULL WHEN g.kind = 'plain' AND g.k = 2 THEN 'newsletter'
            ELSE 'direct' END,
       NOT g.sent AND g.k = 0 AND g.kind <> 'plain', g.at,
       CASE WHEN g.sent THEN COALESCE(b.addresses[1], 'team@bench.example')
            ELSE 'client' || g.k || '@client.example' END,
       g.at, 'Thread ' || g.thread_id, 'Message ' || g.k || ' of the thread.', g.at
  FROM bench_mail g JOIN mailboxes b ON b.workspace_id = $1 AND b.id = g.mailbox_id
"""
OPENED = """
INSERT INTO mail_exchanges (workspace_id, id, mailbox_id, thread_id, opening_id, first_id,
                            first_at, last_id, last_at, quiet_since, opened_at)
SELECT $1, gen_random_uuid(), o.mailbox_id, o.thread_id, o.id, o.id, o.at, l.id, l.at, l.at,
       $2::timestamptz - interval '1 day'
  FROM bench_mail o
  JOIN bench_mail l ON l.mailbox_id = o.mailbox_id AND l.thread_id = o.thread_id AND l.k = 3
 WHERE o.kind = 'opened' AND o.k = 0
"""


async def prepare(server: str, args: argparse.Namespace) -> dict[str, int]:
    """Remake the prepared database; what it holds."""
    dsn = await remake(server, DATABASE)
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
        per = args.mailboxes // args.workspaces
        for w in range(args.workspaces):
            async with conn.transaction():
                made = await create_workspace(conn, f"Bench {w}")
                ws = made.workspace_id
                first = w * per
                await conn.execute(PEOPLE, ws, first, per, made.roles["member"], NOW)
                await conn.execute(MAILBOXES, ws, first, per, NOW)
                await conn.execute(OFF, ws, args.off_every, NOW)
                await conn.execute(GENERATED)
                await conn.execute(THREADS, ws, args.due_every, args.threads, NOW)
                await conn.execute(MESSAGES, ws, made.objects["mail"])
                await conn.execute(OPENED, ws, NOW)
        await conn.execute("ANALYZE")
        counts = {}
        for table in ("mailboxes", "mail_messages", "mail_exchanges", "members"):
            counts[table] = await conn.fetchval(f"SELECT count(*) FROM {table}")  # noqa: S608
    finally:
        await conn.close()
    return counts


def statement_name(query: str, named: dict[str, str]) -> str:
    text = query.strip()
    if text in named:
        return named[text]
    first = text.split()[0].rstrip(";").upper() if text else ""
    if first in TRANSACTION_CONTROL:
        return first
    if "set_config('role'" in text:
        return "as_app_role"
    if "app_begin_workspace" in text:
        return "pool.begin_workspace"
    return " ".join(text.split())[:60]


async def run_job(dsn: str) -> list[dict[str, Any]]:
    """The job twice at NOW on a pool of one connection as the service's login role: each
    run's seconds, exchanges opened, workspaces, statements."""
    sent: list[str] = []

    async def init(conn: asyncpg.Connection) -> None:
        await init_connection(conn)
        conn.add_query_logger(lambda record: sent.append(record.query))

    pool = await asyncpg.create_pool(
        api_dsn(dsn),
        min_size=1,
        max_size=1,
        init=init,
        connection_class=SerialConnection,
        reset=keep_session,
    )
    named = {text: f"mail.{name}" for name, text in queries("mail").items()}
    named[queries("dreamer")["lock_source"]] = "dreamer.lock_source"
    found = []
    clock.set_clock(lambda: NOW)
    try:
        for _ in range(2):
            sent.clear()
            started = time.perf_counter()
            opened = await exchanges.open_due(pool, NOW)
            seconds = time.perf_counter() - started
            names = Counter(statement_name(q, named) for q in sent)
            found.append(
                {
                    "seconds": round(seconds, 4),
                    "opened": opened.total,
                    "workspaces": len(opened.by_workspace),
                    "statements": sum(names.values()),
                    "by_statement": dict(names.most_common()),
                }
            )
    finally:
        clock.set_clock(None)
        await pool.close()
    return found


def spread(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 4),
        "min": round(min(values), 4),
        "max": round(max(values), 4),
    }


def markdown(report: dict[str, Any]) -> str:
    held = report["data"]
    lines = [
        f"{held['mailboxes']} mailboxes, {held['mail_messages']} messages, "
        f"{held['mail_exchanges']} exchanges opened before, in {report['settings']['workspaces']}"
        " workspaces",
        "",
        "| run | opened | workspaces | seconds (median) | min | max | statements |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, key in (("first: opens what is due", "first"), ("again: nothing to open", "again")):
        row = report[key]
        lines.append(
            f"| {label} | {row['opened']} | {row['workspaces']} | {row['seconds']['median']} "
            f"| {row['seconds']['min']} | {row['seconds']['max']} | {row['statements']} |"
        )
    for key in ("first", "again"):
        lines += ["", f"Statements ({key}):", ""]
        lines += [f"- `{name}`: {n}" for name, n in report[key]["by_statement"].items()]
    return "\n".join(lines)


def summary(runs: list[list[dict[str, Any]]], index: int) -> dict[str, Any]:
    rows = [run[index] for run in runs]
    return {
        "opened": rows[-1]["opened"],
        "workspaces": rows[-1]["workspaces"],
        "seconds": spread([row["seconds"] for row in rows]),
        "statements": rows[-1]["statements"],
        "by_statement": rows[-1]["by_statement"],
    }


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    started = time.perf_counter()
    held = await prepare(server, args)
    print(f"data: {held} in {time.perf_counter() - started:.1f} s", flush=True)
    runs = []
    for round_number in range(args.rounds):
        dsn = await remake(server, RUN_DATABASE, DATABASE)
        found = await run_job(dsn)
        print(
            f"round {round_number + 1}: {found[0]['opened']} opened in "
            f"{found[0]['seconds']} s ({found[0]['statements']} statements); again "
            f"{found[1]['seconds']} s ({found[1]['statements']} statements)",
            flush=True,
        )
        runs.append(found)
    await drop(server, RUN_DATABASE)
    conn = await asyncpg.connect(server)
    try:
        version = str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m bench.dreamer_mail " + " ".join(sys.argv[1:]),
        "machine": machine(version),
        "settings": vars(args),
        "data": held,
        "first": summary(runs, 0),
        "again": summary(runs, 1),
        "runs": runs,
    }
    records.write_results("dreamer-mail", report, markdown(report))
    return 0


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mailboxes", type=positive, default=10_000, help="in all")
    parser.add_argument("--workspaces", type=positive, default=20, help="sharing them")
    parser.add_argument("--threads", type=positive, default=3, help="per mailbox")
    parser.add_argument("--due-every", type=positive, default=25, help="one mailbox in N is due")
    parser.add_argument("--off-every", type=positive, default=10, help="learnFromEmail off")
    parser.add_argument("--rounds", type=positive, default=5, help="runs, each on a fresh copy")
    return records.run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
