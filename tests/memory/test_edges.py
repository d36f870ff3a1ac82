"""Memory's edges found in review: a rollback never brings redacted content back, a person's
end date before today is a 400, the 4,000 characters hold as stored, restore keeps the
satellite rule, a route's path never reaches SQL unchecked, and validation lists every
problem."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from db import records as records_db
from db.pool import begin_workspace
from resolvers.common import clock, ids
from resolvers.memory.content import PAGE_CONTENT_MAX_CHARS
from resolvers.records.workspaces import create_object, grant_standard_roles
from tests.factories import codes, gql, load_records, make_page

PAGE = "query($id: ID!) { memoryPage(id: $id) { content souvenirs { key } version } }"
VERSIONS = "query($id: ID!) { memoryVersions(pageId: $id) { id number content } }"
EDIT = """mutation($id: ID!, $content: String!) {
  editMemoryPage(pageId: $id, content: $content) { content version } }"""
ROLLBACK = "mutation($v: ID!) { rollbackMemoryPage(versionId: $v) { content } }"
REDACT = "mutation($v: ID!) { redactMemoryVersion(versionId: $v) { redacted } }"
RESTORE = "mutation($id: ID!) { restoreMemoryPage(pageId: $id) { content } }"
NOW = datetime(2026, 12, 15, 9, tzinfo=UTC)


@pytest.fixture
def today():
    clock.set_clock(lambda: NOW)
    yield NOW
    clock.set_clock(None)


def line(text: str) -> str:
    return f"- {text} — Claire, 2026-10-02 [relation]"


async def company_page(pool, ws, content: str) -> tuple[str, str]:
    [acme] = await load_records(pool, ws.tokens["member"], [{"object": "companies", "label": "A"}])
    page = await make_page(pool, ws, "record", ids.decode(acme, "Record", ws.id), content)
    return acme, page


async def until_waiting(conn, count: int) -> None:
    """Wait (a few seconds at most) until ``count`` other sessions wait on a lock."""
    for _ in range(500):
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        waiting = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        if waiting >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} sessions never waited on the page's lock")


async def test_a_rollback_queued_behind_a_redaction_reads_the_version_redacted(client, pool, ws):
    token = ws.tokens["member"]
    _, page = await company_page(pool, ws, line("SECRET leaked"))
    await gql(client, token, EDIT, {"id": page, "content": line("Cleaned")})
    [_, first] = (await gql(client, token, VERSIONS, {"id": page})).json()["data"]["memoryVersions"]
    async with pool.acquire() as holder:
        held = holder.transaction()
        await held.start()
        await holder.execute(
            "SELECT 1 FROM memory_pages WHERE workspace_id = $1 AND id = $2 FOR UPDATE",
            ws.id,
            ids.decode(page, "MemoryPage", ws.id),
        )
        # The redaction queues on the page's lock first, the rollback behind it.
        redaction = asyncio.ensure_future(gql(client, token, REDACT, {"v": first["id"]}))
        await until_waiting(holder, 1)
        rollback = asyncio.ensure_future(gql(client, token, ROLLBACK, {"v": first["id"]}))
        await until_waiting(holder, 2)
        await held.commit()
    assert (await redaction).json()["data"] == {"redactMemoryVersion": {"redacted": True}}
    assert codes(await rollback) == ["SCHEMA_VALIDATION_FAILED"]
    shown = (await gql(client, token, PAGE, {"id": page})).json()["data"]["memoryPage"]
    assert "SECRET" not in shown["content"]
    versions = (await gql(client, token, VERSIONS, {"id": page})).json()["data"]
    assert all("SECRET" not in (v["content"] or "") for v in versions["memoryVersions"])


async def test_a_persons_end_date_before_today_is_a_problem_not_a_crash(client, pool, ws, today):
    _, page = await company_page(pool, ws, line("Kept"))
    content = line("Kept") + "\n- New fact [relation] (jusqu'au 2001-01-01)"
    answer = await gql(client, ws.tokens["member"], EDIT, {"id": page, "content": content})
    [error] = answer.json()["errors"]
    assert error["extensions"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert error["extensions"]["problems"] == [
        {
            "message": "its end date (jusqu'au 2001-01-01) is before today (2026-12-15)",
            "field": "content",
            "line": 2,
        }
    ]


async def test_the_4000_characters_hold_as_stored_not_as_one_reader_sees_them(
    client, pool, ws, today
):
    """A closed source is shorter to the eye than the id it stands for: a reader who cannot
    open it cannot fill the page past 4,000 stored characters."""
    [deal] = await load_records(
        pool, ws.tokens["member"], [{"object": "deals", "label": "D", "visibility": "private"}]
    )
    sourced = [f"- Fact {n} → record:{deal} — Claire, 2026-10-02 [relation]" for n in range(20)]
    _, page = await company_page(pool, ws, "\n".join(sourced))
    seen = (await gql(client, ws.tokens["other"], PAGE, {"id": page})).json()["data"]
    shown = seen["memoryPage"]["content"]
    assert "record:" not in shown
    room = PAGE_CONTENT_MAX_CHARS - len(shown) - 1 - len("- ") - len(" [relation]")
    addition = f"- {'y' * (room - len(' — Other, 2026-12-15 ✍'))} [relation]"
    answer = await gql(
        client, ws.tokens["other"], EDIT, {"id": page, "content": shown + "\n" + addition}
    )
    [error] = answer.json()["errors"]
    assert error["extensions"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert "as stored" in error["extensions"]["problems"][0]["message"]
    after = (await gql(client, ws.tokens["other"], PAGE, {"id": page})).json()["data"]
    assert after == seen


async def test_restore_keeps_the_satellite_rule(client, pool, ws):
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        projects = await create_object(conn, "projects", "Project", "Projects", [])
        await grant_standard_roles(conn, ws.roles, projects)
    [project] = await load_records(
        pool, ws.tokens["member"], [{"object": "projects", "label": "Apollo"}]
    )
    page = await make_page(pool, ws, "record", ids.decode(project, "Record", ws.id), line("Kept"))
    token = ws.tokens["member"]
    assert (await gql(client, token, EDIT, {"id": page, "content": ""})).json()["data"]
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await records_db.insert_attribute(
            conn, projects, "company", "Company", "relation", target="companies"
        )
    assert codes(await gql(client, token, RESTORE, {"id": page})) == ["SCHEMA_VALIDATION_FAILED"]
    assert codes(await gql(client, token, PAGE, {"id": page})) == ["NOT_FOUND"]


async def test_a_nul_in_the_routes_object_is_a_404(client, pool, ws):
    acme, page = await company_page(pool, ws, line("Kept"))
    response = await client.patch(
        f"/v1/records/%00/{acme}/memory",
        json={"pageId": page, "key": "sWhatever"},
        headers={"authorization": f"Bearer {ws.tokens['member']}"},
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


async def test_a_proposal_lists_every_problem(client, ws):
    answer = await gql(
        client,
        ws.tokens["agent"],
        'mutation { proposeMemory(text: "", recordId: "not an id") { id } }',
    )
    [error] = answer.json()["errors"]
    assert error["extensions"]["code"] == "SCHEMA_VALIDATION_FAILED"
    fields = sorted(p["field"] for p in error["extensions"]["problems"])
    assert fields == ["recordId", "text"]
