"""`/metrics` (Prometheus's text format) and the route labels of the requests the edge counts
(gateway/http/edge.py).

`/metrics` is not public by default: it answers the bearer token set as
``SKILLMEM_METRICS_TOKEN``, or anyone when ``SKILLMEM_METRICS_PUBLIC`` is true; otherwise 403.
It is the operator's, not a workspace's: a workspace's token never opens it.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable
from typing import cast

import asyncpg
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import Scope

from db.dreamer_queue import queue_job_counts
from gateway.http.auth import bearer_token
from gateway.http.responses import error_response
from gateway.observe import metrics
from gateway.settings import Settings
from resolvers.common.errors import Code
from schema.errors import DB_DOWN

log = logging.getLogger("skillmem.metrics")

METRICS_PATH = "/metrics"
# Reading the queue's counts waits at most this long for a connection.
METRICS_ACQUIRE_TIMEOUT_SECONDS = 2.0
# The route label of a request that matched no route.
UNMATCHED = "unmatched"


def route_label(routes: list[BaseRoute], scope: Scope) -> str:
    """The path template of the route ``scope`` asks for (bounded label values)."""
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return str(getattr(route, "path", UNMATCHED)) or UNMATCHED
    return UNMATCHED


def span_details(
    routes: list[BaseRoute],
) -> Callable[[Scope], tuple[str, dict[str, str]]]:
    """A request span's name and route from the route template (not the path, which may hold
    ids), for the OpenTelemetry middleware."""

    def details(scope: Scope) -> tuple[str, dict[str, str]]:
        route = route_label(routes, scope)
        return f"{scope.get('method', 'WS')} {route}", {"http.route": route}

    return details


def allowed(request: Request, settings: Settings) -> bool:
    """Whether the request may read the metrics: public by setting, or the metrics token."""
    if settings.metrics_public:
        return True
    if settings.metrics_token is None:
        return False
    given = bearer_token(request.scope) or ""
    expected = settings.metrics_token.get_secret_value()
    return hmac.compare_digest(given.encode(), expected.encode())


async def read_gauges(pool: asyncpg.Pool | None) -> None:
    """The pool's and the queue's gauges as they are now (the queue's left empty when the
    database does not answer: the request counters still do)."""
    if pool is None:
        return
    metrics.POOL_SIZE.set(pool.get_size())
    metrics.POOL_IN_USE.set(pool.get_size() - pool.get_idle_size())
    metrics.POOL_MAX.set(pool.get_max_size())
    try:
        async with pool.acquire(timeout=METRICS_ACQUIRE_TIMEOUT_SECONDS) as proxy:
            rows = await queue_job_counts(cast(asyncpg.Connection, proxy))
    except DB_DOWN as error:
        log.warning("metrics: the queue's counts were not read: %r", error)
        metrics.set_queue_jobs([])
        return
    metrics.set_queue_jobs(rows)


def metrics_endpoint(settings: Settings) -> Callable[[Request], Awaitable[Response]]:
    """The `/metrics` route for ``settings``."""

    async def metrics_route(request: Request) -> Response:
        if not allowed(request, settings):
            message = (
                "The metrics need the metrics token (SKILLMEM_METRICS_TOKEN) "
                "or SKILLMEM_METRICS_PUBLIC=true."
            )
            return error_response(
                Code.FORBIDDEN, message, request_id=request.scope.get("request_id")
            )
        await read_gauges(request.app.state.pool)
        return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)

    return metrics_route
