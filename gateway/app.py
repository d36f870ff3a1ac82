"""The Starlette application: lifespan (database, migrations, demo), routes, middleware."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncpg
from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
from opentelemetry.sdk.trace import TracerProvider
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from db.embedded import start_embedded
from db.events import Listener
from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from db.principal_cache import PrincipalCache
from gateway import heap
from gateway.anthropic import dreams, memory_stores
from gateway.anthropic import skills as anthropic_skills
from gateway.http import (
    catalog,
    conversations,
    dreamer,
    health,
    mail,
    memory,
    openapi,
    records,
    responses,
    skills,
)
from gateway.http.edge import Edge
from gateway.http.graphiql import GRAPHIQL_HTML
from gateway.http.graphql import GraphQLEndpoint
from gateway.http.metrics import METRICS_PATH, metrics_endpoint, span_details
from gateway.http.subscriptions import SubscriptionView
from gateway.mcp.http import MCP_PATH, McpEndpoint, with_mcp
from gateway.observe import tracing
from gateway.settings import Settings
from gateway.supervisor import supervising
from gateway.worker.config import pass_settings, worker_options
from gateway.worker.runner import Worker
from schema.schema import schema

log = logging.getLogger("skillmem")

STATIC_DIR = Path(__file__).parent / "static"


async def database_url(settings: Settings) -> tuple[str, Any]:
    """The database to use: DATABASE_URL, or the embedded server started for it."""
    if settings.database_url:
        return settings.database_url, None
    server = await asyncio.to_thread(start_embedded, settings.data_dir)
    return server.get_uri(), server


def request_dsn(settings: Settings, owner_dsn: str) -> str:
    """Where requests connect: DATABASE_APP_URL, the login role on the embedded server, or
    (one URL for both) the owner's, switching role inside each transaction."""
    if settings.database_app_url:
        return settings.database_app_url
    if settings.database_url:
        return owner_dsn
    return api_dsn(owner_dsn)


async def prepare_database(dsn: str) -> None:
    """Apply pending migrations."""
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def background_worker(
    settings: Settings, owner_dsn: str, app_dsn: str
) -> AsyncIterator[Worker | None]:
    """One Dreamer worker beside the API for the block (none when the setting is off), with a
    pool of its own (a pass holds its owner's lock on one connection and works on another: it
    never starves the API's pool, nor the API it); on leaving, it takes no new job and the
    batch under way finishes."""
    if not settings.worker:
        yield None
        return
    options = worker_options(settings)
    pool = await create_pool(app_dsn, min_size=1, max_size=2 * options.concurrency + 2)
    worker = Worker(owner_dsn, pool, pass_settings(settings), options)
    task = asyncio.create_task(worker.run())
    try:
        yield worker
    finally:
        worker.stop()
        await task
        await pool.close()


@contextlib.asynccontextmanager
async def listening(
    dsn: str, settings: Settings
) -> AsyncIterator[tuple[Listener, PrincipalCache | None]]:
    """The process's listener for subscriptions' events (db/events.py) for the block, which
    also keeps the principal cache (db/principal_cache.py) up to date when it is on."""
    events = Listener(dsn)
    principals = (
        PrincipalCache(events, settings.principal_cache_seconds, settings.principal_cache_size)
        if settings.principal_cache_seconds > 0 and settings.principal_cache_size > 0
        else None
    )
    await events.start()
    try:
        yield events, principals
    finally:
        await events.stop()


def lifespan_for(
    settings: Settings, pool: asyncpg.Pool | None, on_ready: Any
) -> Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]]:
    """The app's lifespan: the given pool (tests: no worker either), or the database started,
    migrated and pooled for the app's life, with one Dreamer worker unless turned off."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if pool is not None:
            app.state.pool = pool
            yield
            return
        dsn, server = await database_url(settings)
        await prepare_database(dsn)
        app.state.pool = await create_pool(
            request_dsn(settings, dsn),
            min_size=settings.pool_min_size,
            max_size=settings.pool_max_size,
        )
        app.state.server = server
        if on_ready is not None:
            await on_ready(app.state.pool)
        try:
            async with (
                supervising(server, settings.supervision()) as supervisor,
                listening(request_dsn(settings, dsn), settings) as (events, principals),
                background_worker(settings, dsn, request_dsn(settings, dsn)) as worker,
            ):
                app.state.supervisor = supervisor
                app.state.events = events
                app.state.principals = principals
                app.state.worker = worker
                if supervisor is not None and worker is not None:
                    supervisor.on_restart.append(worker.resume)
                heap.settle()  # after everything long-lived exists, before any request
                yield
        finally:
            await app.state.pool.close()
            if server is not None:
                # Stop the embedded server now: uvicorn ends a SIGTERM'd process by re-raising
                # the signal, which skips the atexit hook that would stop it otherwise.
                await asyncio.to_thread(server.cleanup)

    return lifespan


def graphql_endpoint(settings: Settings) -> GraphQLEndpoint:
    """/graphql's endpoint (its document cache is also read by the edge: app.state.documents)."""
    return GraphQLEndpoint(
        schema._schema, settings, GRAPHIQL_HTML if settings.introspection else None
    )


