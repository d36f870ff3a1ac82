"""The Dreamer benchmark: items per second through the pass with the `rules` reader at 1, 2 and 4
workers, the queue's latency from due to started, and the SQL statements of a pass.

`python -m bench.dreamer` (or `make bench-dreamer`) starts PostgreSQL like bench.records
(DATABASE_URL's server, or the embedded one in .data/bench-postgres), remakes the
`skillmem_bench_dreamer` database (migrated; one workspace with the CRM objects, an admin, and
`--people` members, each with a company record the admin made: bench/dreamer_data.py), then:

1. counts SQL statements in-process (bench/dreamer_sql.py): a worker's handling of one owner's
   job (`Worker.handle`: the schedule's check, the owner's lock, the pass, the unlock), in
   order, for jobs of 1, `--items` and 19 items, with the time the `rules` reader took; and a
   real in-process `Worker` running 20 owners' passes, its pass pool and its queue pool
   (pgqueuer) both logged, per pass and per item;
2. for each worker count of `--workers`: copies the prepared database (`CREATE DATABASE
   skillmem_bench_dreamer_run TEMPLATE skillmem_bench_dreamer`: every run starts from the same
   rows), records `--items` messages for every person through the real intake
   (`messages.record_message`, one transaction each, the clock stood at one moment):
   remember-requests about the person's company ("Remember: @[Company 7](record:…) wants every
   message in French.", written) alternating with plain messages (refused: `not_durable`);
   starts that many worker processes (bench/dreamer_worker.py: the real `Worker` with pgqueuer
   and the `rules` reader, as `skillmem worker --concurrency 1` runs it), sets their quick wait
   so that every owner comes due 2 s after they started, and waits until every item is read.

From `memory_passes` it reports items/s and passes/s (from the due moment to the last pass's
end) and, for every pass, the latency from its owner's due time to its start, split at the two
moments pgqueuer's tables give: the job may run (`execute_after`, set by the scheduler's tick)
and a worker picked it (`pgqueuer_log`). From psutil: CPU per item of the workers and of the
embedded PostgreSQL, and the rest of the machine's load (the noise).

Every owner comes due at the same moment (a burst), so the latency is mostly the wait behind the
other owners' passes; `--spread SECONDS` spreads the due times evenly over that long instead.

Options: `--people N` (200, at least 6), `--items N` messages per person (4; 1 to 19: at 20 an
owner is due without the quick wait), `--workers 1,2,4`, `--concurrency N` passes per worker at
once (1), `--rounds N` (1: each worker count once; more repeat them, every other round in
reverse order, and add medians), `--spread SECONDS` (0), `--wait-quiet SECONDS` (20: the longest
wait for an idle machine before each run). About two minutes with the defaults, that wait
included. It prints Markdown tables and writes the figures to bench/results/dreamer-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import metadata
from typing import Any
from uuid import UUID

import asyncpg
import psutil

from bench import dreamer_sql, records
from bench.dreamer_data import (
    DATABASE,
    RUN_DATABASE,
    Prepared,
    drop,
    due_times,
    picked_times,
    prepare,
    queued_jobs,
    record_all,
    remake,
    wait_read,
    workspace_fetch,
)
from bench.records import CHECKOUT, CpuMeter, machine, wait_quiet
from resolvers.memory.dreamer.batching import FULL_BATCH

PEOPLE = 200
# The statement counts take two people for each of three sizes of job.
MIN_PEOPLE = 6
ITEMS = 4
# Seconds between the workers' start and the moment the first owner comes due.
LEAD = 2.0


# --- worker processes -------------------------------------------------------------------------


class WorkerProcess:
    """bench/dreamer_worker.py running: one real worker."""

    def __init__(self, dsn: str, concurrency: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.dreamer_worker", dsn, str(concurrency)],
            cwd=CHECKOUT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.cpu = 0.0

    async def expect(self, word: str) -> None:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.process.stdout.readline), 60)
        if line.strip() != word:
            raise RuntimeError(f"a worker said {line!r}, not {word!r}")

    def go(self, quick_wait: float) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"go {quick_wait:.6f}\n")
        self.process.stdin.flush()

    def cpu_seconds(self) -> float:
        with contextlib.suppress(psutil.Error):
            times = psutil.Process(self.process.pid).cpu_times()
            self.cpu = float(times.user + times.system)
        return self.cpu

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextlib.asynccontextmanager
async def worker_processes(
    dsn: str, count: int, concurrency: int
) -> AsyncIterator[list[WorkerProcess]]:
    """``count`` workers, each connected and waiting for its quick wait, until the block ends."""
    started = [WorkerProcess(dsn, concurrency) for _ in range(count)]
    try:
        await asyncio.gather(*(worker.expect("ready") for worker in started))
        yield started
    finally:

        def stop_all() -> None:
            for worker in started:
                worker.stop()

        await asyncio.to_thread(stop_all)


@dataclass(slots=True)
class Cpu:
    """CPU seconds so far: the workers', PostgreSQL's, this process's, the whole machine's;
    and the wall clock."""

    workers: float
    postgres: float
    bench: float
    busy: float
    wall: float

    @classmethod
    def now(cls, meter: CpuMeter, workers: Sequence[WorkerProcess]) -> Cpu:
        own = psutil.Process().cpu_times()
        return cls(
            sum(w.cpu_seconds() for w in workers),
            meter.postgres(),
            float(own.user + own.system),
            meter.busy(),
            time.monotonic(),
        )


# --- one run ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Timeline:
    """What a run's passes did, and when: each owner's due time, its job's (when it may run,
    when a worker picked it), the passes as `memory_passes` keeps them, the verdicts."""

    due: dict[UUID | None, datetime]
    jobs: dict[UUID | None, tuple[datetime, datetime | None]]
    passes: list[asyncpg.Record]
    verdicts: dict[str, int]


async def run_once(
    server: str, prepared: Prepared, workers: int, args: argparse.Namespace, meter: CpuMeter
) -> dict[str, Any]:
    """One measured run at ``workers`` workers on a fresh copy of the prepared database."""
    dsn = await remake(server, RUN_DATABASE, DATABASE)
    people, workspace = prepared.people, prepared.workspace
    arrived = datetime.now(UTC).replace(microsecond=0)
    recording = await record_all(dsn, people, args.items, arrived, args.spread)
    async with worker_processes(dsn, workers, args.concurrency) as started:
        # Every owner has a remember-request: it is due a quick wait after it arrived.
        quick_wait = (datetime.now(UTC) + timedelta(seconds=LEAD) - arrived).total_seconds()
        due = await due_times(dsn, arrived, quick_wait)
        before = Cpu.now(meter, started)
        for worker in started:
            worker.go(quick_wait)
        await asyncio.gather(*(worker.expect("started") for worker in started))
        lead = (min(due.values()) - datetime.now(UTC)).total_seconds()
        queued = await queued_jobs(dsn, len(people), max(lead, 0.0))
        await wait_read(dsn, workspace, len(people) * args.items)
        after = Cpu.now(meter, started)
    timeline = await read_timeline(dsn, workspace, due, queued)
    return {
        "workers": workers,
        "concurrency": args.concurrency,
        "recording_seconds": round(recording, 2),
        "quick_wait_seconds": round(quick_wait, 3),
        "workers_started_before_due_seconds": round(lead, 3),
        "jobs_queued_before_due": len(queued),
        "verdicts": timeline.verdicts,
        **summarize(timeline, before, after, meter.postmaster is not None),
    }


async def read_timeline(
    dsn: str,
    workspace: UUID,
    due: dict[UUID | None, datetime],
    queued: dict[int, tuple[str, datetime]],
) -> Timeline:
    picked = await picked_times(dsn)
    jobs = {}
    for job_id, (key, execute_after) in queued.items():
        owner = key.rsplit(":", 1)[1]
        jobs[None if owner == "-" else UUID(owner)] = (execute_after, picked.get(job_id))
    passes = await workspace_fetch(
        dsn, workspace, "SELECT owner_id, items, started_at, finished_at FROM memory_passes"
    )
    return Timeline(due, jobs, passes, await dreamer_sql.verdicts_of(dsn, workspace))


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def spread_ms(values: Sequence[float]) -> dict[str, float | None]:
    """min, p50, p99 and max of ``values`` (seconds) in milliseconds."""
    if not values:
        return {"min": None, "p50": None, "p99": None, "max": None}
    return {
        "min": round(1000 * min(values), 1),
        "p50": round(1000 * quantile(values, 0.50), 1),
        "p99": round(1000 * quantile(values, 0.99), 1),
        "max": round(1000 * max(values), 1),
    }


def latencies(timeline: Timeline) -> dict[str, Any]:
    """Due → started for every pass, and its three parts where the job is known: due → the
    job may run (the tick), may run → picked (pgqueuer, and the wait for a free worker),
    picked → started (the worker's schedule check and the owner's lock)."""
    total, tick, queue, worker = [], [], [], []
    for row in timeline.passes:
        due = timeline.due[row["owner_id"]]
        total.append((row["started_at"] - due).total_seconds())
        execute_after, picked = timeline.jobs.get(row["owner_id"], (None, None))
        if execute_after is not None and picked is not None:
            tick.append((execute_after - due).total_seconds())
            queue.append((picked - execute_after).total_seconds())
            worker.append((row["started_at"] - picked).total_seconds())
    return {
        "latency_ms": spread_ms(total),
        "due_to_runnable_ms": spread_ms(tick),
        "runnable_to_picked_ms": spread_ms(queue),
        "picked_to_started_ms": spread_ms(worker),
    }


def summarize(timeline: Timeline, before: Cpu, after: Cpu, embedded: bool) -> dict[str, Any]:
    """Items/s and passes/s from the first due moment to the last pass's end, the latencies,
    and CPU per item."""
    passes = timeline.passes
    items = sum(row["items"] for row in passes)
    seconds = (
        max(row["finished_at"] for row in passes) - min(timeline.due.values())
    ).total_seconds()
    durations = [(row["finished_at"] - row["started_at"]).total_seconds() for row in passes]
    workers_cpu = after.workers - before.workers
    postgres_cpu = after.postgres - before.postgres
    other = (after.busy - before.busy) - workers_cpu - postgres_cpu - (after.bench - before.bench)
    return {
        "passes": len(passes),
        "items": items,
        "owners_with_more_than_one_pass": len(passes) - len({row["owner_id"] for row in passes}),
        "seconds": round(seconds, 3),
        "items_per_second": round(items / seconds, 1),
        "passes_per_second": round(len(passes) / seconds, 1),
        **latencies(timeline),
        "pass_ms": spread_ms(durations),
        "cpu_ms_per_item": {
            "workers": round(1000 * workers_cpu / items, 2),
            "postgres": round(1000 * postgres_cpu / items, 2) if embedded else None,
        },
        # CPU the rest of the machine used meanwhile, in cores: the noise indicator.
        "other_cores": round(max(0.0, other) / (after.wall - before.wall), 2),
    }


# --- report -----------------------------------------------------------------------------------


def markdown(report: dict[str, Any]) -> str:
    runs = sorted(report["runs"], key=lambda row: (row["workers"], row["round"]))
    lines = [
        "| workers | round | items | passes | seconds | items/s | passes/s | pass p50 ms "
        "| worker CPU ms/item | PostgreSQL CPU ms/item | other load (cores) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in runs:
        cpu = row["cpu_ms_per_item"]
        lines.append(
            f"| {row['workers']} | {row['round']} | {row['items']} | {row['passes']} "
            f"| {row['seconds']} | {row['items_per_second']} | {row['passes_per_second']} "
            f"| {row['pass_ms']['p50']} | {cpu['workers']} | {cpu['postgres']} "
            f"| {row['other_cores']} |"
        )
    lines += [
        "",
        "| workers | round | due → started p50 ms | p99 | min | due → runnable p50 "
        "| runnable → picked p50 | p99 | picked → started p50 | p99 |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in runs:
        total, tick = row["latency_ms"], row["due_to_runnable_ms"]
        queue, worker = row["runnable_to_picked_ms"], row["picked_to_started_ms"]
        lines.append(
            f"| {row['workers']} | {row['round']} | {total['p50']} | {total['p99']} "
            f"| {total['min']} | {tick['p50']} | {queue['p50']} | {queue['p99']} "
            f"| {worker['p50']} | {worker['p99']} |"
        )
    return "\n".join(lines + medians(runs) + [""] + statements_markdown(report["statements"]))


def medians(runs: Sequence[dict[str, Any]]) -> list[str]:
    """Each worker count's medians over its rounds (nothing when there was one round)."""
    counts = sorted({row["workers"] for row in runs})
    if len(runs) <= len(counts):
        return []
    lines = [
        "",
        "| workers | rounds | median items/s | passes/s | due → started p50 ms | p99 |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for workers in counts:
        mine = [row for row in runs if row["workers"] == workers]
        lines.append(
            f"| {workers} | {len(mine)} "
            f"| {statistics.median(r['items_per_second'] for r in mine):g} "
            f"| {statistics.median(r['passes_per_second'] for r in mine):g} "
            f"| {statistics.median(r['latency_ms']['p50'] for r in mine):g} "
            f"| {statistics.median(r['latency_ms']['p99'] for r in mine):g} |"
        )
    return lines


def statements_markdown(counted: dict[str, Any]) -> list[str]:
    one, busy = counted["one_job"], counted["worker_at_work"]
    pool, queue = busy["per_pass"]["pass pool"], busy["per_pass"]["queue"]
    lines = [
        f"One job of {one['items']} items (`Worker.handle`): {one['statements']} statements "
        f"({one['transaction_control']:g} of them transaction control), {one['per_item']} per "
        f"item, {sum(one['ms_by_statement'].values()):.1f} ms of SQL seen from the client. "
        f"A worker at work ({busy['owners']} passes): {pool['total']:g} on the pass pool "
        f"and {queue['total']:g} on the queue's per pass, {busy['per_item']} per item.",
        "",
        "| items in the job | statements | per item | the rules reader's read, ms |",
        "|---:|---:|---:|---:|",
        *(
            f"| {size} | {row['statements']} | {row['per_item']} | {row['rules_reader_ms']} |"
            for size, row in one["by_size"].items()
        ),
        "",
        "| statement (one job) | times |",
        "|---|---:|",
    ]
    ms = one["ms_by_statement"]
    lines[-2:] = ["| statement (one job) | times | ms (client side) |", "|---|---:|---:|"]
    lines += [f"| {name} | {n:g} | {ms[name]} |" for name, n in one["by_statement"].items()]
    lines += ["", "| a worker at work: pass pool, by module | per pass |", "|---|---:|"]
    lines += [f"| {name} | {n:g} |" for name, n in pool["by_module"].items()]
    lines += ["", "| a worker at work: queue pool, by statement | per pass |", "|---|---:|"]
    lines += [f"| {name} | {n:g} |" for name, n in queue["by_statement"].items()]
    return lines


async def count_statements(server: str, prepared: Prepared, items: int) -> dict[str, Any]:
    one = await dreamer_sql.one_job(server, prepared.workspace, prepared.people, items)
    busy = await dreamer_sql.worker_at_work(server, prepared.workspace, prepared.people, items)
    return {"one_job": one, "worker_at_work": busy}


async def measure_all(
    server: str, prepared: Prepared, args: argparse.Namespace, meter: CpuMeter
) -> list[dict[str, Any]]:
    """Every worker count, ``--rounds`` times, every other round in reverse order (so that a
    drift of the machine hits every count alike)."""
    runs = []
    for round_number in range(args.rounds):
        order = args.workers if round_number % 2 == 0 else args.workers[::-1]
        for workers in order:
            idle = await wait_quiet(meter, args.wait_quiet)
            row = await run_once(server, prepared, workers, args, meter)
            row.update(round=round_number + 1, idle_load_before=idle)
            runs.append(row)
            print(
                f"round {round_number + 1}, workers={workers}: {row['items']} items in "
                f"{row['seconds']} s, {row['items_per_second']} items/s, due → started p50 "
                f"{row['latency_ms']['p50']} ms p99 {row['latency_ms']['p99']} ms; "
                f"{row['verdicts']}; other load {row['other_cores']} cores",
                flush=True,
            )
    return runs


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    started = time.perf_counter()
    prepared = await prepare(server, args.people)
    print(f"data: {args.people} people in {time.perf_counter() - started:.1f} s", flush=True)
    conn = await asyncpg.connect(prepared.dsn)
    try:
        server_version = str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m bench.dreamer " + " ".join(sys.argv[1:]),
        "machine": machine(server_version),
        "settings": {**vars(args), "lead_seconds": LEAD, "reader": "rules"},
    }
    report["machine"]["packages"]["pgqueuer"] = metadata.version("pgqueuer")
    report["statements"] = await count_statements(server, prepared, args.items)
    print("statements:", report["statements"]["one_job"]["statements"], "in one job", flush=True)
    report["runs"] = await measure_all(server, prepared, args, CpuMeter(postmaster_pid))
    await drop(server, RUN_DATABASE)
    records.write_results("dreamer", report, markdown(report))
    return 0


def items_count(text: str) -> int:
    value = int(text)
    if not 1 <= value < FULL_BATCH:
        raise argparse.ArgumentTypeError(f"between 1 and {FULL_BATCH - 1}")
    return value


def people_count(text: str) -> int:
    value = int(text)
    if value < MIN_PEOPLE:
        raise argparse.ArgumentTypeError(f"at least {MIN_PEOPLE}")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=people_count, default=PEOPLE, help="one owner each")
    parser.add_argument("--items", type=items_count, default=ITEMS, help="messages per person")
    parser.add_argument(
        "--workers", type=records.levels, default=[1, 2, 4], help="comma-separated counts"
    )
    parser.add_argument("--concurrency", type=int, default=1, help="passes per worker at once")
    parser.add_argument("--rounds", type=int, default=1, help="times each worker count runs")
    parser.add_argument(
        "--spread", type=float, default=0.0, help="seconds over which owners come due"
    )
    parser.add_argument(
        "--wait-quiet", type=float, default=20.0, help="seconds to wait at most for an idle machine"
    )
    return records.run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
