"""What an operator sees: `/metrics` (closed by default, the metrics token, requests by route,
operation and status, latency, the pool and the queue), JSON log lines naming their request,
and OpenTelemetry spans of a request and its SQL when tracing is on."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import httpx
import orjson
import pytest
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from gateway.app import create_app
from gateway.observe import metrics, tracing
from gateway.settings import Settings
from gateway.worker.queue import queue_queries
from tests.factories import bearer, gql

CHECKOUT = Path(__file__).resolve().parents[2]
SCRAPER = "scraper-secret-1"


@contextlib.asynccontextmanager
async def app_client(
    api_pool: asyncpg.Pool, **settings: object
) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=None, worker=False, **settings), pool=api_pool)  # type: ignore[arg-type]
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as client:
        yield client


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text page, by name and sorted labels."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


async def scrape(client: httpx.AsyncClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = await client.get("/metrics", headers=bearer(SCRAPER))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    return samples(answer.text)


def requests(route: str, operation: str, status: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    labels = {"route": route, "operation": operation, "status": status}
    return ("skillmem_requests_total", tuple(sorted(labels.items())))


# --- /metrics is closed by default -------------------------------------------------------------


async def test_metrics_are_not_public_by_default_and_no_workspace_token_opens_them(api_pool, ws):
    async with app_client(api_pool) as client:
        for headers in ({}, bearer(ws.tokens["admin"]), bearer(SCRAPER)):
            answer = await client.get("/metrics", headers=headers)
            assert answer.status_code == 403, answer.text
            assert answer.json()["error"]["code"] == "FORBIDDEN"
            assert "skillmem_" not in answer.text


async def test_the_metrics_token_opens_them_and_a_wrong_one_does_not(api_pool, ws):
    async with app_client(api_pool, metrics_token=SecretStr(SCRAPER)) as client:
        wrong = await client.get("/metrics", headers=bearer("scraper-secret-2"))
        assert wrong.status_code == 403
        workspace = await client.get("/metrics", headers=bearer(ws.tokens["admin"]))
        assert workspace.status_code == 403
        assert ("skillmem_pool_max", ()) in await scrape(client)


async def test_public_metrics_answer_without_a_token(api_pool):
    async with app_client(api_pool, metrics_public=True) as client:
        answer = await client.get("/metrics")
        assert answer.status_code == 200
        assert "skillmem_requests_total" in answer.text


# --- what is counted ---------------------------------------------------------------------------


async def test_requests_are_counted_by_route_operation_and_status(api_pool, ws):
    async with app_client(api_pool, metrics_token=SecretStr(SCRAPER)) as client:
        before = await scrape(client)
        named = await gql(client, ws.tokens["admin"], "query WhoAmI { me { name } }")
        assert named.status_code == 200
        await gql(client, ws.tokens["admin"], "{ me { name } }")
        await gql(client, "not-a-token", "query WhoAmI { me { name } }")
        assert (await client.get("/healthz")).status_code == 200
        assert (
            await client.get("/no/such/route", headers=bearer(ws.tokens["admin"]))
        ).status_code == 404
        after = await scrape(client)

    def grew(key: tuple[str, tuple[tuple[str, str], ...]]) -> float:
        return after.get(key, 0) - before.get(key, 0)

    assert grew(requests("/graphql", "WhoAmI", "200")) == 1
    assert grew(requests("/graphql", "anonymous", "200")) == 1
    # Refused at the edge, before the document is read: no operation label.
    assert grew(requests("/graphql", "", "401")) == 1
    assert grew(requests("/healthz", "", "200")) == 1
    assert grew(requests("unmatched", "", "404")) == 1
    latency = (
        "skillmem_request_duration_seconds_count",
        (("operation", "WhoAmI"), ("route", "/graphql")),
    )
    assert grew(latency) == 1


def test_operation_labels_are_bounded(monkeypatch):
    monkeypatch.setattr(metrics, "_seen_operations", set())
    monkeypatch.setattr(metrics, "MAX_OPERATION_NAMES", 2)
    assert metrics.operation_label(None) == "anonymous"
    assert metrics.operation_label("First") == "First"
    assert metrics.operation_label("x" * 100) == "x" * metrics.OPERATION_NAME_CHARS
    assert metrics.operation_label("Third") == "other"
    assert metrics.operation_label("First") == "First"
    assert metrics.operation_label("not a name") == "other"


async def test_the_pool_and_the_queue_are_read_at_each_scrape(api_pool, pool):
    queries = queue_queries(pool)
    [job] = await queries.enqueue("metrics.test", b"{}")
    try:
        async with app_client(api_pool, metrics_token=SecretStr(SCRAPER)) as client:
            found = await scrape(client)
        queued = ("skillmem_queue_jobs", (("entrypoint", "metrics.test"), ("state", "queued")))
        assert found[queued] == 1
        assert found[("skillmem_pool_max", ())] == api_pool.get_max_size()
        assert found[("skillmem_pool_connections", ())] == api_pool.get_size()
        # The scrape itself holds no request connection when the pool is read.
        assert 0 <= found[("skillmem_pool_in_use", ())] <= api_pool.get_size()
    finally:
        await pool.execute("DELETE FROM pgqueuer WHERE id = $1", job)


async def test_requests_waiting_for_a_connection_are_counted(dsn):
    from db.pool import api_dsn, create_pool

    small = await create_pool(api_dsn(dsn), min_size=1, max_size=1)
    try:
        async with metrics.lent(small, 5.0):
            waiter = asyncio.create_task(_borrow(small))
            for _ in range(100):
                if metrics.POOL_WAITING._value.get() == 1:
                    break
                await asyncio.sleep(0.01)
            assert metrics.POOL_WAITING._value.get() == 1
        await waiter
        assert metrics.POOL_WAITING._value.get() == 0
    finally:
        await small.close()


async def _borrow(pool: asyncpg.Pool) -> None:
    async with metrics.lent(pool, 5.0) as conn:
        await conn.fetchval("SELECT 1")


def test_verdicts_are_counted_by_reason():
    def value(verdict: str, reason: str) -> float:
        return metrics.DREAMER_VERDICTS.labels(verdict, reason)._value.get()

    written, refused = value("written", "written"), value("refused", "no_record")
    metrics.count_verdicts([("written", None), ("refused", "no_record"), ("refused", "no_record")])
    assert value("written", "written") == written + 1
    assert value("refused", "no_record") == refused + 2


# --- traces ------------------------------------------------------------------------------------


def test_tracing_is_off_by_default():
    assert Settings().tracing == "off"
    assert tracing.provider_for("off", "skillmem") is None


async def test_a_traced_request_has_a_server_span_and_a_span_per_statement(api_pool, ws):
    exporter = InMemorySpanExporter()
    provider = tracing.provider_with(SimpleSpanProcessor(exporter), "skillmem-test")
    app = create_app(Settings(database_url=None, worker=False), pool=api_pool, tracer=provider)
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            answer = await gql(client, ws.tokens["admin"], "query WhoAmI { me { name } }")
            assert answer.status_code == 200
    finally:
        tracing.stop_tracing_sql()
    spans = exporter.get_finished_spans()
    [server] = [s for s in spans if s.kind is SpanKind.SERVER]
    assert server.resource.attributes["service.name"] == "skillmem-test"
    assert server.name == "POST /graphql"
    assert (server.attributes or {})["http.route"] == "/graphql"
    sql = [s for s in spans if (s.attributes or {}).get("db.system") == "postgresql"]
    assert sql, [s.name for s in spans]
    assert all(s.context.trace_id == server.context.trace_id for s in sql)


# --- JSON logs ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_writes_one_json_line_per_record_with_its_request_id(dsn):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLMEM_")}
    env.update(
        DATABASE_URL=dsn,
        SKILLMEM_WORKER="false",
        SKILLMEM_LOG_FORMAT="json",
        SKILLMEM_LOG_LEVEL="info",
        PYTHONUNBUFFERED="1",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "gateway.cli", "serve", "--port", str(port)],
        env=env,
        cwd=CHECKOUT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with httpx.Client(timeout=5) as client:
            _until_serving(client, port, process)
            answer = client.get(
                f"http://127.0.0.1:{port}/healthz", headers={"x-request-id": "probe-42"}
            )
            assert answer.headers["x-request-id"] == "probe-42"
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    lines = [line for line in err.splitlines() if line.strip()]
    records = [orjson.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= record.keys() for record in records)
    accesses = [r for r in records if r["logger"] == "uvicorn.access"]
    assert accesses and all(r["request_id"] for r in accesses)
    [probe] = [r for r in accesses if r["request_id"] == "probe-42"]
    assert "/healthz" in probe["message"]


def _until_serving(client: httpx.Client, port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "serve exited"
        with contextlib.suppress(httpx.TransportError):
            if client.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                return
        time.sleep(0.1)
    pytest.fail("serve did not answer within 30 s")
