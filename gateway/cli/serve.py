"""`skillmem serve`: the API under uvicorn, the demo workspace loaded on request."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, cast

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
) -> None:
    """Start the API (and the embedded PostgreSQL unless DATABASE_URL is set)."""
    found = settings()
    found.host = host or found.host
    found.port = port or found.port
    serve(demo, found)


def print_demo_start(token: str, email: str, settings: Settings) -> None:
    url = f"http://{settings.host}:{settings.port}/graphql"
    headers = json.dumps({"Authorization": f"Bearer {token}"})
    print(
        f"\nskillmem is serving on http://{settings.host}:{settings.port}\n"
        f"  GraphiQL:   {url}\n"
        f"  demo token: {token}  (for {email}; the previous demo token is revoked)\n"
        f"  headers to paste into GraphiQL:\n  {headers}\n"
        f"  {worker_line(settings)}\n"
        f"  try: curl -s {url} -H 'Authorization: Bearer {token}' "
        "-H 'Content-Type: application/json' -d '{\"query\": \"{ me { name kind } }\"}'\n",
        flush=True,
    )


def worker_line(settings: Settings) -> str:
    if not settings.worker:
        return "Dreamer worker: off (SKILLMEM_WORKER=false); run `skillmem worker` for one"
    return (
        f"Dreamer worker: one in this process ({settings.worker_concurrency} pass(es) at a time; "
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
