"""What was lost, doubled or seen across workspaces, read from the database itself: each
acknowledged write against the rows, each workspace's tables hashed, and every table read as
the application role inside one workspace for the other's rows."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any
from uuid import UUID

import asyncpg

from bench.soak.tenants import Tenant
from bench.soak.traffic import Ledger
from db.pool import api_dsn, begin_workspace, connect
from resolvers.common import ids

# The tables the workload writes (and the workers' jobs: the Dreamer's passes over its messages,
# the periodic consolidation); a memory store is a record, made once by the run and touched by
# its memories' writes.
WRITTEN = {
    "memory_stores",
    "store_memories",
    "store_memory_versions",
    "conversations",
    "conversation_messages",
    "memory_items",
    "memory_passes",
    "memory_verdicts",
    "memory_spend",
    "memory_pages",
    "memory_lines",
    "memory_versions",
    "records",
    "record_changes",
    # The workers' periodic consolidation (every 15 minutes, gateway/worker/periodic.py)
    # records its run of each workspace.
    "memory_cleanups",
}

WORKSPACE_TABLES = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname
"""

# A table's rows of one workspace, hashed in a stable order ("TABLE": a name from the catalog).
HASH_ROWS = """SELECT md5(coalesce(string_agg(t::text, chr(10) ORDER BY t::text), ''))
FROM "TABLE" t WHERE workspace_id = $1"""
# A table's rows of other workspaces, and of one's own, as the application role sees them.
COUNT_ROWS = """SELECT count(*) FILTER (WHERE workspace_id = ANY($1::uuid[])) AS other,
count(*) FILTER (WHERE workspace_id = $2) AS own
FROM "TABLE"
"""


async def workspace_tables(conn: asyncpg.Connection) -> list[str]:
    return [row["relname"] for row in await conn.fetch(WORKSPACE_TABLES)]


async def table_hashes(dsn: str, workspace: UUID) -> dict[str, str]:
    """Each workspace table's rows of ``workspace``, hashed in a stable order."""
    conn = await connect(dsn)
    try:
        found = {}
        for table in await workspace_tables(conn):
            digest = await conn.fetchval(HASH_ROWS.replace("TABLE", table), workspace)
            found[table] = str(digest)
        return found
    finally:
        await conn.close()


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(t for t in after if before.get(t) != after[t])


def digest(items: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(sorted(items)).encode()).hexdigest()[:16]


async def ledger_check(dsn: str, tenants: Sequence[Tenant], ledger: Ledger) -> dict[str, Any]:
    """Per workspace: the acknowledged writes against the rows (lost, doubled, beyond the
    unsure ones), and the hash of what should be there against the hash of what is."""
    conn = await connect(dsn)
    try:
        return {t.ws.name: await _one_ledger(conn, t, ledger) for t in tenants}
    finally:
        await conn.close()


async def _one_ledger(conn: asyncpg.Connection, tenant: Tenant, ledger: Ledger) -> dict[str, Any]:
    paths = [
        r["path"]
        for r in await conn.fetch(
            "SELECT path FROM store_memories WHERE workspace_id = $1 AND path LIKE '/soak/%'",
            tenant.id,
        )
    ]
    messages = [
        r["external_id"]
        for r in await conn.fetch(
            "SELECT external_id FROM conversation_messages WHERE workspace_id = $1"
            " AND external_id LIKE 'm-%'",
            tenant.id,
        )
    ]
    page = ids.decode(tenant.profile_page, "MemoryPage", tenant.id)
    versions = [
        str(r["lines"])
        for r in await conn.fetch(
            "SELECT lines FROM memory_versions WHERE workspace_id = $1 AND page_id = $2",
            tenant.id,
            page,
        )
    ]
    acked_paths = ledger.paths.get(tenant.id, set())
    acked_messages = ledger.messages.get(tenant.id, set())
    acked_edits = ledger.edits.get(tenant.id, [])
    edit_hits = {n: sum(f"Soak edit {n} " in v for v in versions) for n in acked_edits}
    return {
        "acknowledged": len(acked_paths) + len(acked_messages) + len(acked_edits),
        "lost": len(acked_paths - set(paths))
        + len(acked_messages - set(messages))
        + sum(1 for hits in edit_hits.values() if hits == 0),
        "doubled": (len(paths) - len(set(paths)))
        + (len(messages) - len(set(messages)))
        + sum(hits - 1 for hits in edit_hits.values() if hits > 1),
        "stored_beyond_acknowledged": len(set(paths) - acked_paths)
        + len(set(messages) - acked_messages),
        "expected_hash": digest([*acked_paths, *acked_messages]),
        "stored_hash": digest([*paths, *messages]),
    }


async def cross_visible(dsn: str, reader: UUID, others: Sequence[UUID]) -> dict[str, Any]:
    """Rows of ``others`` each table shows the application role inside ``reader``'s workspace
    (a table the role may not read shows none), and how many of its own rows it sees (the check
    is not blind)."""
    conn = await connect(api_dsn(dsn))
    seen: dict[str, int] = {}
    own = 0
    try:
        tables = await workspace_tables(conn)
        async with conn.transaction():
            await begin_workspace(conn, reader)
            for table in tables:
                try:
                    async with conn.transaction():
                        query = COUNT_ROWS.replace("TABLE", table)
                        row = await conn.fetchrow(query, list(others), reader)
                        assert row is not None
                except asyncpg.InsufficientPrivilegeError:
                    continue
                own += int(row["own"])
                if row["other"]:
                    seen[table] = int(row["other"])
    finally:
        await conn.close()
    return {"other_rows": sum(seen.values()), "by_table": seen, "own_rows_seen": own}


def total(found: dict[str, Any], key: str) -> int:
    return sum(int(v[key]) for v in found.values())
