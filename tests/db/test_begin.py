"""A transaction begun with its settings (db/begin.py): the same settings as app_begin_request,
and asyncpg's transaction as usual around them (savepoints, rollback, read only, release)."""

from __future__ import annotations

import asyncpg
import pytest

from db import identity
from db.begin import begun
from db.principal_cache import prelude
from resolvers.common.principals import token_hash

SETTINGS = """
SELECT current_user AS who, current_setting('role') AS role,
       current_setting('app.workspace_id', true) AS workspace,
       current_setting('app.token_hash', true) AS token_hash,
       current_setting('transaction_read_only') AS read_only
"""


async def resolved(api_pool, token: str) -> tuple[identity.PrincipalRow, int]:
    async with api_pool.acquire() as conn, conn.transaction():
        found = await identity.begin_request_generation(conn, token_hash(token))
    assert found is not None and found[1] is not None
    return found[0], found[1]


@pytest.mark.parametrize("who", ["admin", "agent", "api_key", "mcp_client"])
async def test_the_settings_are_those_of_app_begin_request(api_pool, ws, who):
    token = ws.tokens[who]
    async with api_pool.acquire() as conn, conn.transaction():
        await identity.begin_request(conn, token_hash(token))
        expected = dict(await conn.fetchrow(SETTINGS))
    row, generation = await resolved(api_pool, token)
    async with api_pool.acquire() as conn:
        transaction = begun(conn, prelude(row.workspace_id, row.token_id, generation))
        async with transaction:
            assert not transaction.stale
            assert dict(await conn.fetchrow(SETTINGS)) == expected
    assert expected["workspace"] == str(ws.id) and expected["who"] == "skillmem_app"


async def test_a_stale_principal_begins_plain(api_pool, ws):
    token = ws.tokens["member"]
    row, generation = await resolved(api_pool, token)
    async with api_pool.acquire() as conn:
        transaction = begun(conn, prelude(row.workspace_id, row.token_id, generation + 1))
        async with transaction:
            assert transaction.stale
            assert conn.is_in_transaction()
            settings = await conn.fetchrow(SETTINGS)
            assert settings["workspace"] in (None, "") and settings["who"] != "skillmem_app"
            assert await identity.begin_request(conn, token_hash(token)) is not None
        assert not conn.is_in_transaction()


async def test_a_token_of_another_workspace_is_stale(api_pool, ws, ws2):
    row, generation = await resolved(api_pool, ws.tokens["member"])
    theirs, generation = await resolved(api_pool, ws2.tokens["member"])
    async with api_pool.acquire() as conn:
        # The entry of one workspace's token, with the other workspace's id: refused.
        transaction = begun(conn, prelude(theirs.workspace_id, row.token_id, generation))
        async with transaction:
            assert transaction.stale


async def test_savepoints_rollback_and_release_behave(api_pool, pool, ws):
    token = ws.tokens["admin"]
    row, generation = await resolved(api_pool, token)
    text = prelude(row.workspace_id, row.token_id, generation)
    async with api_pool.acquire() as conn:
        with pytest.raises(RuntimeError):
            async with begun(conn, text):
                async with conn.transaction():  # a savepoint inside
                    await conn.execute("UPDATE workspaces SET name = 'Inner'")
                await conn.execute("UPDATE workspaces SET name = 'Outer'")
                raise RuntimeError("the request failed")
        assert not conn.is_in_transaction()
        async with begun(conn, text):
            with pytest.raises(asyncpg.PostgresError):
                async with conn.transaction():
                    await conn.execute("SELECT 1 / 0")
            assert await conn.fetchval("SELECT name FROM workspaces") == ws.name
    async with pool.acquire() as owner:
        name = await owner.fetchval("SELECT name FROM workspaces WHERE workspace_id = $1", ws.id)
    assert name == ws.name


async def test_read_only_refuses_writes(api_pool, ws):
    token = ws.tokens["admin"]
    row, generation = await resolved(api_pool, token)
    async with api_pool.acquire() as conn:
        with pytest.raises(asyncpg.ReadOnlySQLTransactionError):
            async with begun(conn, prelude(row.workspace_id, row.token_id, generation), True):
                assert (await conn.fetchrow(SETTINGS))["read_only"] == "on"
                await conn.execute("UPDATE workspaces SET name = 'Nope'")
        assert not conn.is_in_transaction()


async def test_a_failing_begin_leaves_the_connection_usable(api_pool, ws):
    async with api_pool.acquire() as conn:
        with pytest.raises(asyncpg.DivisionByZeroError):
            async with begun(conn, "SELECT 1 / 0;"):
                pass
    async with api_pool.acquire() as conn:
        assert not conn.is_in_transaction()
        async with conn.transaction():
            assert await conn.fetchval("SELECT 1") == 1


def test_the_prelude_takes_checked_values_only(ws):
    with pytest.raises(ValueError):
        prelude(ws.id, "'; DROP TABLE tokens; --", 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        prelude(str(ws.id), ws.id, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        prelude(ws.id, ws.id, "1); DROP TABLE tokens; --")  # type: ignore[arg-type]
