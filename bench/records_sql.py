"""The records page's PostgreSQL side, before and after migration 0041, on one backend.

`python -m bench.records_sql [--calls 1500] [--rounds 6] [--first 20]` (`make bench-records-sql`)
finds (or makes) the bench database (bench/generate.py) and, on one connection as the bench
caller, measures in alternating rounds the backend's user and system CPU (/proc/<pid>/stat, this
machine's embedded server) per call of:

- `page`: the unfiltered page statement (the app's `records_page_plain` query, prepared,
  `first + 1` contacts with their relations), in one transaction per round: after, as
  migration 0041 defines it; before, the functions of migration 0035 (their text, read from
  that migration, created as `pg_temp` copies on this connection only; `readable_relations`
  is still in the schema);
- `prelude`: `BEGIN READ ONLY; <prelude>` then `COMMIT`, the cached principal's round trip:
  after, one `app_begin_cached` call; before, the three settings and `app_principal_fresh`
  (db/principal_cache.py before migration 0041);
- `request`: both, as a cached principal's records page sends them (prelude, page, COMMIT).

Before and after answer the same rows (checked first). No other session's work is counted.

Instruction counts, repeatable on a busy machine: with `--callgrind DIR`, against a server run
under `valgrind --tool=callgrind --trace-children=yes --instr-atstart=no
--callgrind-out-file=DIR/cg.%p` (DATABASE_URL names it), each part and way is counted instead
of timed: the backend's instrumentation is switched on for the calls only (`callgrind_control`,
`--control` to run it as the server's user), dumped, and its total Ir divided by the calls.
A backend waiting for its client hears callgrind_control only once it runs again, so a few
`SELECT 1` wake it meanwhile (counted, a few thousand instructions against millions).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg

from bench.backend import cpu_seconds
from bench.generate import ensure, server_dsn
from db import identity
from db.migrate import MIGRATIONS_DIR
from db.pool import connect
from db.principal_cache import prelude
from db.sql import queries
from resolvers.common.principals import token_hash

OLD_MIGRATION = MIGRATIONS_DIR / "0035_plans_kept_turn_read.sql"
OLD_FUNCTIONS = ("records_page_rows", "records_page_plain")
PAGE = queries("records")["records_page_plain"]
OLD_PAGE = "SELECT * FROM pg_temp.records_page_plain_0035($1, $2, $3, $4, $5, $6)"
WAYS = ("before", "after")


def pg_temp_copies(migration: Path, names: tuple[str, ...], suffix: str) -> list[str]:
    """The functions ``names`` as ``migration`` defines them, as pg_temp copies named
    ``<name>_<suffix>`` that call each other's copies."""
    text = migration.read_text()
    made = []
    for name in names:
        found = re.search(rf"CREATE (?:OR REPLACE )?FUNCTION {name}\(.*?\n\$\$;\n", text, re.S)
        assert found is not None, f"{name} is not in {migration.name}"
        statement = found.group(0).replace("CREATE OR REPLACE FUNCTION", "CREATE FUNCTION")
        for old in names:
            statement = re.sub(rf"\b(?<!\.){old}\(", f"pg_temp.{old}_{suffix}(", statement)
        made.append(statement)
    return made


def old_functions() -> list[str]:
    """Migration 0035's records page functions, as pg_temp copies named ``<name>_0035``."""
    return pg_temp_copies(OLD_MIGRATION, OLD_FUNCTIONS, "0035")


def old_prelude(workspace_id: UUID, token_id: UUID, generation: int) -> str:
    """The cached principal's statements after BEGIN before migration 0041."""
    return (
        "SELECT set_config('role', 'skillmem_app', true),"
        " set_config('app.token_hash', '', true),"
        f" set_config('app.workspace_id', '{workspace_id}', true);"
        f" SELECT app_principal_fresh('{token_id}', {int(generation)});"
    )


@dataclass
class Caller:
    """What a request of the bench caller sends: its prelude and its page's arguments."""

    preludes: dict[str, str]
    args: tuple[Any, ...]
    token: str


@dataclass
class Totals:
    calls: dict[str, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, calls: int, cpu: float) -> None:
        self.calls[name] = self.calls.get(name, 0) + calls
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu

    def ms(self, name: str) -> float:
        return 1000 * self.cpu[name] / self.calls[name]


async def caller(conn: asyncpg.Connection, token: str, first: int) -> Caller:
    """The bench caller's principal (as app_begin_request reads it) and page arguments."""
    async with conn.transaction():
        found = await identity.begin_request_generation(conn, token_hash(token))
    assert found is not None
    row, generation = found
    assert generation is not None
    preludes = {
        "before": old_prelude(row.workspace_id, row.token_id, generation),
        "after": prelude(row.workspace_id, row.token_id, generation),
    }
    args = ("contacts", list(row.readable), row.member_id, None, first + 1, None)
    return Caller(preludes, args, token)


async def begin(conn: asyncpg.Connection, who: Caller) -> None:
    """A transaction as the caller, by its token (the settings every way shares)."""
    await conn.execute("BEGIN READ ONLY")
    await conn.fetchrow("SELECT * FROM app_begin_request($1)", token_hash(who.token))


