"""A token finds its workspace through token_workspaces (migration 0031), the one table read
before a workspace is known; tokens is keyed by workspace like every other table. The
migration keeps every token already issued working."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import asyncpg
import pytest

from db import identity, migrate
from db.migrate import apply_migrations, migrations
from db.pool import connect
from resolvers.common.principals import new_token, principal_for_token, token_hash

TOKEN_WORKSPACES = 31


async def old_workspace(conn: asyncpg.Connection, name: str) -> tuple[uuid.UUID, str, str]:
    """A workspace, a member and two tokens written as the schema before 0031 stood (the
    second one revoked): the workspace and the tokens' texts."""
    workspace, role, member = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    live, revoked = new_token(), new_token()
    async with conn.transaction():
        await conn.execute("SELECT set_config('app.workspace_id', $1, true)", str(workspace))
        await conn.execute(
            "INSERT INTO workspaces (workspace_id, name) VALUES ($1, $2)", workspace, name
        )
        await conn.execute(
            "INSERT INTO roles (workspace_id, id, name) VALUES ($1, $2, 'admin')", workspace, role
        )
        await conn.execute(
            "INSERT INTO members (workspace_id, id, name, email, role_id)"
            " VALUES ($1, $2, $3, $4, $5)",
            workspace,
            member,
            name,
            f"{name.lower()}@example.com",
            role,
        )
        for text, revoked_at in ((live, None), (revoked, datetime.now(UTC))):
            await conn.execute(
                "INSERT INTO tokens (workspace_id, id, token_hash, kind, member_id, purpose,"
                " revoked_at) VALUES ($1, $2, $3, 'member', $4, 'test', $5)",
                workspace,
                uuid.uuid4(),
                token_hash(text),
                member,
                revoked_at,
            )
    return workspace, live, revoked


async def test_tokens_issued_before_the_migration_still_open_their_workspace(
    new_database, monkeypatch
):
    conn = await connect(await new_database())
    try:
        before = [m for m in migrations() if m.version < TOKEN_WORKSPACES]
        monkeypatch.setattr(migrate, "migrations", lambda: before)
        await apply_migrations(conn)
        ours = await old_workspace(conn, "Ours")
        theirs = await old_workspace(conn, "Theirs")
        monkeypatch.undo()
        assert TOKEN_WORKSPACES in await apply_migrations(conn)

        for workspace, live, revoked in (ours, theirs):
            async with conn.transaction():
                principal = await principal_for_token(conn, live)
                assert principal is not None and principal.workspace_id == workspace
                assert await conn.fetchval("SELECT app_workspace_id()") == workspace
            async with conn.transaction():
                assert await principal_for_token(conn, revoked) is None
                # A revoked token leaves no workspace set behind it.
                assert await conn.fetchval("SELECT app_workspace_id()") is None
        both = await conn.fetch("SELECT workspace_id FROM token_workspaces")
        assert sorted(r["workspace_id"] for r in both) == sorted([ours[0]] * 2 + [theirs[0]] * 2)
    finally:
        await conn.close()


async def test_a_new_token_is_found_by_its_hash_and_its_hash_is_unique(pool, ws, ws2):
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT app_begin_workspace($1)", ws.id)
        row = await conn.fetchrow(
            "SELECT workspace_id FROM token_workspaces WHERE token_hash = $1",
            token_hash(ws.tokens["viewer"]),
        )
        assert row is not None and row["workspace_id"] == ws.id
        # Another workspace's hashes are not readable here.
        assert (
            await conn.fetchval(
                "SELECT count(*) FROM token_workspaces WHERE token_hash = $1",
                token_hash(ws2.tokens["viewer"]),
            )
            == 0
        )
    # The same hash cannot be issued twice, even in another workspace.
    with pytest.raises(asyncpg.UniqueViolationError):
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT app_begin_workspace($1)", ws2.id)
            await identity.insert_token(
                conn,
                uuid.uuid4(),
                token_hash(ws.tokens["viewer"]),
                "member",
                member_id=ws2.members["viewer"],
            )
