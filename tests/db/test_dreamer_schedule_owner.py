"""The schedules when the tables' owner is an ordinary role (no superuser, no BYPASSRLS), as on
a managed PostgreSQL behind DATABASE_URL: forced row-level security binds the owner too, and
dreamer_due must still see every workspace's waiting items, consolidation_due every
workspace's pages, versions, runs, spend and settings."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from db.embedded import start_embedded
from db.migrate import apply_migrations
from db.pool import api_dsn

NOON = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
async def plain() -> AsyncIterator[tuple[str, str]]:
    """A database owned and migrated by an ordinary role: the superuser's DSN to it (to write
    rows past the foreign keys) and the owner's."""
    folder = Path(tempfile.mkdtemp(prefix="skillmem-owner-"))
    server = start_embedded(folder / "pgdata", cleanup_mode="delete")
    try:
        root = server.get_uri()
        admin = await asyncpg.connect(root)
        await admin.execute("CREATE ROLE plain_owner LOGIN CREATEROLE NOSUPERUSER NOBYPASSRLS")
        await admin.execute("CREATE DATABASE plain OWNER plain_owner")
        await admin.close()
        parts = urlsplit(root)
        host = parts.netloc.rpartition("@")[2]
        owner_dsn = urlunsplit(parts._replace(netloc=f"plain_owner@{host}", path="/plain"))
        owner = await asyncpg.connect(owner_dsn)
        await apply_migrations(owner)
        await owner.close()
        yield urlunsplit(urlsplit(root)._replace(path="/plain")), owner_dsn
    finally:
        server.cleanup()


async def as_app(owner_dsn: str, sql: str, *args: object) -> list[asyncpg.Record]:
    """``sql`` as a request's login role acting as the application role with no workspace."""
    api = await asyncpg.connect(api_dsn(owner_dsn))
    try:
        async with api.transaction():
            await api.execute("SELECT set_config('role', 'skillmem_app', true)")
            return await api.fetch(sql, *args)
    finally:
        await api.close()


async def test_an_ordinary_owner_reads_the_schedule_of_every_workspace(plain):
    root, owner_dsn = plain
    # Two workspaces' items, written past the foreign keys by the superuser.
    root_db = await asyncpg.connect(root)
    await root_db.execute("SET session_replication_role = replica")
    for workspace in (uuid.uuid4(), uuid.uuid4()):
        await root_db.execute(
            "INSERT INTO memory_items (workspace_id, id, kind, proposal_id, owner_kind,"
            " payer_kind, share_with_team, urgent, said_at, arrived_at)"
            " VALUES ($1, $2, 'proposal', $3, 'workspace', 'workspace', false, true, $4, $4)",
            workspace,
            uuid.uuid4(),
            uuid.uuid4(),
            NOON,
        )
    await root_db.close()
    due = "SELECT * FROM dreamer_due($1, interval '1 hour', interval '5 minutes', 20)"
    found = await as_app(owner_dsn, due, NOON + timedelta(minutes=5))
    # The application role itself, with no workspace, still reads no item.
    assert await as_app(owner_dsn, "SELECT * FROM memory_items") == []
    assert len(found) == 2


async def test_an_ordinary_owner_reads_what_consolidation_is_due_for(plain):
    root, owner_dsn = plain
    never, week, no_credits, spent = (uuid.uuid4() for _ in range(4))
    root_db = await asyncpg.connect(root)
    await root_db.execute("SET session_replication_role = replica")
    for workspace in (never, week, no_credits, spent):
        page = uuid.uuid4()
        await root_db.execute(
            "INSERT INTO memory_pages (workspace_id, id, about_kind, version)"
            " VALUES ($1, $2, 'workspace', 1)",
            workspace,
            page,
        )
        await root_db.execute(
            "INSERT INTO memory_versions (workspace_id, page_id, number, id, operation,"
            " actor_kind, actor_name, lines, content_sha256, created_at)"
            " VALUES ($1, $2, 1, $3, 'created', 'system', 'memory',"
            ' \'[{"kind": "souvenir", "text": "We sell boats"}]\', repeat(\'0\', 64), $4)',
            workspace,
            page,
            uuid.uuid4(),
            NOON - timedelta(days=3),
        )
        if workspace != never:
            # Consolidated under the current rules eight days ago; written since.
            await root_db.execute(
                "INSERT INTO memory_cleanups (workspace_id, id, kind, audience_kind, trigger,"
                " rules_version, reader, started_at, finished_at)"
                " VALUES ($1, $2, 'consolidation', 'workspace', 'rules', 1, 'rules', $3, $3)",
                workspace,
                uuid.uuid4(),
                NOON - timedelta(days=8),
            )
    await root_db.execute(
        "INSERT INTO workspace_settings (workspace_id, ai_credits) VALUES ($1, false)", no_credits
    )
    await root_db.execute(
        "INSERT INTO memory_spend (workspace_id, payer_kind, month, cost_usd)"
        " VALUES ($1, 'workspace', '2026-11-01', 5)",
        spent,
    )
    await root_db.close()
    due = (
        "SELECT workspace_id, trigger FROM consolidation_due($1, 1, 4000, interval '6 hours',"
        " interval '7 days', 1, 5)"
    )
    found = {row["workspace_id"]: row["trigger"] for row in await as_app(owner_dsn, due, NOON)}
    assert found == {never: "rules", week: "week"}
    # The application role itself, with no workspace, still reads no page.
    assert await as_app(owner_dsn, "SELECT * FROM memory_pages") == []
