"""Memory pages through the API (DESIGN §5): history, rollback and redaction, optimistic
concurrency."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import asyncpg
import orjson
import pytest

from resolvers.common import ids
from resolvers.common.principals import token_hash
from tests.factories import codes, gql, make_page
from tests.memory.pages_api import field, when

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
FRENCH = "- Prefers French — Claire, 2026-01-02 [préférence]"
LYON = "- Works from Lyon — Claire, 2026-01-02 [relation]"
TEA = "- Drinks tea at ten — Claire, 2026-01-03 [préférence]"

PAGE = """id content contentSha256 version trashed souvenirs { key line human }"""
VERSION = """id pageId number operation actorKind actorName sessionId rolledBackFrom content
  contentSha256 redacted redactedAt createdAt"""
READ_PAGE = f"query($id: ID!) {{ memoryPage(id: $id) {{ {PAGE} }} }}"
EDIT = f"""mutation($p: ID!, $c: String!, $b: String) {{
  editMemoryPage(pageId: $p, content: $c, baseSha256: $b) {{ {PAGE} }}
}}"""
DELETE_SOUVENIR = f"""mutation($p: ID!, $k: String!) {{
  deleteSouvenir(pageId: $p, key: $k) {{ {PAGE} }}
}}"""
RESTORE = f"mutation($p: ID!) {{ restoreMemoryPage(pageId: $p) {{ {PAGE} }} }}"
ROLLBACK = f"mutation($v: ID!) {{ rollbackMemoryPage(versionId: $v) {{ {PAGE} }} }}"
REDACT = f"mutation($v: ID!) {{ redactMemoryVersion(versionId: $v) {{ {VERSION} }} }}"
VERSIONS = f"""query($p: ID!, $first: Int, $before: Int) {{
  memoryVersions(pageId: $p, first: $first, before: $before) {{ {VERSION} }}
}}"""
ONE_VERSION = f"query($id: ID!) {{ memoryVersion(id: $id) {{ {VERSION} }} }}"


async def profile(pool, ws, content: str, who: str = "member") -> str:
    """A member's profile written by the workspace (as the Dreamer will)."""
    return await make_page(pool, ws, "member", ws.members[who], content, name=who.title())


async def read(client, token, page_id):
    return field(await gql(client, token, READ_PAGE, {"id": page_id}), "memoryPage")


async def history(client, token, page_id, first=20, before=None):
    variables = {"p": page_id, "first": first, "before": before}
    return field(await gql(client, token, VERSIONS, variables), "memoryVersions")


async def session_of(pool: asyncpg.Pool, ws, who: str) -> str:
    """The global id of the session (token) a principal's requests come from."""
    async with pool.acquire() as conn:
        token_id = await conn.fetchval(
            "SELECT id FROM tokens WHERE token_hash = $1", token_hash(ws.tokens[who])
        )
    return ws.gid(token_id, "Session")


def keys(page: dict[str, Any]) -> list[str]:
    return [s["key"] for s in page["souvenirs"]]


# History ------------------------------------------------------------------------------------


