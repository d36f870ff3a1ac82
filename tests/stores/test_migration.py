"""Migration 0026 gives every workspace that existed before it the native `memory_store`
object, with the standard roles' usual rights on it (as a new workspace gets them)."""

from __future__ import annotations

from db import migrate
from db.migrate import apply_migrations, migrations
from db.pool import connect
from resolvers.records import workspaces


async def test_workspaces_made_before_0026_get_the_memory_store_object(new_database, monkeypatch):
    url = await new_database()
    every = migrations()
    monkeypatch.setattr(migrate, "migrations", lambda: [m for m in every if m.version < 26])
    before = tuple(o for o in workspaces.NATIVE_OBJECTS if o[0] != "memory_store")
    monkeypatch.setattr(workspaces, "NATIVE_OBJECTS", before)
    conn = await connect(url)
    try:
        await apply_migrations(conn)
        async with conn.transaction():
            made = await workspaces.create_workspace(conn, "Older")
        monkeypatch.setattr(migrate, "migrations", lambda: every)
        assert 26 in await apply_migrations(conn)
        rights = await conn.fetch(
            "SELECT r.name, p.can_read, p.can_create, p.can_update, p.can_delete"
            "  FROM role_permissions p JOIN roles r ON r.workspace_id = p.workspace_id"
            "   AND r.id = p.role_id JOIN objects o ON o.workspace_id = p.workspace_id"
            "   AND o.id = p.object_id"
            " WHERE o.slug = 'memory_store' AND o.kind = 'memory_store' AND p.workspace_id = $1"
            " ORDER BY r.name",
            made.workspace_id,
        )
        assert [tuple(r) for r in rights] == [
            ("admin", True, True, True, True),
            ("member", True, True, True, False),
            ("viewer", True, False, False, False),
        ]
    finally:
        await conn.close()