async def pages(conn: asyncpg.Connection, way: str, who: Caller, calls: int) -> None:
    statement = await conn.prepare(OLD_PAGE if way == "before" else PAGE)
    await begin(conn, who)
    for _ in range(calls):
        await statement.fetch(*who.args)
    await conn.execute("COMMIT")


async def preludes(conn: asyncpg.Connection, way: str, who: Caller, calls: int) -> None:
    text = f"BEGIN READ ONLY; {who.preludes[way]}"
    for _ in range(calls):
        await conn.execute(text)
        await conn.execute("COMMIT")


async def requests(conn: asyncpg.Connection, way: str, who: Caller, calls: int) -> None:
    statement = await conn.prepare(OLD_PAGE if way == "before" else PAGE)
    text = f"BEGIN READ ONLY; {who.preludes[way]}"
    for _ in range(calls):
        await conn.execute(text)
        await statement.fetch(*who.args)
        await conn.execute("COMMIT")


PARTS = {"page": pages, "prelude": preludes, "request": requests}


async def same_rows(conn: asyncpg.Connection, who: Caller) -> int:
    """Both ways' pages, which must be the same records with the same relations."""
    await begin(conn, who)
    try:
        before = await conn.fetch(OLD_PAGE, *who.args)
        after = await conn.fetch(PAGE, *who.args)
    finally:
        await conn.execute("COMMIT")
    assert [dict(r) for r in before] == [dict(r) for r in after], "the pages differ"
    return len(after)


@dataclass
class Counter:
    """What a round is measured by: the backend's CPU seconds, or its instructions under
    callgrind (``out``: the folder of its dumps; ``control``: the callgrind_control command)."""

    conn: asyncpg.Connection
    pid: int
    out: Path | None
    control: list[str]

    async def start(self) -> float:
        if self.out is None:
            return self.cpu()
        await self.send("-z")
        await self.send("-i", "on")
        return 0.0

    async def stop(self, started: float) -> float:
        if self.out is None:
            return self.cpu() - started
        await self.send("-i", "off")
        before = set(self.out.glob(f"*.{self.pid}.*"))
        await self.send("-d")
        [dump] = set(self.out.glob(f"*.{self.pid}.*")) - before
        found = re.search(r"^totals: (\d+)", dump.read_text(), re.MULTILINE)
        assert found is not None, f"no total in {dump}"
        return int(found.group(1)) / 1e6  # Totals.ms gives thousands of instructions a call

    def cpu(self) -> float:
        seconds = cpu_seconds(self.pid)
        assert seconds is not None, "not a server of this machine"
        return seconds

    async def send(self, *command: str) -> None:
        # The backend reads callgrind's commands only while it runs: wake it until answered.
        sent = await asyncio.create_subprocess_exec(
            *self.control,
            *command,
            str(self.pid),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        while sent.returncode is None:
            await self.conn.fetchval("SELECT 1")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(sent.wait(), 0.01)
        assert sent.returncode == 0, f"callgrind_control {command} failed"


async def measure(
    dsn: str, who: Caller, calls: int, rounds: int, out: Path | None, control: list[str]
) -> Totals:
    conn = await connect(dsn)
    try:
        for statement in old_functions():
            await conn.execute(statement)
        rows = await same_rows(conn, who)
        print(f"same {rows} rows before and after; {calls} calls a round, {rounds} rounds")
        counter = Counter(conn, int(await conn.fetchval("SELECT pg_backend_pid()")), out, control)
        totals = Totals()
        for part, run in PARTS.items():
            for way in WAYS:
                await run(conn, way, who, max(calls // 10, 5))  # warm-up: plans, caches
            for index in range(rounds):
                for way in WAYS if index % 2 == 0 else WAYS[::-1]:
                    started = await counter.start()
                    await run(conn, way, who, calls)
                    totals.add(f"{part} {way}", calls, await counter.stop(started))
        return totals
    finally:
        await conn.close()


async def main_async(args: argparse.Namespace) -> None:
    server, _handle = server_dsn()
    data = await ensure(server)
    conn = await connect(data.dsn)
    try:
        who = await caller(conn, data.token, args.first)
    finally:
        await conn.close()
    started = time.perf_counter()
    out = Path(args.callgrind) if args.callgrind else None
    totals = await measure(data.dsn, who, args.calls, args.rounds, out, shlex.split(args.control))
    unit = "thousands of instructions (callgrind)" if out else "PostgreSQL CPU ms"
    print(f"{unit} per call, one backend ({time.perf_counter() - started:.0f} s):")
    print("| part | before | after | after/before |\n|---|---:|---:|---:|")
    for part in PARTS:
        before, after = totals.ms(f"{part} before"), totals.ms(f"{part} after")
        print(f"| {part} | {before:.3f} | {after:.3f} | {after / before:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1500, help="calls of each way a round")
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds")
    parser.add_argument("--first", type=int, default=20, help="records a page (fetches + 1)")
    parser.add_argument(
        "--callgrind", metavar="DIR", help="count instructions: the server's callgrind folder"
    )
    parser.add_argument(
        "--control", default="callgrind_control", help="the callgrind_control command to run"
    )
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