async def test_every_mutation_is_a_version_with_who_when_and_from_which_session(
    client, pool, ws, stand
):
    token = ws.tokens["member"]
    session = await session_of(pool, ws, "member")
    times = [T0 + timedelta(minutes=n) for n in range(6)]

    stand(times[0])
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    created = await read(client, token, page_id)
    assert created["content"] == f"{FRENCH}\n{LYON}" and created["version"] == 1
    first_keys = keys(created)

    stand(times[1])
    edited = field(
        await gql(client, token, EDIT, {"p": page_id, "c": f"{FRENCH}\n- Likes tea [préférence]"}),
        "editMemoryPage",
    )
    assert edited["version"] == 2
    assert edited["souvenirs"][0]["key"] == first_keys[0]
    assert edited["souvenirs"][1]["line"] == "- Likes tea — Member, 2026-03-02 [préférence] ✍"

    stand(times[2])
    deleted_one = field(
        await gql(client, token, DELETE_SOUVENIR, {"p": page_id, "k": first_keys[0]}),
        "deleteSouvenir",
    )
    assert deleted_one["version"] == 3 and len(deleted_one["souvenirs"]) == 1
    tea_key = deleted_one["souvenirs"][0]["key"]

    stand(times[3])
    emptied = field(await gql(client, token, EDIT, {"p": page_id, "c": ""}), "editMemoryPage")
    assert emptied["version"] == 4 and emptied["trashed"] and emptied["souvenirs"] == []
    gone = await gql(client, token, READ_PAGE, {"id": page_id})
    assert codes(gone) == ["NOT_FOUND"]

    stand(times[4])
    restored = field(await gql(client, token, RESTORE, {"p": page_id}), "restoreMemoryPage")
    assert restored["version"] == 5 and not restored["trashed"]
    assert keys(restored) == [tea_key]

    versions = await history(client, token, page_id)
    assert [v["number"] for v in versions] == [5, 4, 3, 2, 1]
    v1 = versions[-1]

    stand(times[5])
    rolled = field(await gql(client, token, ROLLBACK, {"v": v1["id"]}), "rollbackMemoryPage")
    assert rolled["version"] == 6
    assert rolled["content"] == f"{FRENCH}\n{LYON}" == v1["content"]
    assert keys(rolled) == first_keys

    versions = await history(client, token, page_id)
    assert [(v["number"], v["operation"], v["rolledBackFrom"]) for v in versions] == [
        (6, "MODIFIED", 1),
        (5, "RESTORED", None),
        (4, "DELETED", None),
        (3, "MODIFIED", None),
        (2, "MODIFIED", None),
        (1, "CREATED", None),
    ]
    assert [(v["actorKind"], v["actorName"], v["sessionId"]) for v in versions] == [
        ("member", "Member", session)
    ] * 5 + [("system", "memory", None)]
    assert [when(v["createdAt"]) for v in versions] == times[::-1]
    assert {v["pageId"] for v in versions} == {page_id}
    assert versions[2]["content"] == "" and versions[3]["content"].endswith("✍")
    assert not any(v["redacted"] for v in versions)


async def test_versions_page_newest_first_with_first_and_before(client, pool, ws):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, FRENCH)
    for n in range(2, 6):
        await gql(client, token, EDIT, {"p": page_id, "c": f"{FRENCH}\n- Note {n} [consigne]"})
    numbers = [v["number"] for v in await history(client, token, page_id)]
    assert numbers == [5, 4, 3, 2, 1]
    assert [v["number"] for v in await history(client, token, page_id, first=2)] == [5, 4]
    assert [v["number"] for v in await history(client, token, page_id, 2, before=4)] == [3, 2]
    assert [v["number"] for v in await history(client, token, page_id, 2, before=2)] == [1]
    assert await history(client, token, page_id, 2, before=1) == []
    assert await history(client, token, page_id, first=0) == []
    too_many = await gql(client, token, VERSIONS, {"p": page_id, "first": 101})
    assert codes(too_many) == ["SCHEMA_VALIDATION_FAILED"]


async def test_one_version_reads_the_content_it_left(client, pool, ws):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    await gql(client, token, EDIT, {"p": page_id, "c": LYON})
    versions = await history(client, token, page_id)
    for listed in versions:
        one = field(await gql(client, token, ONE_VERSION, {"id": listed["id"]}), "memoryVersion")
        assert one == listed
    assert versions[1]["content"] == f"{FRENCH}\n{LYON}" and versions[0]["content"] == LYON
    page = await read(client, token, page_id)
    assert versions[0]["contentSha256"] == page["contentSha256"]


async def test_rollback_writes_a_new_version_and_a_redacted_version_cannot_be_rolled_back(
    client, pool, ws
):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    original = await read(client, token, page_id)
    await gql(client, token, EDIT, {"p": page_id, "c": TEA.replace("Claire", "Bob")})
    await gql(client, token, EDIT, {"p": page_id, "c": LYON})
    v1, v2 = (await history(client, token, page_id))[::-1][:2]

    rolled = field(await gql(client, token, ROLLBACK, {"v": v1["id"]}), "rollbackMemoryPage")
    assert rolled["version"] == 4
    assert rolled["content"] == original["content"] and keys(rolled) == keys(original)
    # The versions written back from stay as they were.
    assert (await history(client, token, page_id))[3] == v1

    redacted = field(await gql(client, token, REDACT, {"v": v2["id"]}), "redactMemoryVersion")
    assert redacted["redacted"]
    refused = await gql(client, token, ROLLBACK, {"v": v2["id"]})
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    after = await read(client, token, page_id)
    assert after["version"] == 4 and after["content"] == original["content"]
    assert len(await history(client, token, page_id)) == 4


