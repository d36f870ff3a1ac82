"""The Dreamer's schedule when the tables' owner is an ordinary role (no superuser, no
BYPASSRLS), as on a managed PostgreSQL behind DATABASE_URL: forced row-level security binds the
owner too, and dreamer_due must still see every workspace's waiting items."""

from __future__ import annotations

import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from db.embedded import start_embedded
from db.migrate import apply_migrations
from db.pool import api_dsn

NOON = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)


async def test_an_ordinary_owner_reads_the_schedule_of_every_workspace():
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
        # Two workspaces' items, written past the foreign keys by the superuser.
        root_db = await asyncpg.connect(urlunsplit(urlsplit(root)._replace(path="/plain")))
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
        # As a request's login role, acting as the application role with no workspace.
        api = await asyncpg.connect(api_dsn(owner_dsn))
        async with api.transaction():
            await api.execute("SELECT set_config('role', 'skillmem_app', true)")
            found = await api.fetch(due, NOON + timedelta(minutes=5))
            # The application role itself, with no workspace, still reads no item.
            assert await api.fetchval("SELECT count(*) FROM memory_items") == 0
        await api.close()
        await owner.close()
        assert len(found) == 2
    finally:
        server.cleanup()
