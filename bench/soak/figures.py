"""Figures of a window of outcomes: counts, errors by code, latency percentiles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from bench.soak.traffic import Outcome


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, int(round(share * len(ordered) + 0.5)) - 1))
    return ordered[rank]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def summary(outcomes: Sequence[Outcome], seconds: float | None = None) -> dict[str, Any]:
    """Requests, errors by code, p50/p99/max in ms, and p99 by kind."""
    times = [o.seconds for o in outcomes]
    errors = Counter(o.code for o in outcomes if o.code != "ok")
    kinds = sorted({o.kind for o in outcomes})
    found: dict[str, Any] = {
        "requests": len(outcomes),
        "errors": sum(errors.values()),
        "by_code": dict(errors.most_common()),
        "by_status": dict(Counter(str(o.status) for o in outcomes if o.code != "ok").most_common()),
        "p50_ms": ms(percentile(times, 0.50)),
        "p99_ms": ms(percentile(times, 0.99)),
        "max_ms": ms(max(times, default=0.0)),
        "p99_by_kind_ms": {
            kind: ms(percentile([o.seconds for o in outcomes if o.kind == kind], 0.99))
            for kind in kinds
        },
    }
    if seconds:
        found["per_second"] = round(len(outcomes) / seconds, 1)
    return found


def ratio(new: float, base: float) -> float:
    return round(new / base, 2) if base else 0.0