async def test_only_the_persons_own_session_rewrites_history(client, pool, ws):
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    v1 = (await history(client, ws.tokens["member"], page_id))[0]
    for who in ("agent", "mcp_client"):
        for query, variables in (
            (ROLLBACK, {"v": v1["id"]}),
            (REDACT, {"v": v1["id"]}),
            (EDIT, {"p": page_id, "c": FRENCH}),
        ):
            assert codes(await gql(client, ws.tokens[who], query, variables)) == ["FORBIDDEN"]
    # Another member does not even see the profile, nor its versions.
    assert codes(await gql(client, ws.tokens["other"], REDACT, {"v": v1["id"]})) == ["NOT_FOUND"]
    assert codes(await gql(client, ws.tokens["other"], ONE_VERSION, {"id": v1["id"]})) == [
        "NOT_FOUND"
    ]
    versions = await history(client, ws.tokens["member"], page_id)
    assert len(versions) == 1 and not versions[0]["redacted"]


# Redaction ---------------------------------------------------------------------------------


async def test_redaction_scrubs_content_and_keeps_actor_number_and_times(client, pool, ws, stand):
    token = ws.tokens["member"]
    stand(T0)
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    stand(T0 + timedelta(minutes=1))
    await gql(client, token, EDIT, {"p": page_id, "c": f"{LYON}\n- My PIN is 1234 [consigne]"})
    stand(T0 + timedelta(minutes=2))
    await gql(client, token, EDIT, {"p": page_id, "c": LYON})
    before = await history(client, token, page_id)
    leaked = before[1]
    assert "1234" in leaked["content"]

    stand(T0 + timedelta(minutes=3))
    redacted = field(await gql(client, token, REDACT, {"v": leaked["id"]}), "redactMemoryVersion")
    assert redacted["content"] is None and redacted["contentSha256"] is None
    assert redacted["redacted"] and when(redacted["redactedAt"]) == T0 + timedelta(minutes=3)
    kept = ("id", "pageId", "number", "operation", "actorKind", "actorName", "sessionId")
    assert {k: redacted[k] for k in kept} == {k: leaked[k] for k in kept}
    assert redacted["createdAt"] == leaked["createdAt"]

    after = await history(client, token, page_id)
    assert after[1] == redacted and after[0] == before[0] and after[2] == before[2]
    assert "1234" not in orjson.dumps(after).decode()
    assert field(await gql(client, token, ONE_VERSION, {"id": leaked["id"]}), "memoryVersion") == (
        redacted
    )
    async with pool.acquire() as conn:
        stored = await conn.fetchrow(
            "SELECT lines, content_sha256, actor_name, created_at FROM memory_versions"
            " WHERE workspace_id = $1 AND number = 2 AND page_id = $2",
            ws.id,
            ids.decode(page_id, "MemoryPage", ws.id),
        )
    assert stored["lines"] is None and stored["content_sha256"] is None
    assert stored["actor_name"] == "Member" and stored["created_at"] == T0 + timedelta(minutes=1)
    # The page itself is untouched.
    page = await read(client, token, page_id)
    assert page["content"] == LYON and page["version"] == 3

    # Redacting twice is harmless: same answer, nothing else moves.
    stand(T0 + timedelta(minutes=9))
    again = await gql(client, token, REDACT, {"v": leaked["id"]})
    assert field(again, "redactMemoryVersion") == redacted
    assert await history(client, token, page_id) == after
    assert (await read(client, token, page_id))["version"] == 3


async def _app_statement(api_pool: asyncpg.Pool, workspace_id: UUID, sql: str, *args: Any) -> str:
    """Run one statement as the application role in the workspace; the error it raised."""
    async with api_pool.acquire() as conn:
        with pytest.raises((asyncpg.InsufficientPrivilegeError, asyncpg.RaiseError)) as raised:
            async with conn.transaction():
                await conn.execute("SELECT app_begin_workspace($1)", workspace_id)
                assert await conn.fetchval("SELECT current_user") == "skillmem_app"
                await conn.execute(sql, *args)
    return type(raised.value).__name__