def routes(settings: Settings, endpoint: GraphQLEndpoint | None = None) -> list[BaseRoute]:
    """GraphQL, the plain routes, the probes and GraphiQL's static files."""
    endpoint = endpoint or graphql_endpoint(settings)
    documented = (
        [Route(openapi.OPENAPI_PATH, openapi.openapi_json, methods=["GET"])]
        if settings.introspection
        else []
    )
    return [
        *documented,
        Route("/graphql", endpoint.handle, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", SubscriptionView(endpoint, settings)),
        Route("/v1/records", records.post_records, methods=["POST"]),
        Route("/v1/records/{object}/{id}/memory", memory.delete_record_souvenir, methods=["PATCH"]),
        Route("/users/me/preferences/{key}", memory.put_preference, methods=["PUT"]),
        Route("/tenant/settings", memory.get_settings, methods=["GET"]),
        Route("/v1/search", memory.get_search, methods=["GET"]),
        Route("/v1/catalog/search", catalog.search_route(settings), methods=["GET"]),
        Route("/tenant/settings", memory.patch_settings, methods=["PATCH"]),
        Route("/agents/sessions/{id}/messages", dreamer.post_message, methods=["POST"]),
        Route("/agents/sessions/{id}/compact", conversations.post_compact, methods=["POST"]),
        Route("/agents/sessions/{id}/end", conversations.post_end, methods=["POST"]),
        Route("/v1/meetings", dreamer.post_meeting, methods=["POST"]),
        Route("/v1/meetings/{id}", dreamer.delete_meeting, methods=["DELETE"]),
        Route("/v1/mailboxes", mail.post_mailbox, methods=["POST"]),
        Route("/v1/mailboxes/{id}/messages", mail.post_messages, methods=["POST"]),
        *memory_stores.ROUTES,
        *dreams.ROUTES,
        Route("/skills/import", skills.import_skills, methods=["POST"]),
        Route("/skills/export", skills.export_skills, methods=["POST"]),
        *anthropic_skills.ROUTES,
        Route("/healthz", health.healthz, methods=["GET"]),
        Route("/readyz", health.readyz, methods=["GET"]),
        Route(METRICS_PATH, metrics_endpoint(settings), methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]


def middleware(
    settings: Settings,
    app_routes: list[BaseRoute],
    tracer: TracerProvider | None,
    endpoint: GraphQLEndpoint | None = None,
) -> list[Middleware]:
    """Outermost first: the request's trace (when tracing is on), then the edge
    (gateway/http/edge.py: its metrics, CORS with a preflight answered before authentication,
    the request id, token, body and transaction), which calls /graphql's ``endpoint``
    straight."""
    traced = (
        []
        if tracer is None
        else [
            Middleware(
                OpenTelemetryMiddleware,
                tracer_provider=tracer,
                default_span_details=span_details(app_routes),
            )
        ]
    )
    return [
        *traced,
        Middleware(
            Edge,
            routes=app_routes,
            settings=settings,
            graphql=endpoint.handle if endpoint is not None else None,
        ),
    ]


def create_app(
    settings: Settings | None = None,
    *,
    pool: asyncpg.Pool | None = None,
    on_ready: Any = None,
    tracer: TracerProvider | None = None,
) -> Starlette:
    """The app. With ``pool`` given (tests), it uses that pool and starts nothing; with
    ``tracer`` given (tests), it traces to that provider whatever the settings say."""
    settings = settings or Settings()
    tracer = tracer or tracing.provider_for(settings.tracing, settings.tracing_service_name)
    if tracer is not None:
        tracing.trace_sql(tracer)
    mcp = McpEndpoint(settings.catalog())
    endpoint = graphql_endpoint(settings)
    app_routes = [
        *routes(settings, endpoint),
        Route(MCP_PATH, mcp, methods=["GET", "POST", "DELETE"]),
    ]
    app = Starlette(
        routes=app_routes,
        middleware=middleware(settings, app_routes, tracer, endpoint),
        exception_handlers={404: responses.not_found, 405: responses.method_not_allowed},
        lifespan=with_mcp(mcp, lifespan_for(settings, pool, on_ready)),
    )
    app.state.pool = pool
    app.state.worker = None
    app.state.events = None
    app.state.principals = None
    # The documents /graphql has parsed: the edge looks there for queries that only read.
    app.state.documents = endpoint.cache
    app.state.supervisor = None
    return app
