"""The principal cache at the edge (db/principal_cache.py, db/begin.py, migration 0034): a hit
sends the transaction's settings with BEGIN; a revocation, a role changed, a lost LISTEN
connection and the TTL are all seen by the very next request."""

from __future__ import annotations

import asyncio

import pytest

from db.principal_cache import CHANNEL
from gateway.observe.metrics import PRINCIPAL_CACHE
from resolvers.common.principals import token_hash
from tests.factories import gql, split

WAIT_SECONDS = 10.0
WHO = "query { workspace { name } objects { slug permissions { read update } } }"


def rights(response) -> dict[str, dict[str, bool]]:  # type: ignore[no-untyped-def]
    body = response.json()
    assert "errors" not in body, body
    return {o["slug"]: o["permissions"] for o in body["data"]["objects"]}


async def warm(cached, token: str) -> None:  # type: ignore[no-untyped-def]
    """One request to fill the cache, one that hits it."""
    await gql(cached.client, token, WHO)
    hits = cached.cache.hits
    await gql(cached.client, token, WHO)
    assert cached.cache.hits == hits + 1
    assert token_hash(token) in cached.cache.entries


def stale_count() -> float:
    return PRINCIPAL_CACHE.labels("stale")._value.get()  # type: ignore[no-any-return]


async def until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not check():
        assert loop.time() < deadline, what
        await asyncio.sleep(0.02)


async def test_a_hit_sends_the_settings_with_begin(cached, ws):
    token = ws.tokens["member"]
    first = rights(await gql(cached.client, token, WHO))
    cached.statements.clear()
    response = await gql(cached.client, token, WHO)
    assert rights(response) == first
    assert response.json()["data"]["workspace"]["name"] == ws.name
    control, data = split(cached.statements)
    assert not any("app_begin_request" in s for s in cached.statements), cached.statements
    # (a query that only reads: READ ONLY, in the same round trip)
    assert control[0].startswith("BEGIN READ ONLY;"), control
    assert "app_begin_cached" in control[0], control
    assert str(ws.id) in control[0]
    assert token_hash(token) not in " ".join(cached.statements)  # ids only in statement text
    assert control[1:] == ["COMMIT;"]
    assert len(data) == 2, data  # the workspace and the objects: the app's own statements


async def test_a_revocation_is_seen_by_the_next_request(cached, ws, pool):
    token = ws.tokens["viewer"]
    await warm(cached, token)
    async with pool.acquire() as conn:
        await conn.execute(
            "UPDATE tokens SET revoked_at = now() WHERE token_hash = $1", token_hash(token)
        )
    # No waiting for the NOTIFY: the very next request is refused.
    response = await gql(cached.client, token, WHO)
    assert response.status_code == 401
    await until(lambda: token_hash(token) not in cached.cache.entries, "never dropped")


async def test_a_revocation_is_seen_even_when_its_notify_is_not(cached, ws, pool):
    token = ws.tokens["other"]
    await warm(cached, token)
    heard = cached.listener.channels.pop(CHANNEL)  # the NOTIFY goes unheard from here on
    stale = stale_count()
    async with pool.acquire() as conn:
        await conn.execute(
            "UPDATE tokens SET revoked_at = now() WHERE token_hash = $1", token_hash(token)
        )
    await asyncio.sleep(0.2)
    assert token_hash(token) in cached.cache.entries  # still there: nobody said
    response = await gql(cached.client, token, WHO)
    assert response.status_code == 401  # app_begin_cached refused it in the transaction
    assert token_hash(token) not in cached.cache.entries
    assert cached.cache.dropped >= 1
    assert stale_count() == stale + 1
    cached.listener.channels[CHANNEL] = heard


async def test_a_role_change_is_seen_by_the_next_request(cached, ws, pool):
    token = ws.tokens["member"]
    await warm(cached, token)
    assert rights(await gql(cached.client, token, WHO))["companies"]["update"] is True
    async with pool.acquire() as conn:
        await conn.execute(
            "UPDATE members SET role_id = $1 WHERE workspace_id = $2 AND id = $3",
            ws.roles["viewer"],
            ws.id,
            ws.members["member"],
        )
    assert rights(await gql(cached.client, token, WHO))["companies"]["update"] is False


