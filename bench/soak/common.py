"""What every scenario shares: the run's server, database, workspaces and settings, its
result, the windows of a PostgreSQL outage, and a /healthz prober."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.soak.abuse import RATE_PER_KIND
from bench.soak.postgres import Postgres
from bench.soak.tenants import Tenant
from bench.soak.traffic import Ledger, Outcome, Traffic, classify

# What a client may be answered while PostgreSQL is away: our code, or the Anthropic SDK's error
# type for it (api_error, 503) on the SDK's routes.
OUTAGE_ANSWERS = ("DB_UNAVAILABLE", "sdk:api_error")
RECOVERY_LIMIT_SECONDS = 5.0


@dataclass
class Soak:
    """One `make soak` run."""

    server: Postgres
    dsn: str
    tenants: list[Tenant]
    logs: Path
    seconds: float
    lanes: int
    outage: float
    # Every write of the run so far: the database holds them all, whichever scenario made them.
    ledger: Ledger = field(default_factory=Ledger)
    # Bad requests a second of each kind in the abuse scenario (bench/soak/abuse.py).
    abuse_rate: float = RATE_PER_KIND

    def record(self, traffic: Traffic) -> None:
        self.ledger.merge(traffic.ledger)

    def log(self, name: str) -> str:
        return str(self.logs / f"{name}.log")


@dataclass
class Result:
    """A scenario's verdict, figures and what it lost."""

    name: str
    title: str
    passed: bool = True
    figures: dict[str, Any] = field(default_factory=dict)
    lost: int = 0
    doubled: int = 0
    failures: list[str] = field(default_factory=list)
    # What the scenario measures and how it judges, for the report's reader.
    how: str = ""

    def require(self, ok: bool, failure: str) -> None:
        if not ok:
            self.passed = False
            self.failures.append(failure)


def outage_figures(traffic: Traffic, down: float, up: float) -> dict[str, Any]:
    """The answers while PostgreSQL was away, those it should not have given, and how long
    after it was back the last failing request ended."""
    during = [o for o in traffic.window(down, up) if o.code != "ok"]
    uncoded = [o for o in during if not _outage_answer(o)]
    after = [o for o in traffic.window(up) if o.code != "ok"]
    recovered = max((o.began + o.seconds for o in after), default=up)
    late = [o for o in traffic.window(up + RECOVERY_LIMIT_SECONDS) if o.code != "ok"]
    codes: dict[str, int] = {}
    for o in during + after:
        codes[o.code] = codes.get(o.code, 0) + 1
    return {
        "outage_seconds": round(up - down, 2),
        "answers_during_outage": len(traffic.window(down, up)),
        "refused_as_db_unavailable": len(during) - len(uncoded),
        "other_errors_during_outage": len(uncoded),
        "errors_by_code_around_outage": codes,
        "recovered_seconds_after_back": round(recovered - up, 2),
        "errors_later_than_5s_after_back": len(late),
        "first_success_after_back_s": first_successes(traffic, up),
    }


def first_successes(traffic: Traffic, up: float) -> dict[str, Any]:
    """Per lane of the mixed workload, the seconds from PostgreSQL accepting connections again
    to the end of that lane's first successful answer after it: the slowest lane's, the
    median lane's, and the lanes that had none."""
    lanes = {o.lane for o in traffic.outcomes if o.lane}
    first: dict[int, float] = {}
    for o in traffic.outcomes:
        ended = o.began + o.seconds
        if o.lane and o.code == "ok" and ended >= up:
            first[o.lane] = min(first.get(o.lane, ended), ended)
    waits = sorted(ended - up for ended in first.values())
    return {
        "lanes": len(lanes),
        "slowest_lane": round(waits[-1], 2) if waits else None,
        "median_lane": round(waits[len(waits) // 2], 2) if waits else None,
        "lanes_without_success": len(lanes - set(first)),
    }


def _outage_answer(outcome: Outcome) -> bool:
    """DB_UNAVAILABLE, whatever the status (an MCP tool's answer is a 200 carrying it), or
    the SDK's api_error with 503."""
    return outcome.code == "DB_UNAVAILABLE" or (
        outcome.code in OUTAGE_ANSWERS and outcome.status == 503
    )


async def probe_health(base_url: str, deadline: float, traffic: Traffic) -> None:
    """GET /healthz every 50 ms until ``deadline``."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
        while time.monotonic() < deadline:
            began = time.monotonic()
            try:
                answer = await client.get("/healthz")
                status, code = answer.status_code, classify(answer.status_code, answer.content)
            except httpx.HTTPError as error:
                status, code = 0, type(error).__name__
            traffic.outcomes.append(
                Outcome("healthz", began, time.monotonic() - began, status, code)
            )
            await asyncio.sleep(0.05)
