"""One PostgreSQL per test session (the embedded server, or DATABASE_URL), one migrated
database in it, and the app over a pool to that database. Tests isolate themselves by
creating their own workspaces, which is what the product isolates by."""

from __future__ import annotations

import os
import tempfile
import uuid
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import pytest

from db.embedded import start_embedded
from db.events import Listener
from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from db.principal_cache import PrincipalCache
from gateway.app import create_app
from gateway.settings import Settings
from resolvers.common import clock
from tests.factories import Workspace, logging_pool, make_workspace
from tests.fuzzing import load_profile
from tests.gateway.server import NO_OUTSIDE

load_profile()  # hypothesis's settings: derandomized unless HYPOTHESIS_PROFILE says otherwise


def with_database(dsn: str, name: str) -> str:
    """The same server's DSN naming another database."""
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture(scope="session")
def server_dsn() -> Iterator[str]:
    """A PostgreSQL server's DSN: DATABASE_URL, or an embedded server in a temporary folder."""
    if os.environ.get("DATABASE_URL"):
        yield os.environ["DATABASE_URL"]
        return
    folder = Path(tempfile.mkdtemp(prefix="skillmem-test-"))
    server = start_embedded(folder / "pgdata", cleanup_mode="delete")
    yield server.get_uri()
    server.cleanup()


@pytest.fixture(scope="session")
async def new_database(server_dsn: str) -> AsyncIterator[object]:
    """A factory of fresh, empty databases on the server, dropped at the end."""
    made: list[str] = []
    admin = await asyncpg.connect(server_dsn)

    async def make() -> str:
        name = f"skillmem_test_{uuid.uuid4().hex[:12]}"
        await admin.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return with_database(server_dsn, name)

    yield make
    for name in made:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await admin.close()


@pytest.fixture(scope="session")
async def dsn(new_database) -> str:  # type: ignore[no-untyped-def]
    """A migrated database shared by the session."""
    url = await new_database()
    conn = await connect(url)
    await apply_migrations(conn)
    await conn.close()
    return str(url)


@pytest.fixture(scope="session")
async def pool(dsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(dsn, min_size=1, max_size=8)
    yield pool
    await pool.close()


@pytest.fixture(scope="session")
async def api_pool(dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """The app's pool: the login role the service runs as, which owns nothing and holds no
    right until a request's transaction makes it skillmem_app. (``pool`` is the owner's, for
    setting up and inspecting.)"""
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=8)
    yield pool
    await pool.close()


@pytest.fixture(scope="session")
def settings() -> Settings:
    # No Dreamer worker: an app given a pool starts none anyway, and tests that want one start
    # it themselves (tests/gateway/test_worker.py).
    return Settings(database_url=None, introspection=True, worker=False, **NO_OUTSIDE)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
async def client(api_pool: asyncpg.Pool, settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, pool=api_pool)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


@pytest.fixture
async def ws(pool: asyncpg.Pool) -> Workspace:
    """A fresh workspace for one test."""
    return await make_workspace(pool, "Acmecorp")


@pytest.fixture
async def ws2(pool: asyncpg.Pool) -> Workspace:
    """A second, unrelated workspace."""
    return await make_workspace(pool, "Rival")


@pytest.fixture
def stand() -> Iterator[Callable[[datetime], None]]:
    """Stand the one clock (resolvers/common/clock.py) at a given time, as often as a test
    likes; the system clock comes back after the test."""

    def at(when: datetime) -> None:
        clock.set_clock(lambda: when)

    yield at
    clock.set_clock(None)


@pytest.fixture(scope="module")
async def counted(
    dsn: str, settings: Settings
) -> AsyncIterator[tuple[httpx.AsyncClient, list[str]]]:
    """A client on the app as the service runs it (its login role), whose one connection logs
    every statement it sends."""
    pool, statements = await logging_pool(dsn)
    app = create_app(settings, pool=pool)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as client:
        yield client, statements
    await pool.close()


@dataclass
class Cached:
    """An app with a principal cache (db/principal_cache.py) listening on its own connection,
    whose one pooled connection logs every statement; ``now`` is the cache's clock."""

    client: httpx.AsyncClient
    statements: list[str]
    cache: PrincipalCache
    listener: Listener
    now: list[float]
    pool: asyncpg.Pool


@pytest.fixture
async def cached(dsn: str, settings: Settings) -> AsyncIterator[Cached]:
    pool, statements = await logging_pool(dsn)
    listener = Listener(api_dsn(dsn), name=f"principals-test-{uuid.uuid4().hex[:8]}")
    now = [1_000.0]
    cache = PrincipalCache(listener, ttl=5.0, size=100, clock=lambda: now[0])
    await listener.start()
    app = create_app(settings, pool=pool)
    app.state.principals = cache
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as client:
        yield Cached(client, statements, cache, listener, now, pool)
    await listener.stop()
    await pool.close()


@pytest.fixture(scope="module")
def zeros_300mb() -> tuple[bytes, int, int]:
    """A raw deflate stream of 300 MB of zeros (about 300 KB), its size and CRC: one fully
    flushed 1 MB block repeated, which is a valid stream."""
    mb = 1024 * 1024
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(b"\0" * mb) + compressor.flush(zlib.Z_FULL_FLUSH)
    stream = block * 300 + compressor.flush()
    crc, chunk = 0, b"\0" * mb
    for _ in range(300):
        crc = zlib.crc32(chunk, crc)
    return stream, 300 * mb, crc
