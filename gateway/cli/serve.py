"""`skillmem serve`: the API under uvicorn, the demo workspace loaded on request; with
`--workers N`, N processes behind one socket (uvicorn's own workers), each with its own pool."""

from __future__ import annotations

import asyncio
import json
import os
from typing import TYPE_CHECKING, Annotated, Any, cast

import asyncpg
import typer

from gateway.cli.common import settings

if TYPE_CHECKING:
    from gateway.settings import Settings


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)


def serve_command(
    demo: Annotated[
        bool,
        typer.Option(
            "--demo",
            help="Load the demo workspace on first run and print a new demo token (the "
            "previous demo token is revoked).",
        ),
    ] = False,
    host: Annotated[
        str | None,
        typer.Option(help="The address to listen on [default: SKILLMEM_HOST, 127.0.0.1]."),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=1, max=65535, help="The port [default: SKILLMEM_PORT, 8000]."),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Processes serving the API on the one port, each with its own pool of "
            "SKILLMEM_POOL_MAX_SIZE connections (and its own Dreamer worker unless "
            "SKILLMEM_WORKER=false).",
        ),
    ] = 1,
) -> None:
    """Start the API (and the embedded PostgreSQL unless DATABASE_URL is set)."""
    found = settings()
    found.host = host or found.host
    found.port = port or found.port
    if workers > 1:
        serve_processes(demo, found, workers)
    else:
        serve(demo, found)


def print_demo_start(token: str, email: str, settings: Settings, processes: int = 1) -> None:
    url = f"http://{settings.host}:{settings.port}/graphql"
    headers = json.dumps({"Authorization": f"Bearer {token}"})
    print(
        f"\nskillmem is serving on http://{settings.host}:{settings.port}\n"
        f"  GraphiQL:   {url}\n"
        f"  demo token: {token}  (for {email}; the previous demo token is revoked)\n"
        f"  headers to paste into GraphiQL:\n  {headers}\n"
        f"  {worker_line(settings, processes)}\n"
        f"  try: curl -s {url} -H 'Authorization: Bearer {token}' "
        "-H 'Content-Type: application/json' -d '{\"query\": \"{ me { name kind } }\"}'\n",
        flush=True,
    )


def worker_line(settings: Settings, processes: int = 1) -> str:
    if not settings.worker:
        return "Dreamer worker: off (SKILLMEM_WORKER=false); run `skillmem worker` for one"
    where = "this process" if processes == 1 else f"each of the {processes} processes"
    return (
        f"Dreamer worker: one in {where} ({settings.worker_concurrency} pass(es) at a time; "
        "SKILLMEM_WORKER=false turns it off, `skillmem worker` adds more)"
    )


def serve(demo: bool, settings: Settings) -> None:
    import uvicorn

    from gateway.app import create_app
    from gateway.demo import ensure_demo
    from gateway.http.server import JsonErrorsProtocol
    from gateway.observe import logs

    if demo:
        settings = settings.with_local_origins()

    async def on_ready(pool: asyncpg.Pool) -> None:
        if demo:
            async with pool.acquire() as proxy:
                # The pool lends a proxy that forwards every method to its connection.
                start = await ensure_demo(cast(asyncpg.Connection, proxy))
            if start.created:
                print("Loaded the demo workspace.", flush=True)
            print_demo_start(start.token, start.member_email, settings)

    logs.configure(settings.log_format, settings.log_level)
    app = create_app(settings, on_ready=on_ready)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=logs.uvicorn_config(settings.log_level),
        proxy_headers=False,
        http=JsonErrorsProtocol,
    )


def serve_processes(demo: bool, settings: Settings, processes: int) -> None:
    """``processes`` uvicorn workers on one socket. This process starts the embedded server
    (unless DATABASE_URL is set), migrates and loads the demo once, then hands the workers the
    database through their environment: each builds the same settings and its own pool."""
    import uvicorn

    from gateway.http.server import JsonErrorsProtocol
    from gateway.observe import logs

    if demo:
        settings = settings.with_local_origins()
    logs.configure(settings.log_format, settings.log_level)
    owner_dsn, server = asyncio.run(prepare(demo, settings, processes))
    os.environ.update(worker_environment(settings, owner_dsn))
    try:
        uvicorn.run(
            f"{__name__}:worker_app",
            factory=True,
            workers=processes,
            host=settings.host,
            port=settings.port,
            log_level=settings.log_level,
            log_config=logs.uvicorn_config(settings.log_level),
            proxy_headers=False,
            http=JsonErrorsProtocol,
        )
    finally:
        if server is not None:
            server.cleanup()


async def prepare(demo: bool, settings: Settings, processes: int) -> tuple[str, Any]:
    """The database started and migrated, the demo loaded: its owner's DSN and the embedded
    server (None with DATABASE_URL)."""
    from db.pool import create_pool
    from gateway.app import database_url, prepare_database, request_dsn
    from gateway.demo import ensure_demo

    owner_dsn, server = await database_url(settings)
    await prepare_database(owner_dsn)
    if demo:
        pool = await create_pool(request_dsn(settings, owner_dsn), min_size=1, max_size=1)
        try:
            async with pool.acquire() as proxy:
                start = await ensure_demo(cast(asyncpg.Connection, proxy))
        finally:
            await pool.close()
        if start.created:
            print("Loaded the demo workspace.", flush=True)
        print_demo_start(start.token, start.member_email, settings, processes)
    return owner_dsn, server


def worker_environment(settings: Settings, owner_dsn: str) -> dict[str, str]:
    """What a worker process reads its settings from, beside this process's environment: the
    database this process prepared, where it listens, and the demo's origins."""
    from gateway.app import request_dsn

    env = {
        "DATABASE_URL": owner_dsn,
        "DATABASE_APP_URL": request_dsn(settings, owner_dsn),
        "SKILLMEM_HOST": settings.host,
        "SKILLMEM_PORT": str(settings.port),
        "SKILLMEM_CORS_ORIGINS": ",".join(settings.cors_origins),
    }
    if settings.cors_origin_regex is not None:
        env["SKILLMEM_CORS_ORIGIN_REGEX"] = settings.cors_origin_regex
    return env


def worker_app() -> Any:
    """One worker process's app (uvicorn's factory): the settings from the environment the
    parent completed; the database is already migrated."""
    from gateway.app import create_app
    from gateway.observe import logs

    found = settings()
    logs.configure(found.log_format, found.log_level)
    return create_app(found)
