"""The fault scenarios: PostgreSQL killed under load, SIGTERM to a gateway and to a worker in
the middle of a pass, and two workspaces on two gateways and two workers through a restart."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.soak import processes
from bench.soak.checks import (
    WRITTEN,
    changed,
    cross_visible,
    ledger_check,
    table_hashes,
    total,
)
from bench.soak.common import RECOVERY_LIMIT_SECONDS, Result, Soak, outage_figures
from bench.soak.figures import summary
from bench.soak.load import check_ledger
from bench.soak.slow_reader import PAUSE_VARIABLE
from bench.soak.tenants import Tenant
from bench.soak.traffic import Traffic, mixed, prepare
from db.pool import api_dsn, connect
from resolvers.common.principals import principal_for_token
from resolvers.memory.dreamer.messages import MessageInput, record_message

SLOW_READER = "bench.soak.slow_reader:SlowRules"
OUTAGE_HOW = """The mixed workload on one gateway; PostgreSQL killed (an immediate shutdown) a third
of the way in and started again after the outage. Verdict: only coded DB_UNAVAILABLE answers
while it is down; recovery within 5 s of PostgreSQL being back: no error later than that, and
each lane's first successful answer after pg_ctl's start returned (PostgreSQL accepting
connections) within 5 s of it (`first_success_after_back_s`: the slowest lane, the median lane);
no acknowledged write lost or stored twice."""
SETTLE_SECONDS = 60.0
REMEMBERING = ("member", "other", "admin")


# The longest the traffic runs, whatever the outage takes: a bound, never reached in a sound run.
TRAFFIC_BOUND_SECONDS = 600.0


async def outage(soak: Soak, before: float, after: float, stop: asyncio.Event) -> Outage:
    """Kill PostgreSQL ``before`` seconds from now, start it again ``soak.outage`` seconds
    later, then let the traffic run ``after`` seconds more and stop it."""
    try:
        await asyncio.sleep(before)
        down = time.monotonic()
        killed = await asyncio.to_thread(soak.server.kill)
        await asyncio.sleep(soak.outage)
        starting = time.monotonic()
        up = await asyncio.to_thread(soak.server.start)
        await asyncio.sleep(after)
    finally:
        stop.set()
    return Outage(down, up, killed - down, up - starting)


@dataclass
class Outage:
    """When PostgreSQL went down and was back; how long pg_ctl took to kill and to start it."""

    down: float
    up: float
    kill_seconds: float
    start_seconds: float

    def figures(self) -> dict[str, float]:
        return {
            "pg_ctl_kill_seconds": round(self.kill_seconds, 2),
            "pg_ctl_start_seconds": round(self.start_seconds, 2),
        }


def require_outage(result: Result, found: dict[str, Any]) -> None:
    result.require(
        found["other_errors_during_outage"] == 0,
        f"answers other than DB_UNAVAILABLE: {found['errors_by_code_around_outage']}",
    )
    result.require(
        found["errors_later_than_5s_after_back"] == 0,
        f"not recovered within 5 s ({found['recovered_seconds_after_back']} s)",
    )
    first = found["first_success_after_back_s"]
    slowest = first["slowest_lane"]
    result.require(
        first["lanes"] > 0
        and first["lanes_without_success"] == 0
        and slowest is not None
        and slowest <= RECOVERY_LIMIT_SECONDS,
        f"a lane's first success came {slowest} s after PostgreSQL was back"
        f" ({first['lanes_without_success']} of {first['lanes']} lanes had none)",
    )


async def postgres_killed(soak: Soak) -> Result:
    """(2) The mixed workload on one gateway; PostgreSQL killed a third of the way in and
    started again ``outage`` seconds later."""
    result = Result("postgres_killed", "PostgreSQL killed under load", how=OUTAGE_HOW)
    gateway = await processes.gateway("postgres_killed", soak.dsn, soak.log("postgres_killed"))
    traffic = Traffic()
    async with processes.running(gateway):
        await prepare(soak.tenants, gateway.base_url)
        stop = asyncio.Event()
        _, went = await asyncio.gather(
            mixed(
                [gateway.base_url],
                soak.tenants,
                soak.lanes,
                TRAFFIC_BOUND_SECONDS,
                traffic,
                stop=stop,
            ),
            outage(soak, soak.seconds / 3, soak.seconds * 2 / 3, stop),
        )
        alive = gateway.process.returncode is None
    found = outage_figures(traffic, went.down, went.up)
    result.figures = {"lanes": soak.lanes, "whole": summary(traffic.outcomes), **found}
    result.figures.update(went.figures())
    result.figures["gateway_survived"] = alive
    result.require(alive, "the gateway exited")
    require_outage(result, found)
    await check_ledger(soak, traffic, result)
    return result


async def remember(soak: Soak, tenant: Tenant) -> dict[str, str]:
    """One "Remember:" message per person (one owner each, so one pass each); the fact each
    souvenir must hold once."""
    facts = {}
    conn = await connect(api_dsn(soak.dsn))
    try:
        for who in REMEMBERING:
            fact = f"{tenant.marker}-{who}-{int(time.time() * 1000)}"
            text = f"Remember: @[Acme](record:{tenant.acme}) wants the code {fact}."
            async with conn.transaction():
                principal = await principal_for_token(conn, tenant.ws.tokens[who])
                assert principal is not None
                await record_message(conn, principal, MessageInput(f"c-{fact}", "user", text))
            facts[who] = fact
    finally:
        await conn.close()
    return facts


async def queue_state(dsn: str) -> tuple[int, int]:
    """Jobs picked and jobs queued."""
    conn = await connect(dsn)
    try:
        row = await conn.fetchrow(
            "SELECT count(*) FILTER (WHERE status = 'picked') AS picked,"
            " count(*) FILTER (WHERE status = 'queued') AS queued FROM pgqueuer"
        )
        assert row is not None
    finally:
        await conn.close()
    return int(row["picked"]), int(row["queued"])


async def until(check: Any, seconds: float = SETTLE_SECONDS) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await check():
            return True
        await asyncio.sleep(0.1)
    return False


async def souvenir_counts(dsn: str, tenant: Tenant, facts: dict[str, str]) -> dict[str, int]:
    conn = await connect(dsn)
    try:
        return {
            who: int(
                await conn.fetchval(
                    "SELECT count(*) FROM memory_lines WHERE workspace_id = $1"
                    " AND kind = 'souvenir' AND text LIKE '%' || $2 || '%'",
                    tenant.id,
                    fact,
                )
            )
            for who, fact in facts.items()
        }
    finally:
        await conn.close()


async def gateway_sigterm(soak: Soak, result: Result) -> None:
    """The mixed workload on a gateway sent SIGTERM half-way: the requests under way when the
    signal came all answered, the gateway exits 0."""
    gateway = await processes.gateway("sigterm_gateway", soak.dsn, soak.log("sigterm"))
    traffic = Traffic()
    async with processes.running(gateway):
        await prepare(soak.tenants, gateway.base_url)
        load = asyncio.create_task(
            mixed([gateway.base_url], soak.tenants, soak.lanes, soak.seconds / 2 + 2, traffic)
        )
        await asyncio.sleep(soak.seconds / 2)
        signaled = time.monotonic()
        gateway.signal(signal.SIGTERM)
        code = await gateway.wait()
        await load
    in_flight = [o for o in traffic.outcomes if o.began < signaled < o.began + o.seconds]
    after = summary([o for o in traffic.outcomes if o.began >= signaled])
    failed = summary([o for o in in_flight if o.code != "ok"])
    result.figures["gateway"] = {
        "lanes": soak.lanes,
        "in_flight_at_signal": len(in_flight),
        "in_flight_failed": failed["requests"],
        "in_flight_failures": failed["by_code"],
        "exit_code": code,
        "sent_after_signal": after["requests"],
        "after_signal_by_code": after["by_code"],
        "before_signal": summary([o for o in traffic.outcomes if o.began < signaled]),
    }
    # uvicorn, once its graceful shutdown is done, raises the signal it caught again.
    result.require(code in (0, -signal.SIGTERM), f"the gateway exited {code}")
    result.require(failed["requests"] == 0, f"in-flight failures: {failed['by_code']}")
    await check_ledger(soak, traffic, result)


async def worker_sigterm(soak: Soak, result: Result) -> None:
    """Three owners' passes queued; a worker whose reader takes 2 s is sent SIGTERM while a pass
    is under way; it finishes the batch under way and exits; a second worker runs the rest; each
    souvenir is written once. Under the mixed workload on a gateway meanwhile."""
    tenant = soak.tenants[0]
    gateway = await processes.gateway("sigterm_load", soak.dsn, soak.log("sigterm_load"))
    traffic = Traffic()
    async with processes.running(gateway):
        await prepare(soak.tenants, gateway.base_url)
        # The load beside runs in the other workspace: its messages would otherwise queue
        # items for the very owners whose passes are measured (a pass under way then reads
        # them all, 2 s a batch, and the worker cannot finish it within the wait).
        beside = [t for t in soak.tenants if t is not tenant]
        load = asyncio.create_task(
            mixed([gateway.base_url], beside, soak.lanes, soak.seconds, traffic)
        )
        facts = await remember(soak, tenant)
        slow = {"SKILLMEM_DREAMER_READER": SLOW_READER, PAUSE_VARIABLE: "2"}
        first = await processes.worker("worker1", soak.dsn, soak.log("worker1"), **slow)
        async with processes.running(first):
            picked = await until(lambda: _picked(soak.dsn))
            first.signal(signal.SIGTERM)
            signaled = time.monotonic()
            code = await first.wait()
            stopped = time.monotonic() - signaled
        written_by_first = await souvenir_counts(soak.dsn, tenant, facts)
        second = await processes.worker("worker2", soak.dsn, soak.log("worker2"))
        async with processes.running(second):
            settled = await until(lambda: _all_written(soak.dsn, tenant, facts))
            await asyncio.sleep(1)  # a pass run twice would write twice
        counts = await souvenir_counts(soak.dsn, tenant, facts)
        await load
    soak.record(traffic)
    result.figures["worker"] = {
        "passes_queued": len(facts),
        "pass_under_way_at_signal": picked,
        "exit_code": code,
        "seconds_to_exit": round(stopped, 2),
        "souvenirs_after_first_worker": written_by_first,
        "souvenirs_at_the_end": counts,
        "load_beside": summary(traffic.outcomes),
    }
    # The batch under way finishes and the worker exits; a pass with more batches waiting ends
    # there (PassSettings.stopping) and the second worker reads the rest.
    result.require(picked and code == 0, f"worker exit {code}, pass under way {picked}")
    result.require(settled, "the other passes were not run by the second worker")
    doubled = sum(n - 1 for n in counts.values() if n > 1)
    lost = sum(1 for n in counts.values() if n == 0)
    result.lost += lost
    result.doubled += doubled
    result.require(lost == 0 and doubled == 0, f"souvenirs by person: {counts}")
    errors = summary(traffic.outcomes)
    result.require(errors["errors"] == 0, f"load beside the worker: {errors['by_code']}")


async def _picked(dsn: str) -> bool:
    picked, _ = await queue_state(dsn)
    return picked > 0


async def _all_written(dsn: str, tenant: Tenant, facts: dict[str, str]) -> bool:
    counts = await souvenir_counts(dsn, tenant, facts)
    picked, queued = await queue_state(dsn)
    return all(counts.values()) and picked == queued == 0


async def sigterm(soak: Soak) -> Result:
    """(4) SIGTERM under load, to a gateway and to a worker in the middle of a pass."""
    result = Result("sigterm", "SIGTERM under load: a gateway, and a worker in a pass")
    await gateway_sigterm(soak, result)
    await worker_sigterm(soak, result)
    return result


async def two_of_everything(soak: Soak) -> Result:
    """(6) Two workspaces, two gateways and two workers, the mixed workload for the run's time
    with PostgreSQL restarted half-way: nothing of one workspace seen by the other, nothing
    lost or doubled, the tables no write touched hashed the same before and after."""
    result = Result("two_of_everything", "Two workspaces, two gateways, two workers, a restart")
    tenants = soak.tenants[:2]
    before = {t.ws.name: await table_hashes(soak.dsn, t.id) for t in tenants}
    gateways = [
        await processes.gateway(f"gateway{i}", soak.dsn, soak.log(f"six_gateway{i}"))
        for i in (1, 2)
    ]
    workers = [
        await processes.worker(f"worker{i}", soak.dsn, soak.log(f"six_worker{i}")) for i in (1, 2)
    ]
    traffic = Traffic()
    async with processes.running(*gateways, *workers):
        await prepare(tenants, gateways[0].base_url)
        urls = [g.base_url for g in gateways]
        stop = asyncio.Event()
        _, went = await asyncio.gather(
            mixed(urls, tenants, soak.lanes, TRAFFIC_BOUND_SECONDS, traffic, stop=stop),
            outage(soak, soak.seconds / 2, soak.seconds / 2, stop),
        )
        await until(lambda: _queue_empty(soak.dsn), 30)
        alive = [p.name for p in (*gateways, *workers) if p.process.returncode is None]
    after = {t.ws.name: await table_hashes(soak.dsn, t.id) for t in tenants}
    found = outage_figures(traffic, went.down, went.up)
    result.figures = {"lanes": soak.lanes, "whole": summary(traffic.outcomes), **found}
    result.figures.update(went.figures())
    result.figures["alive_at_the_end"] = alive
    require_outage(result, found)
    result.require(len(alive) == 4, f"only {alive} still running")
    await isolation(soak, tenants, traffic, result)
    unexpected = {
        name: [t for t in changed(before[name], after[name]) if t not in WRITTEN] for name in before
    }
    result.figures["tables_changed"] = {n: changed(before[n], after[n]) for n in before}
    result.figures["unexpected_tables_changed"] = unexpected
    result.require(not any(unexpected.values()), f"tables changed: {unexpected}")
    soak.record(traffic)
    writes = await ledger_check(soak.dsn, tenants, soak.ledger)
    result.figures["writes"] = writes
    result.lost, result.doubled = total(writes, "lost"), total(writes, "doubled")
    result.require(result.lost == 0 and result.doubled == 0, f"writes: {writes}")
    # What is stored is what was acknowledged (the same hash), or more only by writes whose
    # answer the client never had (an outage's, each counted as unsure).
    differ = [n for n, w in writes.items() if w["expected_hash"] != w["stored_hash"]]
    beyond = total(writes, "stored_beyond_acknowledged")
    unsure = sum(soak.ledger.unsure.values())
    result.figures["writes_unsure_in_the_run"] = dict(soak.ledger.unsure)
    result.require(
        not differ or beyond <= unsure,
        f"stored rows differ from the acknowledged writes in {differ}",
    )
    return result


async def isolation(
    soak: Soak, tenants: Sequence[Tenant], traffic: Traffic, result: Result
) -> None:
    seen = {
        t.ws.name: await cross_visible(soak.dsn, t.id, [o.id for o in tenants if o is not t])
        for t in tenants
    }
    result.figures["other_workspace_rows_visible"] = seen
    result.figures["answers_carrying_the_other_workspace"] = traffic.ledger.leaks
    crossed = sum(s["other_rows"] for s in seen.values())
    result.require(crossed == 0, f"{crossed} rows of one workspace visible to the other")
    result.require(all(s["own_rows_seen"] > 0 for s in seen.values()), "the check saw nothing")
    result.require(traffic.ledger.leaks == 0, f"{traffic.ledger.leaks} answers leaked")


async def _queue_empty(dsn: str) -> bool:
    picked, queued = await queue_state(dsn)
    return picked == queued == 0
