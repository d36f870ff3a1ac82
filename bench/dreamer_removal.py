"""The Monday removal benchmark (issue 11): the weekly removal over the bench workspace's
50,000 memory pages, its time and its SQL statements.

`python -m bench.dreamer_removal` (or `make bench-dreamer-removal`) starts PostgreSQL like
bench.records (DATABASE_URL's server, or the embedded one in .data/bench-postgres), finds or
generates the bench workspace (`skillmem_bench`, as `make bench-data` makes it: 110,000
records, 50,000 record pages of 3 to 8 souvenirs dated over the year before Monday 2026-06-01,
30% of them from a deal), then for each round (bench/dreamer_removal_data.py):

1. copies it (`CREATE DATABASE skillmem_bench_removal_run TEMPLATE ...`: every round starts
   from the same rows) and, in the copy, makes souvenirs removable: 5% ended the day before
   the Monday, 2% end during the week after, 5% come from a record that no longer exists, 5%
   are ✍ (kept whatever they say), and 2 member profiles per 100 record pages of 6 souvenirs
   from random deals (a deal private to someone else is closed to the member); the contexte
   lines dated more than six months before the Monday are past their review on their own;
2. times the candidates' scan alone (`removal.candidates` over the whole workspace, in a
   transaction of its own: the floor, reading every line once);
3. runs that Monday's removal of the workspace (`remove_in_workspace`, as the periodic job
   runs it, on a pool as the service runs it whose connection logs every statement), then the
   next Monday's (a week's worth: what ended during the week).

Options: `--pages N` (50,000: the bench workspace itself; any other number: the same generator
scaled to N record pages in a database of its own, `skillmem_bench_removal_data`, e.g.
`--pages 300` for a smoke run), `--rounds N` (3), `--wait-quiet SECONDS` (20: the longest wait
for an idle machine before each round). It prints a Markdown table and writes the figures to
bench/results/dreamer-removal-<time>.json.
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
from bench.dreamer_data import drop
from bench.dreamer_removal_data import (
    BENCH_PAGES,
    MONDAY,
    NEXT_MONDAY,
    RUN_DATABASE,
    copy_with_removables,
    prepared,
)
from bench.generate import WORKSPACE_ID
from db import removal
from db.pool import (
    POOL_SERVER_SETTINGS,
    SerialConnection,
    api_dsn,
    begin_workspace,
    init_connection,
    keep_session,
)
from db.sql import queries
from resolvers.memory.cleanup.removal import RemovalReport, remove_in_workspace
from resolvers.memory.cleanup.weekly import review_before

MIN_PAGES = 50
# What asyncpg sends on its own the first time a connection meets a type (a fresh pool's, as
# a worker's right after it starts): counted apart.
INTROSPECTION = (
    "WITH RECURSIVE typeinfo_tree",
    "SELECT current_setting('jit')",
    "SELECT set_config('jit'",
)


def statement_name(query: str) -> str:
    """A logged statement's query name (db/queries), or its first words."""
    for domain in ("removal", "memory"):
        for name, text in queries(domain).items():
            if text == query.strip():
                return name
    return " ".join(query.split())[:60]


async def scan_seconds(dsn: str) -> tuple[float, int]:
    """The candidates' statement alone over the whole workspace: its seconds and rows."""
    conn = await asyncpg.connect(api_dsn(dsn), server_settings=POOL_SERVER_SETTINGS)
    try:
        await init_connection(conn)
        async with conn.transaction():
            await begin_workspace(conn, WORKSPACE_ID)
            today = MONDAY.date()
            started = time.perf_counter()
            found = await removal.candidates(conn, today, review_before(today), None)
            seconds = time.perf_counter() - started
    finally:
        await conn.close()
    return seconds, len(found)


async def timed_removal(dsn: str, now: datetime) -> dict[str, Any]:
    """One Monday's removal of the bench workspace, timed, its statements logged."""
    logged: list[str] = []
    spent: Counter[str] = Counter()

    def log(record: Any) -> None:
        logged.append(record.query)
        spent[statement_name(record.query)] += record.elapsed

    async def init(conn: asyncpg.Connection) -> None:
        await init_connection(conn)
        conn.add_query_logger(log)

    pool = await asyncpg.create_pool(
        api_dsn(dsn),
        min_size=1,
        max_size=1,
        init=init,
        connection_class=SerialConnection,
        reset=keep_session,
        server_settings=POOL_SERVER_SETTINGS,
    )
    try:
        logged.clear()
        started = time.perf_counter()
        report: RemovalReport = await remove_in_workspace(pool, WORKSPACE_ID, now)
        seconds = time.perf_counter() - started
    finally:
        await pool.close()
    control = [q for q in logged if q.strip().upper().startswith(records.TRANSACTION_CONTROL)]
    learnt = [q for q in logged if " ".join(q.split()).startswith(INTROSPECTION)]
    names = Counter(statement_name(q) for q in logged if q not in control and q not in learnt)
    return {
        "seconds": round(seconds, 3),
        "statements": sum(names.values()),
        "transaction_control": len(control),
        "type_introspection": len(learnt),
        "by_name": dict(names),
        "seconds_by_name": {name: round(spent[name], 3) for name in names},
        "audiences": report.audiences,
        "pages_read": report.pages_read,
        "lines_removed": report.lines_removed,
        "pages_deleted": report.pages_deleted,
        "note": report.note,
    }