async def test_the_database_refuses_the_application_role_to_change_or_delete_a_version(
    client, pool, api_pool, ws
):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    await gql(client, token, EDIT, {"p": page_id, "c": LYON})
    v1, v2 = (await history(client, token, page_id))[::-1]
    await gql(client, token, REDACT, {"v": v1["id"]})
    redacted_id = ids.decode(v1["id"], "MemoryVersion", ws.id)
    live_id = ids.decode(v2["id"], "MemoryVersion", ws.id)
    async with pool.acquire() as conn:
        snapshot = await conn.fetch(
            "SELECT * FROM memory_versions WHERE workspace_id = $1 ORDER BY number", ws.id
        )
    fake = '[{"kind": "souvenir", "text": "forged"}]'
    sha = "0" * 64
    statements = [
        # Un-redacting.
        (
            "UPDATE memory_versions SET lines = $2::jsonb, content_sha256 = $3,"
            " redacted_at = NULL, redacted_by = NULL WHERE id = $1",
            redacted_id,
            fake,
            sha,
        ),
        ("UPDATE memory_versions SET redacted_by = 'someone' WHERE id = $1", redacted_id),
        # Changing content.
        ("UPDATE memory_versions SET lines = $2::jsonb WHERE id = $1", live_id, fake),
        ("UPDATE memory_versions SET content_sha256 = $2 WHERE id = $1", live_id, sha),
        # Changing who, when, what.
        ("UPDATE memory_versions SET actor_name = 'Mallory' WHERE id = $1", live_id),
        ("UPDATE memory_versions SET actor_kind = 'system' WHERE id = $1", live_id),
        ("UPDATE memory_versions SET actor_id = NULL WHERE id = $1", live_id),
        ("UPDATE memory_versions SET session_id = NULL WHERE id = $1", live_id),
        ("UPDATE memory_versions SET created_at = now() WHERE id = $1", live_id),
        ("UPDATE memory_versions SET operation = 'created' WHERE id = $1", live_id),
        ("UPDATE memory_versions SET number = 9 WHERE id = $1", live_id),
        # Removing.
        ("DELETE FROM memory_versions WHERE id = $1", live_id),
        ("DELETE FROM memory_versions WHERE id = $1", redacted_id),
        ("TRUNCATE memory_versions",),
    ]
    for sql, *args in statements:
        await _app_statement(api_pool, ws.id, sql, *args)
    async with pool.acquire() as conn:
        after = await conn.fetch(
            "SELECT * FROM memory_versions WHERE workspace_id = $1 ORDER BY number", ws.id
        )
    assert [dict(r) for r in after] == [dict(r) for r in snapshot]


@pytest.mark.parametrize(
    "statement",
    ["DELETE FROM memory_pages WHERE id = $1", "DELETE FROM records WHERE id = $1"],
    ids=["page", "memory record"],
)
async def test_deleting_a_page_as_the_application_role_does_not_erase_its_history(
    pool, api_pool, ws, statement
):
    """Versions cannot be deleted directly, nor through the page or the memory record they
    cascade from: a deleted page stays in history."""
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    local = ids.decode(page_id, "MemoryPage", ws.id)
    async with api_pool.acquire() as conn:
        try:
            async with conn.transaction():
                await conn.execute("SELECT app_begin_workspace($1)", ws.id)
                await conn.execute(statement, local)
        except asyncpg.PostgresError:
            pass
    async with pool.acquire() as conn:
        count = await conn.fetchval(
            "SELECT count(*) FROM memory_versions WHERE workspace_id = $1 AND page_id = $2",
            ws.id,
            local,
        )
    assert count == 1, "as skillmem_app, deleting the page erased its history"


# Optimistic concurrency --------------------------------------------------------------------


async def all_at_once(
    pool: asyncpg.Pool, ws, page_id: str, requests: list[Coroutine[Any, Any, Any]]
) -> list[Any]:
    """Run the requests concurrently, all of them in flight before any may write: the page's
    row is held locked until each request waits for it (or a few seconds have passed)."""
    local = ids.decode(page_id, "MemoryPage", ws.id)
    async with pool.acquire() as holder:
        held = holder.transaction()
        await held.start()
        await holder.execute(
            "SELECT 1 FROM memory_pages WHERE workspace_id = $1 AND id = $2 FOR UPDATE",
            ws.id,
            local,
        )
        tasks = [asyncio.ensure_future(request) for request in requests]
        for _ in range(500):
            # Statistics are read once per transaction unless their snapshot is cleared.
            await holder.execute("SELECT pg_stat_clear_snapshot()")
            waiting = await holder.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if waiting >= len(tasks) or all(task.done() for task in tasks):
                break
            await asyncio.sleep(0.01)
        await held.commit()
    return list(await asyncio.gather(*tasks))


