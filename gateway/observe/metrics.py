"""The Prometheus metrics the process exports (README "Metrics and tracing").

One registry of the process's own, read at `/metrics` (gateway/http/metrics.py) and, for a
`skillmem worker` process, on its own port (``SKILLMEM_WORKER_METRICS_PORT``). Label values are
bounded: routes are the app's path templates, GraphQL operation names are cut to
``OPERATION_NAME_CHARS`` and, past ``MAX_OPERATION_NAMES`` distinct names, counted as
``other``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Iterable
from typing import Any

import asyncpg
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    start_http_server,
)

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)

# A GraphQL request's operation label: its name, "anonymous", or "other" past the cap.
OPERATION_NAME_CHARS = 64
MAX_OPERATION_NAMES = 200
ANONYMOUS = "anonymous"
OTHER = "other"
NOT_GRAPHQL = ""
_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*")
_seen_operations: set[str] = set()

REQUESTS = Counter(
    "skillmem_requests",
    "HTTP requests answered, by route template, GraphQL operation name and status.",
    ["route", "operation", "status"],
    registry=REGISTRY,
)
LATENCY = Histogram(
    "skillmem_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route and operation.",
    ["route", "operation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    registry=REGISTRY,
)
POOL_SIZE = Gauge(
    "skillmem_pool_connections", "Connections the request pool holds.", registry=REGISTRY
)
POOL_IN_USE = Gauge(
    "skillmem_pool_in_use", "Pooled connections lent to a request.", registry=REGISTRY
)
POOL_MAX = Gauge("skillmem_pool_max", "The request pool's maximum size.", registry=REGISTRY)
POOL_WAITING = Gauge(
    "skillmem_pool_waiting", "Requests waiting for a pooled connection.", registry=REGISTRY
)
PRINCIPAL_CACHE = Counter(
    "skillmem_principal_cache",
    "Requests by what the principal cache answered: hit, miss (no entry, ended, or not "
    "listening), stale (refused in the transaction, then resolved again), off (no cache).",
    ["result"],
    registry=REGISTRY,
)
# The children of the per-request metrics by their labels: ``labels()`` takes a lock and checks
# its arguments each time; these metrics are never cleared, so a child, once made, is theirs
# for good. Bounded as their labels are (routes, the operation names' cap, statuses).
_requests: dict[tuple[str, str, str], Any] = {}
_latencies: dict[tuple[str, str], Any] = {}
_principal_cache: dict[str, Any] = {}


def count_request(route: str, operation: str, status: str, seconds: float) -> None:
    """One request answered: counted and timed (REQUESTS, LATENCY)."""
    counter = _requests.get((route, operation, status))
    if counter is None:
        counter = _requests[route, operation, status] = REQUESTS.labels(route, operation, status)
    counter.inc()
    latency = _latencies.get((route, operation))
    if latency is None:
        latency = _latencies[route, operation] = LATENCY.labels(route, operation)
    latency.observe(seconds)


def count_principal(result: str) -> None:
    """What the principal cache answered a request (PRINCIPAL_CACHE)."""
    counter = _principal_cache.get(result)
    if counter is None:
        counter = _principal_cache[result] = PRINCIPAL_CACHE.labels(result)
    counter.inc()


QUEUE_JOBS = Gauge(
    "skillmem_queue_jobs",
    "Jobs in the queue, by entrypoint and state (queued: the queue's depth).",
    ["entrypoint", "state"],
    registry=REGISTRY,
)
DREAMER_VERDICTS = Counter(
    "skillmem_dreamer_verdicts",
    "The Dreamer's verdicts written by this process's passes, by verdict and reason.",
    ["verdict", "reason"],
    registry=REGISTRY,
)


def operation_label(name: str | None) -> str:
    """A GraphQL operation's label: its name (cut), ``anonymous``, or ``other`` once
    ``MAX_OPERATION_NAMES`` names were seen."""
    if not name:
        return ANONYMOUS
    name = name[:OPERATION_NAME_CHARS]
    if not _NAME.fullmatch(name):
        return OTHER
    if name in _seen_operations:
        return name
    if len(_seen_operations) >= MAX_OPERATION_NAMES:
        return OTHER
    _seen_operations.add(name)
    return name


def count_verdicts(verdicts: Iterable[tuple[str, str | None]]) -> None:
    """Count a pass's verdicts (verdict, reason)."""
    for verdict, reason in verdicts:
        DREAMER_VERDICTS.labels(verdict, reason or verdict).inc()


def set_queue_jobs(rows: Iterable[tuple[str, str, int]]) -> None:
    """The queue's jobs as just read: (entrypoint, state, jobs); states not read are 0."""
    QUEUE_JOBS.clear()
    for entrypoint, state, jobs in rows:
        QUEUE_JOBS.labels(entrypoint, state).set(jobs)


@contextlib.asynccontextmanager
async def lent(pool: asyncpg.Pool, wait: float) -> AsyncIterator[Any]:
    """One of ``pool``'s connections for the block, counted in ``skillmem_pool_waiting`` while
    the request waits for it (at most ``wait`` seconds)."""
    POOL_WAITING.inc()
    try:
        proxy = await pool.acquire(timeout=wait)
    finally:
        POOL_WAITING.dec()
    try:
        yield proxy
    finally:
        await pool.release(proxy)


def serve_worker_metrics(host: str, port: int) -> None:
    """A `skillmem worker` process's metrics at ``http://host:port/metrics`` (prometheus_client's
    own server, on a thread; no token: bind it where only the scraper reaches)."""
    start_http_server(port, addr=host, registry=REGISTRY)