async def test_a_right_withdrawn_is_seen_by_the_next_request(cached, ws, pool):
    token = ws.tokens["api_key"]
    await warm(cached, token)
    assert rights(await gql(cached.client, token, WHO))["companies"]["read"] is True
    async with pool.acquire() as conn:
        await conn.execute(
            "UPDATE role_permissions SET can_read = false WHERE workspace_id = $1 AND role_id = $2",
            ws.id,
            ws.roles["integration"],
        )
    assert "companies" not in rights(await gql(cached.client, token, WHO))


async def test_an_entry_ends_with_its_ttl(cached, ws):
    token = ws.tokens["admin"]
    await warm(cached, token)
    cached.now[0] += 4.9
    cached.statements.clear()
    await gql(cached.client, token, WHO)
    assert not any("app_begin_request" in s for s in cached.statements)
    cached.now[0] += 0.2
    cached.statements.clear()
    await gql(cached.client, token, WHO)
    assert any("app_begin_request" in s for s in cached.statements), cached.statements


async def test_nothing_is_served_while_the_listen_connection_is_lost(cached, ws, pool):
    token = ws.tokens["admin"]
    await warm(cached, token)
    first = cached.listener.connections
    async with pool.acquire() as conn:
        ended = await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = $1",
            cached.listener.name,
        )
    assert ended == 1
    await until(lambda: not cached.listener.listening.is_set(), "the loss went unnoticed")
    if cached.listener.connections == first:  # not back yet: no hit, nothing kept
        hits = cached.cache.hits
        await gql(cached.client, token, WHO)
        assert cached.cache.hits == hits
    await until(lambda: cached.listener.connections > first, "never listened again")
    # Back: what was read before is not served (a notification may have been missed) ...
    cached.statements.clear()
    await gql(cached.client, token, WHO)
    assert any("app_begin_request" in s for s in cached.statements)
    # ... what is read now is.
    cached.statements.clear()
    await gql(cached.client, token, WHO)
    assert not any("app_begin_request" in s for s in cached.statements)


async def test_two_workspaces_never_share_an_entry(cached, ws, ws2, pool):
    for space in (ws, ws2):
        await warm(cached, space.tokens["member"])
    for space in (ws, ws2):
        response = await gql(cached.client, space.tokens["member"], WHO)
        assert response.json()["data"]["workspace"]["name"] == space.name
        entry = cached.cache.entries[token_hash(space.tokens["member"])]
        assert entry.row.workspace_id == space.id
    # A change in one workspace drops its entries only.
    async with pool.acquire() as conn:
        await conn.execute("UPDATE workspaces SET name = 'Renamed' WHERE workspace_id = $1", ws.id)
    await until(
        lambda: token_hash(ws.tokens["member"]) not in cached.cache.entries, "never dropped"
    )
    assert token_hash(ws2.tokens["member"]) in cached.cache.entries
    response = await gql(cached.client, ws.tokens["member"], WHO)
    assert response.json()["data"]["workspace"]["name"] == "Renamed"


@pytest.mark.parametrize("who", ["member", "agent", "api_key", "mcp_client"])
async def test_a_hit_answers_as_a_miss_does(cached, ws, who):
    token = ws.tokens[who]
    miss = await gql(cached.client, token, WHO)
    hit = await gql(cached.client, token, WHO)
    assert cached.cache.hits == 1
    assert hit.json() == miss.json()


async def test_a_hit_with_the_database_gone_answers_db_unavailable(cached, ws):
    token = ws.tokens["member"]
    await warm(cached, token)
    await cached.pool.close()
    response = await gql(cached.client, token, WHO)
    assert response.status_code == 503
    assert response.json()["errors"][0]["extensions"]["code"] == "DB_UNAVAILABLE"