async def test_an_edit_based_on_the_current_content_is_applied(client, pool, ws):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    page = await read(client, token, page_id)
    edited = field(
        await gql(client, token, EDIT, {"p": page_id, "c": LYON, "b": page["contentSha256"]}),
        "editMemoryPage",
    )
    assert edited["content"] == LYON and edited["version"] == 2
    assert edited["contentSha256"] != page["contentSha256"]
    # The new sha is the one to base the next edit on.
    again = await gql(client, token, EDIT, {"p": page_id, "c": "", "b": edited["contentSha256"]})
    assert field(again, "editMemoryPage")["trashed"]


async def test_an_edit_based_on_stale_content_changes_nothing(client, pool, ws):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    stale = (await read(client, token, page_id))["contentSha256"]
    await gql(client, token, EDIT, {"p": page_id, "c": LYON})
    current = await read(client, token, page_id)
    count = len(await history(client, token, page_id))

    refused = await gql(client, token, EDIT, {"p": page_id, "c": FRENCH, "b": stale})
    assert codes(refused) == ["MEMORY_PRECONDITION_FAILED"]
    assert refused.json()["data"] is None
    assert await read(client, token, page_id) == current
    assert len(await history(client, token, page_id)) == count


@pytest.mark.parametrize(
    "base",
    ["abc", "", "A" * 64, "g" * 64, "0" * 63, "0" * 65, " " + "0" * 63, "0" * 64 + "\n"],
)
async def test_a_malformed_base_sha256_is_a_validation_error(client, pool, ws, base):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}")
    before = await read(client, token, page_id)
    response = await gql(client, token, EDIT, {"p": page_id, "c": LYON, "b": base})
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    problems = response.json()["errors"][0]["extensions"]["problems"]
    assert [p["field"] for p in problems] == ["baseSha256"]
    assert await read(client, token, page_id) == before


async def test_concurrent_editors_with_the_same_base_one_wins(client, pool, ws):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}\n{TEA}")
    base = (await read(client, token, page_id))["contentSha256"]
    contents = [f"{FRENCH}\n- Editor {n} was here [consigne]" for n in range(5)]
    responses = await all_at_once(
        pool,
        ws,
        page_id,
        [gql(client, token, EDIT, {"p": page_id, "c": c, "b": base}) for c in contents],
    )
    outcomes = [codes(r) for r in responses]
    winners = [n for n, found in enumerate(outcomes) if found == []]
    assert len(winners) == 1, outcomes
    assert sorted(outcomes) == [[]] + [["MEMORY_PRECONDITION_FAILED"]] * 4
    page = await read(client, token, page_id)
    assert page["version"] == 2
    assert page["content"].startswith(f"{FRENCH}\n- Editor {winners[0]} was here")
    assert len(await history(client, token, page_id)) == 2


async def test_concurrent_editors_without_a_base_are_applied_one_after_another(client, pool, ws):
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}\n{TEA}")
    contents = [f"{FRENCH}\n- Editor {n} was here [consigne]" for n in range(5)]
    responses = await all_at_once(
        pool, ws, page_id, [gql(client, token, EDIT, {"p": page_id, "c": c}) for c in contents]
    )
    assert [codes(r) for r in responses] == [[]] * 5
    assert sorted(field(r, "editMemoryPage")["version"] for r in responses) == [2, 3, 4, 5, 6]
    page = await read(client, token, page_id)
    assert page["version"] == 6 and len(await history(client, token, page_id)) == 6
    last = next(r for r in responses if field(r, "editMemoryPage")["version"] == 6)
    assert page["content"] == field(last, "editMemoryPage")["content"]


async def test_concurrent_identical_edits_make_one_version(client, pool, ws):
    """Five people remove the same line at once: one change, so one version; the others
    find the page already as they want it."""
    token = ws.tokens["member"]
    page_id = await profile(pool, ws, f"{FRENCH}\n{LYON}\n{TEA}")
    original = await read(client, token, page_id)
    wanted = f"{FRENCH}\n{TEA}"
    responses = await all_at_once(
        pool, ws, page_id, [gql(client, token, EDIT, {"p": page_id, "c": wanted}) for _ in range(5)]
    )
    assert [codes(r) for r in responses] == [[]] * 5
    page = await read(client, token, page_id)
    assert page["content"] == wanted
    assert keys(page) == [keys(original)[0], keys(original)[2]]
    versions = await history(client, token, page_id)
    assert [v["number"] for v in versions] == [2, 1], [v["content"] for v in versions]
