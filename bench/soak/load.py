"""The load scenarios: steady mixed load, pool exhaustion, abuse under load."""

from __future__ import annotations

import asyncio
import time

from bench.soak import processes, side
from bench.soak.checks import ledger_check, total
from bench.soak.common import Result, Soak, probe_health
from bench.soak.figures import ratio, summary
from bench.soak.side import side_setup
from bench.soak.traffic import Ledger, Traffic, mixed, prepare

SLICES = 4
HEALTHZ_LIMIT_MS = 100.0
REFUSAL_LIMIT_MS = 100.0
ABUSE_P99_GROWTH = 1.2
HEAVY = ("turn", "records", "search")
HEAVY_LANES = 8  # twice the pool
SLOW_READ_TIMEOUT = 5.0
# A slow body is refused at the read timeout (plus its declared size at the slowest upload rate
# allowed, a few ms here): this much later at most.
SLOW_BODY_GRACE = 0.5


async def check_ledger(soak: Soak, traffic: Traffic, result: Result) -> None:
    """Every acknowledged write of the run so far (this scenario's added) found once."""
    soak.record(traffic)
    found = await ledger_check(soak.dsn, soak.tenants, soak.ledger)
    result.figures["writes"] = found
    result.lost, result.doubled = total(found, "lost"), total(found, "doubled")
    result.require(result.lost == 0, f"{result.lost} acknowledged writes lost")
    result.require(result.doubled == 0, f"{result.doubled} writes stored twice")


async def steady(soak: Soak) -> Result:
    """(1) The mixed workload for the run's time on one gateway: no error, and the p99 of
    each quarter against the first quarter's (the same run's baseline)."""
    result = Result("steady", "Steady load on the mixed workload")
    gateway = await processes.gateway("steady", soak.dsn, soak.log("steady"))
    async with processes.running(gateway):
        await prepare(soak.tenants, gateway.base_url)
        start = time.monotonic()
        traffic = await mixed([gateway.base_url], soak.tenants, soak.lanes, soak.seconds)
    span = soak.seconds / SLICES
    quarters = [
        summary(traffic.window(start + i * span, start + (i + 1) * span)) for i in range(SLICES)
    ]
    whole = summary(traffic.outcomes, soak.seconds)
    result.figures = {
        "lanes": soak.lanes,
        "seconds": soak.seconds,
        "whole": whole,
        "p99_by_quarter_ms": [q["p99_ms"] for q in quarters],
        "last_quarter_p99_over_first": ratio(quarters[-1]["p99_ms"], quarters[0]["p99_ms"]),
    }
    result.require(whole["errors"] == 0, f"{whole['errors']} errors: {whole['by_code']}")
    await check_ledger(soak, traffic, result)
    return result


async def exhaustion(soak: Soak) -> Result:
    """(3) A gateway with a pool of 4: one workspace's heavy clients (two lanes per pooled
    connection, of turns, records and searches) and slow bodies; /healthz and the other
    workspace's normal traffic measured before and during, and the gateway's CPU."""
    result = Result("exhaustion", "Pool exhaustion by slow and heavy clients")
    heavy, normal = soak.tenants[0], soak.tenants[1]
    gateway = await processes.gateway(
        "exhaustion",
        soak.dsn,
        soak.log("exhaustion"),
        SKILLMEM_POOL_MAX_SIZE="4",
        SKILLMEM_POOL_MIN_SIZE="1",
        SKILLMEM_BODY_READ_TIMEOUT=str(SLOW_READ_TIMEOUT),
    )
    async with processes.running(gateway):
        await prepare(soak.tenants, gateway.base_url)
        base, loaded = Traffic(), Traffic()
        half = soak.seconds / 2
        cpu = [gateway.cpu_seconds(), time.monotonic()]
        await asyncio.gather(
            mixed([gateway.base_url], [normal], 2, half, base),
            probe_health(gateway.base_url, time.monotonic() + half, base),
        )
        cpu += [gateway.cpu_seconds(), time.monotonic()]
        deadline = time.monotonic() + soak.seconds
        setup = side_setup(heavy, gateway, soak.seconds, lanes=HEAVY_LANES, slow_bodies=8)
        _, _, pressed = await asyncio.gather(
            mixed([gateway.base_url], [normal], 2, soak.seconds, loaded),
            probe_health(gateway.base_url, deadline, loaded),
            side.run_side("heavy", setup),
        )
        cpu += [gateway.cpu_seconds(), time.monotonic()]
    loaded.outcomes += pressed.outcomes
    loaded.ledger = _merged(loaded, pressed)
    named = normal.ws.name
    health_base = summary([o for o in base.outcomes if o.kind == "healthz"])
    health = summary([o for o in loaded.outcomes if o.kind == "healthz"])
    served_base = summary([o for o in base.outcomes if o.workspace == named])
    served = summary([o for o in loaded.outcomes if o.workspace == named])
    heavy_side = summary([o for o in loaded.outcomes if o.workspace == heavy.ws.name])
    slow = summary([o for o in loaded.outcomes if o.kind == "abuse:slow_body"])
    result.figures = {
        "pool_max_size": 4,
        "heavy_lanes": HEAVY_LANES,
        "gateway_cores_busy": {
            "before": round((cpu[2] - cpu[0]) / (cpu[3] - cpu[1]), 2),
            "during": round((cpu[4] - cpu[2]) / (cpu[5] - cpu[3]), 2),
        },
        "body_read_timeout_s": SLOW_READ_TIMEOUT,
        "slow_bodies_at_once": 8,
        "healthz_p99_ms": {"before": health_base["p99_ms"], "during": health["p99_ms"]},
        "healthz_errors": health["errors"],
        "other_workspace": {
            "before": served_base,
            "during": served,
            "p99_during_over_before": ratio(served["p99_ms"], served_base["p99_ms"]),
        },
        "heavy_workspace": heavy_side,
        "slow_bodies": slow,
    }
    result.require(health["p99_ms"] <= HEALTHZ_LIMIT_MS, f"/healthz p99 {health['p99_ms']} ms")
    result.require(health["errors"] == 0, f"/healthz failed {health['errors']} times")
    result.require(served["errors"] == 0, f"the other workspace: {served['by_code']}")
    await check_ledger(soak, Traffic(ledger=_merged(base, loaded)), result)
    return result


