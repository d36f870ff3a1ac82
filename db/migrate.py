"""Forward-only SQL migrations, applied in order under an advisory lock and recorded."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

import asyncpg

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# Any constant shared by every replica; two processes migrating at once serialize on it.
MIGRATION_LOCK_KEY = 0x736B696C6C6D656D  # "skillmem"


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Every migration file, in version order."""
    found = []
    for path in sorted(directory.glob("[0-9][0-9][0-9][0-9]_*.sql")):
        version = int(path.name[:4])
        found.append(Migration(version, path.stem[5:], path.read_text()))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two migrations share a version in {directory}")
    return found


async def apply_migrations(conn: asyncpg.Connection) -> list[int]:
    """Apply the migrations not yet recorded; return the versions applied by this call."""
    applied_now: list[int] = []
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK_KEY)
    try:
        await conn.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
        done = {
            row["version"]: row["checksum"]
            for row in await conn.fetch("SELECT version, checksum FROM schema_migrations")
        }
        for migration in migrations():
            if migration.version in done:
                if done[migration.version] != migration.checksum:
                    log.warning("migration %04d changed after it was applied", migration.version)
                continue
            async with conn.transaction():
                await conn.execute(migration.sql)
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                    migration.version,
                    migration.name,
                    migration.checksum,
                )
            log.info("applied migration %04d_%s", migration.version, migration.name)
            applied_now.append(migration.version)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK_KEY)
    return applied_now
