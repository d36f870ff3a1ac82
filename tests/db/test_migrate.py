"""Forward-only migrations: applied in order, recorded once, serialized between processes."""

from __future__ import annotations

import asyncio
import logging
import re

import asyncpg
import pytest

from db import migrate
from db.migrate import MIGRATION_LOCK_KEY, MIGRATIONS_DIR, Migration, apply_migrations, migrations
from db.pool import connect


async def recorded(conn: asyncpg.Connection) -> list[tuple[int, str, str]]:
    rows = await conn.fetch(
        "SELECT version, name, checksum FROM schema_migrations ORDER BY applied_at, version"
    )
    return [(r["version"], r["name"], r["checksum"]) for r in rows]


def expected() -> list[tuple[int, str, str]]:
    return [(m.version, m.name, m.checksum) for m in migrations()]


def test_migration_files_are_named_and_numbered_in_order():
    files = sorted(p.name for p in MIGRATIONS_DIR.glob("*.sql"))
    assert files, "no migrations found"
    for name in files:
        assert re.fullmatch(r"[0-9]{4}_[a-z0-9_]+\.sql", name), name
    found = migrations()
    # Every .sql file is picked up: none is skipped for a near-miss name.
    assert [f"{m.version:04d}_{m.name}.sql" for m in found] == files
    versions = [m.version for m in found]
    assert all(a < b for a, b in zip(versions, versions[1:], strict=False))
    assert versions[0] == 1
    assert all(m.sql.strip() for m in found)


def test_two_migrations_sharing_a_version_are_refused(tmp_path):
    (tmp_path / "0001_a.sql").write_text("SELECT 1;")
    (tmp_path / "0001_b.sql").write_text("SELECT 2;")
    with pytest.raises(RuntimeError, match="share a version"):
        migrations(tmp_path)


def test_files_not_shaped_like_migrations_are_ignored(tmp_path):
    (tmp_path / "0002_second.sql").write_text("SELECT 2;")
    (tmp_path / "0001_first.sql").write_text("SELECT 1;")
    (tmp_path / "notes.sql").write_text("SELECT 3;")
    (tmp_path / "0003_third.txt").write_text("SELECT 3;")
    assert [(m.version, m.name) for m in migrations(tmp_path)] == [(1, "first"), (2, "second")]


async def test_a_fresh_database_gets_every_migration_in_order(new_database):
    conn = await connect(await new_database())
    try:
        applied = await apply_migrations(conn)
        assert applied == [m.version for m in migrations()]
        assert await recorded(conn) == expected()
        # The schema is really there, and nothing is left locked.
        assert await conn.fetchval("SELECT to_regclass('records') IS NOT NULL")
        assert await conn.fetchval("SELECT to_regprocedure('app_begin_request(text)') IS NOT NULL")
        held = await conn.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
        )
        assert held == 0

        again = await apply_migrations(conn)
        assert again == []
        assert await recorded(conn) == expected()
    finally:
        await conn.close()


async def test_concurrent_migrations_apply_each_version_once(new_database):
    url = await new_database()
    first, second = await connect(url), await connect(url)
    try:
        results = await asyncio.gather(apply_migrations(first), apply_migrations(second))
        versions = [m.version for m in migrations()]
        assert sorted(results[0] + results[1]) == versions
        # One of them did the work; the other found it done.
        assert sorted(results, key=len) == [[], versions]
        rows = await first.fetch("SELECT version FROM schema_migrations ORDER BY version")
        assert [r["version"] for r in rows] == versions
    finally:
        await first.close()
        await second.close()


async def test_a_failing_migration_is_not_recorded_and_releases_the_lock(new_database, monkeypatch):
    url = await new_database()
    good = migrations()
    broken = Migration(good[-1].version + 1, "broken", "CREATE TABLE t (x int); SELECT 1/0;")
    monkeypatch.setattr(migrate, "migrations", lambda: [*good, broken])
    conn, other = await connect(url), await connect(url)
    try:
        with pytest.raises(asyncpg.DivisionByZeroError):
            await apply_migrations(conn)
        # The good ones stay applied; the broken one left nothing behind.
        assert [r[0] for r in await recorded(conn)] == [m.version for m in good]
        assert await conn.fetchval("SELECT to_regclass('t')") is None
        # The lock is free for the next process.
        assert await other.fetchval("SELECT pg_try_advisory_lock($1)", MIGRATION_LOCK_KEY)
        await other.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK_KEY)

        fixed = Migration(broken.version, "fixed", "CREATE TABLE t (x int);")
        monkeypatch.setattr(migrate, "migrations", lambda: [*good, fixed])
        assert await apply_migrations(conn) == [fixed.version]
        assert await conn.fetchval("SELECT to_regclass('t') IS NOT NULL")
    finally:
        await conn.close()
        await other.close()


async def test_a_changed_migration_is_reported_not_reapplied(new_database, caplog):
    conn = await connect(await new_database())
    try:
        await apply_migrations(conn)
        await conn.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")
        with caplog.at_level(logging.WARNING, logger="db.migrate"):
            assert await apply_migrations(conn) == []
        assert any("0001 changed" in r.getMessage() for r in caplog.records)
    finally:
        await conn.close()