def _merged(*runs: Traffic) -> Ledger:
    """One ledger of several runs' writes."""
    merged = Ledger()
    for run in runs:
        merged.merge(run.ledger)
    return merged


async def abused(soak: Soak) -> Result:
    """(5) Normal traffic alone, then with abusive clients, in alternating slices: each bad
    request refused in under 100 ms (a slow body at the body's read timeout) while the normal
    traffic's p99 grows by at most 20 %."""
    result = Result("abuse", "Abuse under load")
    tenant = soak.tenants[0]
    read_timeout = 2.0
    gateway = await processes.gateway(
        "abuse", soak.dsn, soak.log("abuse"), SKILLMEM_BODY_READ_TIMEOUT=str(read_timeout)
    )
    quiet, noisy = Traffic(), Traffic()
    span = soak.seconds / 4
    async with processes.running(gateway):
        await prepare(soak.tenants, gateway.base_url)
        for _ in range(2):
            await mixed([gateway.base_url], [tenant], soak.lanes, span, quiet)
            setup = side_setup(tenant, gateway, span)
            _, bad = await asyncio.gather(
                mixed([gateway.base_url], [tenant], soak.lanes, span, noisy),
                side.run_side("abuse", setup),
            )
            noisy.outcomes += bad.outcomes
    normal_quiet = summary(quiet.outcomes)
    normal_noisy = summary([o for o in noisy.outcomes if not o.kind.startswith("abuse:")])
    refusals = {
        kind: summary([o for o in noisy.outcomes if o.kind == kind])
        for kind in sorted({o.kind for o in noisy.outcomes if o.kind.startswith("abuse:")})
    }
    growth = ratio(normal_noisy["p99_ms"], normal_quiet["p99_ms"])
    result.figures = {
        "lanes": soak.lanes,
        "body_read_timeout_s": read_timeout,
        "normal_alone": normal_quiet,
        "normal_beside_abuse": normal_noisy,
        "p99_growth": growth,
        "refusals": refusals,
    }
    for kind, found in refusals.items():
        fast = kind == "abuse:slow_body" or found["max_ms"] < REFUSAL_LIMIT_MS
        limit = (read_timeout + SLOW_BODY_GRACE) * 1000
        timely = kind != "abuse:slow_body" or found["max_ms"] < limit
        result.require(fast and timely, f"{kind} refused in up to {found['max_ms']} ms")
        result.require("ok" not in found["by_code"] and found["requests"] > 0, f"{kind}: {found}")
    result.require(normal_noisy["errors"] == 0, f"normal traffic: {normal_noisy['by_code']}")
    result.require(growth <= ABUSE_P99_GROWTH, f"normal p99 grew {growth}x")
    await check_ledger(soak, Traffic(ledger=_merged(quiet, noisy)), result)
    return result
