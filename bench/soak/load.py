"""The load scenarios: steady mixed load, pool exhaustion, abuse under load."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from bench.soak import processes, side
from bench.soak.abuse import BODIES
from bench.soak.checks import ledger_check, total
from bench.soak.common import Result, Soak, probe_health
from bench.soak.figures import ratio, summary
from bench.soak.side import side_setup
from bench.soak.traffic import Ledger, Outcome, Traffic, mixed, prepare

SLICES = 4
HEALTHZ_LIMIT_MS = 100.0
REFUSAL_LIMIT_MS = 100.0  # at the 99th percentile of each kind
ABUSE_P99_GROWTH = 1.2
HEAVY = ("turn", "records", "search")
HEAVY_LANES = 8  # twice the pool
SLOW_READ_TIMEOUT = 5.0
# A slow body is refused at the read timeout (plus its declared size at the slowest upload rate
# allowed, a few ms here): this much later at most.
SLOW_BODY_GRACE = 0.5
# Normal traffic before the first measured slice, unmeasured: the pool has grown and the
# documents are cached before the baseline is taken.
WARM_UP_SECONDS = 2.0
ABUSE_HOW = """Normal traffic (the mixed workload's lanes on one workspace), after an unmeasured
warm-up, in four slices of a quarter of the run each: alone, beside the abusive clients, alone,
beside them. The abusive clients run in a process of their own, started and ready before their
slice begins (its start-up is not counted against the slice). They send each kind of bad request
(a document too deep, one with too many aliases, a body too large, malformed JSON, a NUL, a
WebSocket connection with a false token) at a fixed rate (`attack_rate_per_kind_per_s`), in an
open loop of at most 4 under way per kind, and one slow body at a time. On one machine they
share its cores with the gateway, PostgreSQL and the normal clients; their own CPU is a figure
(`attacker_cores_busy`), and so is the gateway's in each kind of slice.

Verdict: every kind refused, never served, in under 100 ms at the 99th percentile (the usual
reading of a latency bound: with a few hundred refusals a kind on shared cores, the maximum is
one scheduling stall rather than the cost of a refusal; it is printed beside); a slow body at the
body's read timeout (plus 0.5 s) at the latest; the normal traffic's p99 beside the abuse at most
1.2 times its p99 alone, and none of its requests failing."""
ABUSE_KINDS = (*(f"abuse:{kind}" for kind in BODIES), "abuse:websocket", "abuse:slow_body")


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


@dataclass
class Slices:
    """Normal traffic alone and beside the abuse, the abuse's answers, and CPU seconds."""

    quiet: Traffic = field(default_factory=Traffic)
    noisy: Traffic = field(default_factory=Traffic)
    bad: list[Outcome] = field(default_factory=list)
    warm: Traffic = field(default_factory=Traffic)
    gateway_cpu: dict[str, float] = field(default_factory=lambda: {"quiet": 0.0, "noisy": 0.0})
    attacker_cpu: float = 0.0
    seconds: dict[str, float] = field(default_factory=lambda: {"quiet": 0.0, "noisy": 0.0})

    def timed(self, name: str, gateway: processes.Process, began: tuple[float, float]) -> None:
        self.gateway_cpu[name] += gateway.cpu_seconds() - began[0]
        self.seconds[name] += time.monotonic() - began[1]


async def abuse_slices(soak: Soak, gateway: processes.Process, rate: float) -> Slices:
    """A warm-up, then twice: normal traffic alone, then beside the abusive clients (their
    process started and ready before the slice begins)."""
    tenant, url, span = soak.tenants[0], gateway.base_url, soak.seconds / 4
    found = Slices()
    await prepare(soak.tenants, url)
    await mixed([url], [tenant], soak.lanes, WARM_UP_SECONDS, found.warm)
    for _ in range(2):
        began = (gateway.cpu_seconds(), time.monotonic())
        await mixed([url], [tenant], soak.lanes, span, found.quiet)
        found.timed("quiet", gateway, began)
        attacker = await side.start_side("abuse", side_setup(tenant, gateway, span, rate=rate))
        began = (gateway.cpu_seconds(), time.monotonic())
        attacker.go()
        _, bad = await asyncio.gather(
            mixed([url], [tenant], soak.lanes, span, found.noisy), attacker.done()
        )
        found.timed("noisy", gateway, began)
        found.bad += bad.outcomes
        found.attacker_cpu += bad.cpu_seconds
    return found


def cores(cpu: dict[str, float], seconds: dict[str, float]) -> dict[str, float]:
    return {name: round(cpu[name] / seconds[name], 2) if seconds[name] else 0.0 for name in cpu}


async def abused(soak: Soak) -> Result:
    """(5) Normal traffic alone, then beside abusive clients sending each kind of bad request
    at a fixed rate, in alternating slices: each kind refused in under 100 ms at the 99th
    percentile (a slow body at the body's read timeout) while the normal traffic's p99 grows by
    at most 20 %."""
    result = Result("abuse", "Abuse under load", how=ABUSE_HOW)
    read_timeout, rate = 2.0, soak.abuse_rate
    gateway = await processes.gateway(
        "abuse", soak.dsn, soak.log("abuse"), SKILLMEM_BODY_READ_TIMEOUT=str(read_timeout)
    )
    async with processes.running(gateway):
        found = await abuse_slices(soak, gateway, rate)
    normal_quiet = summary(found.quiet.outcomes, found.seconds["quiet"])
    normal_noisy = summary(found.noisy.outcomes, found.seconds["noisy"])
    refusals = {
        kind: summary([o for o in found.bad if o.kind == kind], found.seconds["noisy"])
        for kind in sorted({o.kind for o in found.bad})
    }
    growth = ratio(normal_noisy["p99_ms"], normal_quiet["p99_ms"])
    result.figures = {
        "lanes": soak.lanes,
        "body_read_timeout_s": read_timeout,
        "attack_rate_per_kind_per_s": rate,
        "warm_up_s": WARM_UP_SECONDS,
        "normal_alone": normal_quiet,
        "normal_beside_abuse": normal_noisy,
        "p99_growth": growth,
        "gateway_cores_busy": cores(found.gateway_cpu, found.seconds),
        "attacker_cores_busy": round(found.attacker_cpu / found.seconds["noisy"], 2),
        "refusals": refusals,
    }
    judge_refusals(result, refusals, read_timeout)
    result.require(normal_noisy["errors"] == 0, f"normal traffic: {normal_noisy['by_code']}")
    result.require(growth <= ABUSE_P99_GROWTH, f"normal p99 grew {growth}x")
    written = Traffic(ledger=_merged(found.warm, found.quiet, found.noisy))
    await check_ledger(soak, written, result)
    return result


def judge_refusals(result: Result, refusals: dict[str, Any], read_timeout: float) -> None:
    """Every kind refused, never served; in under 100 ms at the 99th percentile (its maximum is
    a figure: on two shared cores one scheduling stall in a few hundred requests is not the
    gateway's refusal cost), a slow body at the read timeout at the latest."""
    for kind in ABUSE_KINDS:
        result.require(kind in refusals, f"{kind}: none sent")
    for kind, found in refusals.items():
        if kind == "abuse:slow_body":
            limit = (read_timeout + SLOW_BODY_GRACE) * 1000
            result.require(found["max_ms"] < limit, f"{kind} refused in up to {found['max_ms']} ms")
        else:
            result.require(
                found["p99_ms"] < REFUSAL_LIMIT_MS,
                f"{kind} refused in {found['p99_ms']} ms at the 99th percentile",
            )
        result.require("ok" not in found["by_code"] and found["requests"] > 0, f"{kind}: {found}")
