"""The serving process's heap, settled once it has started.

By the time the app serves, its heap holds hundreds of thousands of long-lived objects (the
modules, the GraphQL schema and its types, pydantic's validators, the settings) that no request
frees. CPython's full collections walk every tracked object; with those in the heap, each full
pass (every ~70,000 net allocations with the default thresholds) stops a request for tens of
milliseconds. ``settle`` collects once, then moves every survivor to the permanent generation
(``gc.freeze``), which the collector never walks again: requests pay only for their own
garbage. Measured with ``python -m bench.limits --freeze`` (BENCHMARKS.md)."""

from __future__ import annotations

import gc
import logging

log = logging.getLogger("skillmem.heap")


def settle() -> int:
    """Collect, then freeze what survives; the number of objects now frozen."""
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.info("heap settled: %d objects frozen", frozen)
    return frozen
