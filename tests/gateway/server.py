"""The app served the way `skillmem serve` serves it (uvicorn, its protocol), on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette

from db.pool import api_dsn
from gateway.app import create_app
from gateway.http.server import JsonErrorsProtocol
from gateway.settings import Settings

SERVER_START_SECONDS = 20.0
# Nothing listens on the discard port: the catalogue's directory and sources answer "unavailable"
# at once.
CLOSED = "http://127.0.0.1:9"
NO_OUTSIDE: dict[str, object] = {
    "catalog_directory_base_url": CLOSED,
    "catalog_source_base_url": CLOSED,
    "catalog_max_retries": 0,
}


@contextmanager
def serving(dsn: str) -> Iterator[str]:
    """The app under uvicorn in a thread (its own loop and pool); its base URL."""
    with serving_app(dsn) as (base_url, _):
        yield base_url


@contextmanager
def serving_app(dsn: str, **more: object) -> Iterator[tuple[str, Starlette]]:
    """``serving``, with the app served (its state: the pool, the subscriptions' listener), and
    ``more`` settings. The catalogue's outside is a closed local port unless ``more`` says
    otherwise: a test never reaches the internet."""
    for name, value in NO_OUTSIDE.items():
        more.setdefault(name, value)
    settings = Settings(
        database_url=dsn,
        database_app_url=api_dsn(dsn),
        pool_min_size=1,
        pool_max_size=4,
        worker=False,  # the tests' shared database: no Dreamer worker (test_worker.py has its own)
        **more,  # type: ignore[arg-type]
    )
    with serving_settings(settings) as served:
        yield served


@contextmanager
def serving_settings(settings: Settings) -> Iterator[tuple[str, Starlette]]:
    """The app of ``settings`` under uvicorn in a thread, its lifespan run as `skillmem serve`
    runs it (without DATABASE_URL: the embedded server of ``settings.data_dir``)."""
    app = create_app(settings)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan="on", http=JsonErrorsProtocol)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + SERVER_START_SECONDS
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the app did not start"
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", app
    finally:
        server.should_exit = True
        thread.join(SERVER_START_SECONDS)
        sock.close()
