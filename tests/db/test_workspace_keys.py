"""Every key leads with workspace_id (issue 16, item 5): every primary key, unique constraint,
unique index and foreign key of the app's tables starts with the workspace, so the schema can
be distributed by workspace (Citus) or split across servers by workspace. Read from the
catalog after the migrations, so a new table is covered the day it appears."""

from __future__ import annotations

import asyncpg

# Tables that are not per-workspace by nature, each with its reason. Nothing else may have a
# key that does not start with workspace_id.
NOT_PER_WORKSPACE = {
    # The workspaces themselves: their key IS the workspace id (the distribution key).
    "workspaces": "its key is the workspace id",
    # The one lookup made before a workspace is known: a bearer token's hash to its workspace
    # (migration 0031). On Citus a reference table; split across servers, the router's table.
    "token_workspaces": "maps a token to its workspace before any workspace is known",
    # The migrations ledger: one row per migration, for the whole database.
    "schema_migrations": "the migrations ledger, one per database",
    # The job queue library's own tables (pgqueuer, migration 0012): the deployment's queue,
    # not a workspace's; a job's payload names its workspace, and the job runs in it.
    "pgqueuer": "the job queue library's jobs",
    "pgqueuer_log": "the job queue library's log",
    "pgqueuer_schedules": "the job queue library's schedules",
    "pgqueuer_statistics": "the job queue library's statistics",
}

# Keys of the app's tables, one row per (table, key, kind, first column): primary keys,
# unique and foreign-key constraints, and unique indexes that back no constraint.
KEYS = """
SELECT c.relname AS table_name, k.conname AS key_name, k.contype::text AS kind,
       a.attname AS first_column
  FROM pg_constraint k
  JOIN pg_class c ON c.oid = k.conrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
 WHERE n.nspname = ANY($1::text[]) AND k.contype IN ('p', 'u', 'f')
UNION ALL
SELECT c.relname, i.relname, 'unique index', a.attname
  FROM pg_index x
  JOIN pg_class c ON c.oid = x.indrelid
  JOIN pg_class i ON i.oid = x.indexrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
 WHERE n.nspname = ANY($1::text[]) AND x.indisunique
   AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)
ORDER BY 1, 2
"""

# Foreign keys whose referenced key does not start with workspace_id either: a composite key
# (workspace_id, x) -> (workspace_id, x) is what keeps a row and its parent on one shard.
FOREIGN_TARGETS = """
SELECT c.relname AS table_name, k.conname AS key_name, t.relname AS target,
       a.attname AS first_target_column
  FROM pg_constraint k
  JOIN pg_class c ON c.oid = k.conrelid
  JOIN pg_class t ON t.oid = k.confrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = k.confkey[1]
 WHERE n.nspname = ANY($1::text[]) AND k.contype = 'f'
 ORDER BY 1, 2
"""

# The app's tables live in public (the job queue's too); any other schema a migration makes
# is read as well.
APP_SCHEMAS = ["public"]


async def app_schemas(conn: asyncpg.Connection) -> list[str]:
    """public plus any schema a migration created (not PostgreSQL's own)."""
    rows = await conn.fetch(
        "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%'"
        " AND nspname <> 'information_schema'"
    )
    return sorted({r["nspname"] for r in rows} | set(APP_SCHEMAS))


async def test_every_key_starts_with_workspace_id(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        schemas = await app_schemas(conn)
        keys = await conn.fetch(KEYS, schemas)
    assert keys, "the catalog lists no key: the query is wrong"
    offenders = [
        f"{r['table_name']}.{r['key_name']} ({r['kind']}) starts with {r['first_column']}"
        for r in keys
        if r["table_name"] not in NOT_PER_WORKSPACE and r["first_column"] != "workspace_id"
    ]
    assert offenders == [], "\n".join(offenders)


async def test_every_foreign_key_points_at_a_workspace_key(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        foreign = await conn.fetch(FOREIGN_TARGETS, await app_schemas(conn))
    assert foreign, "the catalog lists no foreign key: the query is wrong"
    offenders = [
        f"{r['table_name']}.{r['key_name']} -> {r['target']}({r['first_target_column']}, ...)"
        for r in foreign
        if r["table_name"] not in NOT_PER_WORKSPACE and r["first_target_column"] != "workspace_id"
    ]
    assert offenders == [], "\n".join(offenders)


async def test_the_allow_list_names_only_tables_that_exist(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        names = {r["relname"] for r in await conn.fetch("SELECT relname FROM pg_class")}
    assert set(NOT_PER_WORKSPACE) <= names