async def one_round(server: str, template: str, pages: int) -> dict[str, Any]:
    made = time.perf_counter()
    copy = await copy_with_removables(server, template, pages)
    setup = time.perf_counter() - made
    scan, candidates = await scan_seconds(copy["dsn"])
    first = await timed_removal(copy["dsn"], MONDAY)
    second = await timed_removal(copy["dsn"], NEXT_MONDAY)
    return {
        "setup_seconds": round(setup, 1),
        "profiles": copy["profiles"],
        "souvenirs": copy["lines"],
        "scan_seconds": round(scan, 3),
        "candidates": candidates,
        "monday": first,
        "next_monday": second,
    }


def markdown(report: dict[str, Any]) -> str:
    rows = [
        "| round | souvenirs | scan (s) | Monday (s) | statements | removed | pages deleted |"
        " next Monday (s) | statements | removed |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, row in enumerate(report["rounds"], start=1):
        first, second = row["monday"], row["next_monday"]
        rows.append(
            f"| {n} | {row['souvenirs']:,} | {row['scan_seconds']} | {first['seconds']} |"
            f" {first['statements']} | {first['lines_removed']:,} | {first['pages_deleted']:,} |"
            f" {second['seconds']} | {second['statements']} | {second['lines_removed']:,} |"
        )
    if len(report["rounds"]) > 1:
        median = report["medians"]
        rows.append(
            f"| median | | {median['scan_seconds']} | {median['monday_seconds']} | | | |"
            f" {median['next_monday_seconds']} | | |"
        )
    return "\n".join(rows)


def medians(rounds: list[dict[str, Any]]) -> dict[str, float]:
    return {
        "scan_seconds": statistics.median(r["scan_seconds"] for r in rounds),
        "monday_seconds": statistics.median(r["monday"]["seconds"] for r in rounds),
        "next_monday_seconds": statistics.median(r["next_monday"]["seconds"] for r in rounds),
    }


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    started = time.perf_counter()
    template, counts = await prepared(server, args.pages)
    print(
        f"data: {counts.get('memory_pages', 0):,} pages, {counts.get('memory_lines', 0):,}"
        f" lines in {template} ({time.perf_counter() - started:.1f} s)",
        flush=True,
    )
    conn = await asyncpg.connect(server)
    try:
        server_version = str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m bench.dreamer_removal " + " ".join(sys.argv[1:]),
        "machine": records.machine(server_version),
        "settings": vars(args),
        "data": counts,
        "rounds": [],
    }
    meter = records.CpuMeter(postmaster_pid)
    for n in range(args.rounds):
        idle = await records.wait_quiet(meter, args.wait_quiet)
        row = await one_round(server, template, args.pages)
        row["idle_load_before"] = idle
        report["rounds"].append(row)
        print(
            f"round {n + 1}: Monday {row['monday']['seconds']} s,"
            f" {row['monday']['statements']} statements, {row['monday']['lines_removed']:,}"
            f" souvenirs removed, {row['monday']['pages_deleted']:,} pages deleted; scan"
            f" {row['scan_seconds']} s; next Monday {row['next_monday']['seconds']} s",
            flush=True,
        )
    report["medians"] = medians(report["rounds"])
    await drop(server, RUN_DATABASE)
    records.write_results("dreamer-removal", report, markdown(report))
    return 0


def pages_count(text: str) -> int:
    value = int(text)
    if value < MIN_PAGES:
        raise argparse.ArgumentTypeError(f"at least {MIN_PAGES}")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pages",
        type=pages_count,
        default=BENCH_PAGES,
        help=f"record pages ({BENCH_PAGES:,}: the bench workspace; fewer: a scaled copy)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="fresh copies, each run once")
    parser.add_argument(
        "--wait-quiet", type=float, default=20.0, help="seconds to wait at most for an idle machine"
    )
    return records.run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
