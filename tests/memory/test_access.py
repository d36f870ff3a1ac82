"""Who reads and who writes memory (DESIGN §2, §5): a page is read by whoever may read what it
is about, written only by a person's own session that may shape it; no memory record through
the record API; a private source shown to others only by its kind, owner and day; record
references only on a member's own profile; another workspace's ids name nothing; proposals,
preferences and the workspace's allowances each by the principals that may."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import asyncpg
import httpx
import pytest

from db import identity
from db.pool import begin_workspace
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import issue_token
from tests.factories import (
    Workspace,
    bearer,
    codes,
    company,
    data,
    gql,
    load_records,
    local,
    make_page,
    post_records,
    private_deal,
    write_page,
)

PRINCIPALS = ("admin", "member", "viewer", "other", "agent", "api_key", "mcp_client")
PEOPLE = ("admin", "member", "viewer", "other")
NOT_PEOPLE = ("agent", "api_key", "mcp_client")
# Who each of the factory's tokens acts for (an API key acts for no one).
ACTS_FOR = {
    "admin": "admin",
    "member": "member",
    "viewer": "viewer",
    "other": "other",
    "agent": "member",
    "mcp_client": "member",
}

FIRST = "- Pays late — Claire, 2026-10-02 [relation]"
SECOND = "- Signs in December — Claire, 2026-10-03 [décision]"
V1 = FIRST
V2 = f"{FIRST}\n{SECOND}"
ADDED = "- Added by hand [consigne]"

PAGE_FIELDS = (
    "id kind aboutId name version content trashed canEdit "
    "souvenirs { key line source sourceRecordId aboutRecordId }"
)
MEMORY_PAGE = "query($id: ID!) { memoryPage(id: $id) { " + PAGE_FIELDS + " } }"
VERSION_FIELDS = "id pageId number operation content redacted"
VERSIONS = "query($id: ID!) { memoryVersions(pageId: $id) { " + VERSION_FIELDS + " } }"
ONE_VERSION = "query($id: ID!) { memoryVersion(id: $id) { " + VERSION_FIELDS + " } }"
BY_RECORD = "query($id: ID!) { memoryPageByRecord(recordId: $id) { id } }"
MEMBER_PROFILE = "query($id: ID!) { memoryProfile(kind: MEMBER, id: $id) { id } }"
AGENT_PROFILE = "query($id: ID!) { memoryProfile(kind: AGENT, id: $id) { id } }"
ROUTINE_PROFILE = "query($id: ID!) { memoryProfile(kind: ROUTINE, id: $id) { id } }"
WORKSPACE_PROFILE = "{ memoryProfile(kind: WORKSPACE) { id } }"
MY_MEMORIES = "{ myMemories { id kind aboutId } }"

EDIT = (
    "mutation($id: ID!, $content: String!) { editMemoryPage(pageId: $id, content: $content) "
    "{ version content trashed canEdit souvenirs { line aboutRecordId } } }"
)
DELETE = (
    "mutation($id: ID!, $key: String!) { deleteSouvenir(pageId: $id, key: $key) "
    "{ version content } }"
)
ROLLBACK = "mutation($id: ID!) { rollbackMemoryPage(versionId: $id) { version content } }"
REDACT = "mutation($id: ID!) { redactMemoryVersion(versionId: $id) { number redacted content } }"
RESTORE = "mutation($id: ID!) { restoreMemoryPage(pageId: $id) { version trashed content } }"
PROPOSE = (
    "mutation($text: String!, $record: ID) { proposeMemory(text: $text, recordId: $record) "
    "{ id text recordId onBehalfOfId proposerName status } }"
)
MY_PROPOSALS = "{ myMemoryProposals { id text recordId onBehalfOfId proposerName } }"


# Building pages and reading them back ------------------------------------------------------


@dataclass
class Made:
    """A page of the matrix: its id, and how to find it by what it is about."""

    page: str
    lookup: str
    about: str | None


async def fetch(pool: asyncpg.Pool, ws: Workspace, query: str, *args: Any) -> list[Any]:
    """Rows of a query run in the workspace, as the application role sees them."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        return list(await conn.fetch(query, *args))


async def agent_named(pool: asyncpg.Pool, ws: Workspace, name: str) -> UUID:
    rows = await fetch(pool, ws, "SELECT id FROM agents WHERE name = $1", name)
    found: UUID = rows[0]["id"]
    return found


async def add_agent(pool: asyncpg.Pool, ws: Workspace, name: str, owner: str) -> UUID:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        row = await identity.insert_actor(conn, "agent", uuid.uuid4(), name, ws.members[owner])
        return row.id


async def add_routine(pool: asyncpg.Pool, ws: Workspace, name: str, owner: str) -> UUID:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        row = await identity.insert_actor(conn, "routine", uuid.uuid4(), name, ws.members[owner])
        return row.id


async def agent_token_for(pool: asyncpg.Pool, ws: Workspace, agent: UUID, person: str) -> str:
    """A token for an agent acting for another person."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        return await issue_token(
            conn, "agent", member_id=ws.members[person], agent_id=agent, purpose="test"
        )


PAGES = (
    "record",  # a workspace company's page
    "private_record",  # the page of Member's private deal, shared with nobody
    "member_profile",  # Member's profile
    "other_profile",  # Other's profile
    "agent",  # the profile of Scout, owned by Admin
    "owned_agent",  # the profile of Helper, owned by Member
    "routine",  # the profile of Nightly, a routine owned by Other
    "workspace",  # the workspace profile
)


async def matrix_page(pool: asyncpg.Pool, ws: Workspace, which: str) -> Made:
    """The page ``which`` names, written twice by the workspace (V1, then V2)."""
    if which == "record":
        record = await company(pool, ws)
        about_kind, about, made = "record", local(ws, record), Made("", BY_RECORD, record)
    elif which == "private_record":
        record = await private_deal(pool, ws, "member", "Quiet deal")
        about_kind, about, made = "record", local(ws, record), Made("", BY_RECORD, record)
    elif which in ("member_profile", "other_profile"):
        about = ws.members[which.removesuffix("_profile")]
        about_kind, made = "member", Made("", MEMBER_PROFILE, ws.gid(about, "Member"))
    elif which in ("agent", "owned_agent"):
        if which == "agent":
            about = await agent_named(pool, ws, "Scout")
        else:
            about = await add_agent(pool, ws, "Helper", "member")
        about_kind, made = "agent", Made("", AGENT_PROFILE, ws.gid(about, "Agent"))
    elif which == "routine":
        about = await add_routine(pool, ws, "Nightly", "other")
        about_kind, made = "routine", Made("", ROUTINE_PROFILE, ws.gid(about, "Routine"))
    else:
        about_kind, about, made = "workspace", None, Made("", WORKSPACE_PROFILE, None)
    made.page = await make_page(pool, ws, about_kind, about, V1, name=which)
    await write_page(pool, ws, made.page, V2)
    return made


async def state(pool: asyncpg.Pool, ws: Workspace, page: str) -> dict[str, Any]:
    """Everything stored about a page: its head, its lines and its versions."""
    page_id = local(ws, page, "MemoryPage")
    head = await fetch(
        pool, ws, "SELECT version, trashed_at FROM memory_pages WHERE id = $1", page_id
    )
    lines = await fetch(
        pool,
        ws,
        "SELECT position, kind, key, text, type, author, day, human, source_kind, source_id,"
        " about_id FROM memory_lines WHERE page_id = $1 ORDER BY position",
        page_id,
    )
    versions = await fetch(
        pool,
        ws,
        "SELECT number, id, operation, lines, redacted_at, content_sha256 FROM memory_versions"
        " WHERE page_id = $1 ORDER BY number",
        page_id,
    )
    return {
        "version": head[0]["version"],
        "trashed": head[0]["trashed_at"] is not None,
        "lines": [dict(row) for row in lines],
        "versions": [dict(row) for row in versions],
    }


def version_gid(ws: Workspace, snapshot: dict[str, Any], number: int) -> str:
    found = next(v for v in snapshot["versions"] if v["number"] == number)
    return ws.gid(found["id"], "MemoryVersion")


def today() -> str:
    return clock.now().date().isoformat()


# Who reads what ------------------------------------------------------------------------------

ALL_BUT_KEY = {"admin", "member", "viewer", "other", "agent", "mcp_client"}
READERS: dict[str, set[str]] = {
    "record": ALL_BUT_KEY,
    "private_record": {"member", "agent", "mcp_client"},
    "member_profile": {"member", "agent", "mcp_client"},
    "other_profile": {"other"},
    "agent": ALL_BUT_KEY,
    "owned_agent": ALL_BUT_KEY,
    "routine": ALL_BUT_KEY,
    "workspace": ALL_BUT_KEY,
}

OK, FORBIDDEN, NOT_FOUND = "ok", "FORBIDDEN", "NOT_FOUND"
# What each person's own session may do with each page (DESIGN §5, resolvers.memory.may_edit):
# a record page needs the update right on its object, a member's profile is its member's, an
# agent's profile its owner's or the settings right's, the workspace's the settings right's.
# Agents, API keys and MCP clients never edit.
WRITERS: dict[str, dict[str, str]] = {
    "admin": {
        "record": OK,
        "private_record": NOT_FOUND,
        "member_profile": NOT_FOUND,
        "other_profile": NOT_FOUND,
        "agent": OK,
        "owned_agent": OK,
        "routine": OK,
        "workspace": OK,
    },
    "member": {
        "record": OK,
        "private_record": OK,
        "member_profile": OK,
        "other_profile": NOT_FOUND,
        "agent": FORBIDDEN,
        "owned_agent": OK,
        "routine": FORBIDDEN,
        "workspace": FORBIDDEN,
    },
    "viewer": {
        "record": FORBIDDEN,
        "private_record": NOT_FOUND,
        "member_profile": NOT_FOUND,
        "other_profile": NOT_FOUND,
        "agent": FORBIDDEN,
        "owned_agent": FORBIDDEN,
        "routine": FORBIDDEN,
        "workspace": FORBIDDEN,
    },
    "other": {
        "record": OK,
        "private_record": NOT_FOUND,
        "member_profile": NOT_FOUND,
        "other_profile": OK,
        "agent": FORBIDDEN,
        "owned_agent": FORBIDDEN,
        "routine": OK,
        "workspace": FORBIDDEN,
    },
}


def expected(who: str, which: str, op: str) -> str:
    if who in NOT_PEOPLE:
        return FORBIDDEN
    outcome = WRITERS[who][which]
    # A trashed page is read only by those who may edit it: to anyone else it is not there.
    if op == "restore" and outcome == FORBIDDEN:
        return NOT_FOUND
    return outcome


def test_the_tables_agree():
    """A person's edit is refused as NOT_FOUND exactly when they cannot read the page."""
    for which, readers in READERS.items():
        for who in PRINCIPALS:
            outcome = expected(who, which, "edit")
            if who in NOT_PEOPLE:
                continue
            assert (outcome != NOT_FOUND) == (who in readers), (who, which)


@pytest.mark.parametrize("which", PAGES)
@pytest.mark.parametrize("who", PRINCIPALS)
async def test_who_reads_what(pool, client, ws, who, which):
    made = await matrix_page(pool, ws, which)
    token = ws.tokens[who]
    response = await gql(client, token, MEMORY_PAGE, {"id": made.page})
    versions = await gql(client, token, VERSIONS, {"id": made.page})
    variables = {"id": made.about} if made.about else None
    looked_up = await gql(client, token, made.lookup, variables)
    if who in READERS[which]:
        page = data(response)["memoryPage"]
        assert page["id"] == made.page
        assert page["content"] == V2
        assert page["version"] == 2
        assert page["canEdit"] is (expected(who, which, "edit") == OK)
        assert [v["number"] for v in data(versions)["memoryVersions"]] == [2, 1]
        assert list(data(looked_up).values()) == [{"id": made.page}]
        return
    missing = ws.gid(uuid.uuid4(), "MemoryPage")
    assert codes(response) == ["NOT_FOUND"]
    assert response.json() == (await gql(client, token, MEMORY_PAGE, {"id": missing})).json()
    assert codes(versions) == ["NOT_FOUND"]
    assert versions.json() == (await gql(client, token, VERSIONS, {"id": missing})).json()
    assert list(data(looked_up).values()) == [None]
    for text in (response.text, versions.text, looked_up.text):
        assert "Pays late" not in text
        assert "December" not in text


async def test_a_record_page_opens_with_its_record(pool, client, ws):
    """Member's private deal, shared with nobody: its page is Member's alone; once the deal is
    shared with Other, Other reads its page too (and Admin, not shared, still does not).

    Note: the seed's "What you cannot do" says "a person granted access to a private record
    does not see its page", while "Shared automatically" says "a record's page is read by
    everyone who sees the record". This test follows the latter, as the code does."""
    made = await matrix_page(pool, ws, "private_record")
    assert made.about is not None
    for who in ("other", "admin", "viewer"):
        refused = await gql(client, ws.tokens[who], MEMORY_PAGE, {"id": made.page})
        assert codes(refused) == ["NOT_FOUND"]
        by_record = await gql(client, ws.tokens[who], BY_RECORD, {"id": made.about})
        assert by_record.json() == {"data": {"memoryPageByRecord": None}}
    shared = await load_records(
        pool,
        ws.tokens["member"],
        [{"object": "deals", "id": made.about, "shared_with": ["other@acmecorp.example"]}],
    )
    assert shared == [made.about]
    page = data(await gql(client, ws.tokens["other"], MEMORY_PAGE, {"id": made.page}))
    assert page["memoryPage"]["content"] == V2
    by_record = await gql(client, ws.tokens["other"], BY_RECORD, {"id": made.about})
    assert by_record.json() == {"data": {"memoryPageByRecord": {"id": made.page}}}
    for who in ("admin", "viewer"):
        refused = await gql(client, ws.tokens[who], MEMORY_PAGE, {"id": made.page})
        assert codes(refused) == ["NOT_FOUND"]


async def test_the_api_key_reads_no_page_even_of_a_record_it_reads(pool, client, ws):
    made = await matrix_page(pool, ws, "record")
    key = ws.tokens["api_key"]
    record = await gql(
        client, key, "query($id: ID!) { record(id: $id) { label } }", {"id": made.about}
    )
    assert record.json() == {"data": {"record": {"label": "Acme"}}}
    assert codes(await gql(client, key, MEMORY_PAGE, {"id": made.page})) == ["NOT_FOUND"]
    by_record = await gql(client, key, BY_RECORD, {"id": made.about})
    assert by_record.json() == {"data": {"memoryPageByRecord": None}}
    assert codes(await gql(client, key, MY_MEMORIES)) == ["FORBIDDEN"]


async def test_my_memories_is_the_profile_of_the_person_acted_for(pool, client, ws):
    made = await matrix_page(pool, ws, "member_profile")
    member = ws.gid(ws.members["member"], "Member")
    for who in ("member", "agent", "mcp_client"):
        found = data(await gql(client, ws.tokens[who], MY_MEMORIES))["myMemories"]
        assert found == {"id": made.page, "kind": "MEMBER", "aboutId": member}
    for who in ("admin", "other", "viewer"):
        assert data(await gql(client, ws.tokens[who], MY_MEMORIES)) == {"myMemories": None}


# Who writes what -----------------------------------------------------------------------------

OPS = ("edit", "delete", "rollback", "redact", "restore")


async def attempt(
    client: httpx.AsyncClient, ws: Workspace, token: str, op: str, page: str, before: dict
) -> httpx.Response:
    if op == "edit":
        return await gql(client, token, EDIT, {"id": page, "content": f"{V2}\n{ADDED}"})
    if op == "delete":
        return await gql(client, token, DELETE, {"id": page, "key": before["lines"][0]["key"]})
    if op == "rollback":
        return await gql(client, token, ROLLBACK, {"id": version_gid(ws, before, 1)})
    if op == "redact":
        return await gql(client, token, REDACT, {"id": version_gid(ws, before, 1)})
    return await gql(client, token, RESTORE, {"id": page})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("which", PAGES)
@pytest.mark.parametrize("who", PRINCIPALS)
async def test_who_writes_what(pool, client, ws, who, which, op):
    made = await matrix_page(pool, ws, which)
    if op == "restore":
        await write_page(pool, ws, made.page, "")  # the workspace empties it: to the trash
    before = await state(pool, ws, made.page)
    assert before["trashed"] is (op == "restore")
    response = await attempt(client, ws, ws.tokens[who], op, made.page, before)
    outcome = expected(who, which, op)
    if outcome != OK:
        assert codes(response) == [outcome], response.text
        assert response.json()["data"] is None
        assert "Pays late" not in response.text
        assert await state(pool, ws, made.page) == before
        return
    found = data(response)
    after = await state(pool, ws, made.page)
    if op == "edit":
        line = f"- Added by hand — {who.title()}, {today()} [consigne] ✍"
        assert found["editMemoryPage"]["content"] == f"{V2}\n{line}"
        assert found["editMemoryPage"]["version"] == 3
        assert found["editMemoryPage"]["canEdit"] is True
    elif op == "delete":
        assert found["deleteSouvenir"] == {"version": 3, "content": SECOND}
    elif op == "rollback":
        assert found["rollbackMemoryPage"] == {"version": 3, "content": V1}
    elif op == "redact":
        assert found["redactMemoryVersion"] == {"number": 1, "redacted": True, "content": None}
        assert after["version"] == 2
        assert after["lines"] == before["lines"]
        assert after["versions"][0]["lines"] is None
    else:
        assert found["restoreMemoryPage"] == {"version": 4, "trashed": False, "content": V2}
    assert after["versions"][-1]["number"] == after["version"]


async def test_an_unreadable_pages_version_is_answered_like_a_missing_one(pool, client, ws):
    """A version id of a page the caller may not read names nothing, exactly like an id that
    names no version at all: the answer says nothing of the page behind it."""
    made = await matrix_page(pool, ws, "member_profile")
    version = version_gid(ws, await state(pool, ws, made.page), 1)
    missing = ws.gid(uuid.uuid4(), "MemoryVersion")
    token = ws.tokens["other"]
    for query in (ONE_VERSION, ROLLBACK, REDACT):
        refused = await gql(client, token, query, {"id": version})
        absent = await gql(client, token, query, {"id": missing})
        assert codes(refused) == ["NOT_FOUND"]
        assert refused.json() == absent.json()


# No memory record through the record API -----------------------------------------------------


async def memory_records(pool: asyncpg.Pool, ws: Workspace) -> list[Any]:
    return await fetch(
        pool,
        ws,
        "SELECT r.id, r.label, r.visibility, r.trashed_at FROM records r"
        " JOIN objects o ON o.id = r.object_id AND o.workspace_id = r.workspace_id"
        " WHERE o.slug = 'memory' ORDER BY r.id",
    )


@pytest.mark.parametrize("who", ["admin", "member", "viewer", "other"])
async def test_no_memory_record_is_created_or_changed_through_the_record_api(pool, client, ws, who):
    made = await matrix_page(pool, ws, "record")
    as_record = ws.gid(local(ws, made.page, "MemoryPage"))
    before, records_before = await state(pool, ws, made.page), await memory_records(pool, ws)
    assert [r["visibility"] for r in records_before] == ["memory"]
    token = ws.tokens[who]
    for line in (
        {"object": "memory", "label": "Forged"},
        {"object": "memory", "label": "Forged", "visibility": "workspace"},
        {"object": "memory", "id": as_record, "label": "Renamed"},
        {"object": "memory", "id": as_record, "visibility": "private"},
    ):
        response = await post_records(client, token, [line])
        assert response.status_code == 403, response.text
        error = response.json()["error"]
        assert error["code"] == "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"
        assert [p["code"] for p in error["problems"]] == ["SCHEMA_SYSTEM_ENTITY_IMMUTABLE"]
    assert await memory_records(pool, ws) == records_before
    assert await state(pool, ws, made.page) == before


async def test_the_api_key_cannot_even_name_the_memory_object(pool, client, ws):
    await matrix_page(pool, ws, "record")
    records_before = await memory_records(pool, ws)
    key = ws.tokens["api_key"]
    response = await post_records(client, key, [{"object": "memory", "label": "Forged"}])
    unknown = await post_records(client, key, [{"object": "no_such_object", "label": "Forged"}])
    assert response.status_code == 400
    assert response.json() == unknown.json()
    assert await memory_records(pool, ws) == records_before


LIST_MEMORY = '{ records(object: "memory") { nodes { id label } } }'
ONE_RECORD = "query($id: ID!) { record(id: $id) { id label } }"


@pytest.mark.parametrize("who", PRINCIPALS)
async def test_memory_records_never_show_through_the_record_api(pool, client, ws, who):
    pages = [await matrix_page(pool, ws, which) for which in ("record", "member_profile")]
    token = ws.tokens[who]
    listed = await gql(client, token, LIST_MEMORY)
    assert listed.json() == {"data": {"records": {"nodes": []}}}
    missing = await gql(client, token, ONE_RECORD, {"id": ws.gid(uuid.uuid4())})
    for made in pages:
        as_record = ws.gid(local(ws, made.page, "MemoryPage"))
        one = await gql(client, token, ONE_RECORD, {"id": as_record})
        assert codes(one) == ["NOT_FOUND"]
        assert one.json() == missing.json()


async def test_no_memory_record_goes_to_the_trash_through_the_record_api(pool, client, ws):
    made = await matrix_page(pool, ws, "record")
    as_record = ws.gid(local(ws, made.page, "MemoryPage"))
    before, records_before = await state(pool, ws, made.page), await memory_records(pool, ws)
    trash = "mutation($id: ID!) { trashRecord(id: $id) }"
    response = await gql(client, ws.tokens["admin"], trash, {"id": as_record})
    assert codes(response) == ["SCHEMA_SYSTEM_ENTITY_IMMUTABLE"]
    assert await memory_records(pool, ws) == records_before
    assert await state(pool, ws, made.page) == before


# The private-source display rule -------------------------------------------------------------


async def test_a_private_source_shows_only_its_kind_owner_and_day(pool, client, ws):
    acme = await company(pool, ws)
    mail, deal = await load_records(
        pool,
        ws.tokens["member"],
        [
            {"object": "mail", "label": "Re: pricing", "visibility": "private"},
            {"object": "deals", "label": "Quiet deal", "visibility": "private"},
        ],
    )
    member = ws.gid(ws.members["member"], "Member")
    page = await make_page(pool, ws, "record", local(ws, acme), V1, name="Acme")
    stored = [
        FIRST,
        f"- Wants a discount → record:{mail} — Member, 2026-10-23 [relation]",
        f"- The CFO decides alone → record:{deal} — Member, 2026-10-24 [décision]",
        f"- Prefers calls → conversation:{member} — Member, 2026-10-25 [relation]",
    ]
    await write_page(pool, ws, page, "\n".join(stored))
    latest = version_gid(ws, await state(pool, ws, page), 2)
    query = (
        "query($id: ID!, $record: ID!, $version: ID!) { memoryPage(id: $id) { "
        + PAGE_FIELDS
        + " } memoryPageByRecord(recordId: $record) { content souvenirs { source sourceRecordId } }"
        " memoryVersions(pageId: $id) { number content } memoryVersion(id: $version) { content } }"
    )
    variables = {"id": page, "record": acme, "version": latest}
    closed = [
        FIRST,
        "- Wants a discount → mail from Member, 2026-10-23 — Member, 2026-10-23 [relation]",
        "- The CFO decides alone → deal from Member, 2026-10-24 — Member, 2026-10-24 [décision]",
        "- Prefers calls → conversation from Member, 2026-10-25 — Member, 2026-10-25 [relation]",
    ]
    hidden = [mail, deal, member]
    hidden += [str(local(ws, mail)), str(local(ws, deal)), str(ws.members["member"])]
    hidden += [local(ws, mail).hex, local(ws, deal).hex, ws.members["member"].hex]
    for who in ("admin", "viewer", "other"):
        response = await gql(client, ws.tokens[who], query, variables)
        found = data(response)
        shown = found["memoryPage"]
        assert shown["content"] == "\n".join(closed)
        assert [s["line"] for s in shown["souvenirs"]] == closed
        assert [s["source"] for s in shown["souvenirs"]] == [
            None,
            "mail from Member, 2026-10-23",
            "deal from Member, 2026-10-24",
            "conversation from Member, 2026-10-25",
        ]
        assert [s["sourceRecordId"] for s in shown["souvenirs"]] == [None] * 4
        assert found["memoryPageByRecord"]["content"] == "\n".join(closed)
        assert found["memoryVersions"] == [
            {"number": 2, "content": "\n".join(closed)},
            {"number": 1, "content": V1},
        ]
        assert found["memoryVersion"] == {"content": "\n".join(closed)}
        for text in hidden:
            assert text not in response.text, (who, text)
        assert "record:" not in response.text
        assert "conversation:" not in response.text
    for who in ("member", "agent", "mcp_client"):
        response = await gql(client, ws.tokens[who], query, variables)
        shown = data(response)["memoryPage"]
        assert shown["content"] == "\n".join(stored)
        assert [s["source"] for s in shown["souvenirs"]] == [
            None,
            f"record:{mail}",
            f"record:{deal}",
            f"conversation:{member}",
        ]
        assert [s["sourceRecordId"] for s in shown["souvenirs"]] == [None, mail, deal, None]
        versions = data(response)["memoryVersions"]
        assert versions[0]["content"] == "\n".join(stored)
        assert data(response)["memoryVersion"] == {"content": "\n".join(stored)}


async def test_a_conversation_source_opens_only_to_its_member(pool, client, ws):
    acme = await company(pool, ws)
    other = ws.gid(ws.members["other"], "Member")
    page = await make_page(
        pool,
        ws,
        "record",
        local(ws, acme),
        f"- Prefers calls → conversation:{other} — Other, 2026-10-25 [relation]",
    )
    for who in PEOPLE + ("agent", "mcp_client"):
        response = await gql(client, ws.tokens[who], MEMORY_PAGE, {"id": page})
        [souvenir] = data(response)["memoryPage"]["souvenirs"]
        if who == "other":
            assert souvenir["source"] == f"conversation:{other}"
        else:
            assert souvenir["source"] == "conversation from Other, 2026-10-25"
            assert other not in response.text
        assert souvenir["sourceRecordId"] is None


async def test_an_edit_by_someone_who_cannot_open_a_source_keeps_it(pool, client, ws):
    """Other rewrites the page around a line whose source only Member opens: the line keeps its
    source, and Member still sees the link."""
    acme = await company(pool, ws)
    deal = await private_deal(pool, ws, "member", "Quiet deal")
    line = f"- Wants a discount → record:{deal} — Member, 2026-10-23 [relation]"
    page = await make_page(pool, ws, "record", local(ws, acme), line)
    shown = data(await gql(client, ws.tokens["other"], MEMORY_PAGE, {"id": page}))["memoryPage"]
    edited = await gql(
        client, ws.tokens["other"], EDIT, {"id": page, "content": f"{shown['content']}\n{ADDED}"}
    )
    assert deal not in edited.text
    assert data(edited)["editMemoryPage"]["version"] == 2
    mine = data(await gql(client, ws.tokens["member"], MEMORY_PAGE, {"id": page}))["memoryPage"]
    assert mine["souvenirs"][0]["sourceRecordId"] == deal
    assert mine["content"].startswith(line + "\n")


# Record references only on a member's own profile -------------------------------------------

REFERENCE_REFUSED = "only a member's own profile holds references to records"


@pytest.mark.parametrize("which", ["record", "agent", "owned_agent", "workspace"])
async def test_the_workspace_writes_no_reference_outside_a_members_profile(pool, ws, which):
    made = await matrix_page(pool, ws, which)
    target = await company(pool, ws, "Target")
    before = await state(pool, ws, made.page)
    line = f"- @[Target](record:{target}) Call first — Claire, 2026-10-04 [consigne]"
    with pytest.raises(DomainError) as refused:
        await write_page(pool, ws, made.page, f"{V2}\n{line}")
    assert refused.value.code is Code.SCHEMA_VALIDATION_FAILED
    assert [(p.message, p.line) for p in refused.value.problems] == [(REFERENCE_REFUSED, 3)]
    assert await state(pool, ws, made.page) == before


async def test_the_workspace_writes_a_reference_on_a_members_profile(pool, client, ws):
    made = await matrix_page(pool, ws, "member_profile")
    target = await company(pool, ws, "Target")
    line = f"- @[Target](record:{target}) Call first — Claire, 2026-10-04 [consigne]"
    await write_page(pool, ws, made.page, f"{V2}\n{line}")
    page = data(await gql(client, ws.tokens["member"], MEMORY_PAGE, {"id": made.page}))
    souvenirs = page["memoryPage"]["souvenirs"]
    assert souvenirs[-1]["line"] == line
    assert souvenirs[-1]["aboutRecordId"] == target


async def test_a_person_references_only_records_they_read_on_their_own_profile(pool, client, ws):
    made = await matrix_page(pool, ws, "member_profile")
    target = await company(pool, ws, "Target")
    hidden = await private_deal(pool, ws, "other", "Others deal")
    token = ws.tokens["member"]
    before = await state(pool, ws, made.page)
    unreadable = f"- @[Others deal](record:{hidden}) Ask Other first [consigne]"
    refused = await gql(client, token, EDIT, {"id": made.page, "content": f"{V2}\n{unreadable}"})
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    problems = refused.json()["errors"][0]["extensions"]["problems"]
    assert [(p["message"], p.get("line")) for p in problems] == [
        ("the reference names no record you can read", 3)
    ]
    assert await state(pool, ws, made.page) == before
    readable = f"- @[Target](record:{target}) Call Claire first [consigne]"
    edited = await gql(client, token, EDIT, {"id": made.page, "content": f"{V2}\n{readable}"})
    page = data(edited)["editMemoryPage"]
    assert page["souvenirs"][-1] == {
        "line": f"- @[Target](record:{target}) Call Claire first — Member, {today()} [consigne] ✍",
        "aboutRecordId": target,
    }


@pytest.mark.parametrize("which", ["record", "owned_agent"])
async def test_a_person_writes_no_reference_on_a_shared_page(pool, client, ws, which):
    made = await matrix_page(pool, ws, which)
    target = await company(pool, ws, "Target")
    before = await state(pool, ws, made.page)
    line = f"- @[Target](record:{target}) Call Claire first [consigne]"
    refused = await gql(
        client, ws.tokens["member"], EDIT, {"id": made.page, "content": f"{V2}\n{line}"}
    )
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    problems = refused.json()["errors"][0]["extensions"]["problems"]
    assert [(p["message"], p.get("line")) for p in problems] == [(REFERENCE_REFUSED, 3)]
    assert await state(pool, ws, made.page) == before


# Workspace isolation ---------------------------------------------------------------------------


@dataclass
class Rival:
    """Another workspace's record page (two versions) and proposal."""

    record: str
    page: str
    version: str
    key: str
    proposal: str
    before: dict[str, Any]


@pytest.fixture
async def rival(pool: asyncpg.Pool, client: httpx.AsyncClient, ws2: Workspace) -> Rival:
    theirs = await matrix_page(pool, ws2, "record")
    assert theirs.about is not None
    await write_page(pool, ws2, theirs.page, "- Rival plans a merger — Bob, 2026-10-02 [décision]")
    before = await state(pool, ws2, theirs.page)
    text = {"text": "Rival merges", "record": theirs.about}
    proposed = data(await gql(client, ws2.tokens["member"], PROPOSE, text))
    return Rival(
        record=theirs.about,
        page=theirs.page,
        version=version_gid(ws2, before, 1),
        key=before["lines"][0]["key"],
        proposal=proposed["proposeMemory"]["id"],
        before=before,
    )


async def id_answers(
    client: httpx.AsyncClient, token: str, page: str, version: str, key: str
) -> list[httpx.Response]:
    """What every read and write of memory that takes a page or a version id answers."""
    return [
        await gql(client, token, MEMORY_PAGE, {"id": page}),
        await gql(client, token, VERSIONS, {"id": page}),
        await gql(client, token, ONE_VERSION, {"id": version}),
        await gql(client, token, EDIT, {"id": page, "content": ADDED}),
        await gql(client, token, DELETE, {"id": page, "key": key}),
        await gql(client, token, RESTORE, {"id": page}),
        await gql(client, token, ROLLBACK, {"id": version}),
        await gql(client, token, REDACT, {"id": version}),
    ]


@pytest.mark.parametrize("who", ["admin", "member", "agent"])
async def test_another_workspaces_memory_ids_name_nothing(pool, client, ws, ws2, rival, who):
    token = ws.tokens[who]
    raw = await id_answers(client, token, rival.page, rival.version, rival.key)
    # The same uuids under this workspace's ids name nothing either.
    forged = await id_answers(
        client,
        token,
        ws.gid(local(ws2, rival.page, "MemoryPage"), "MemoryPage"),
        ws.gid(local(ws2, rival.version, "MemoryVersion"), "MemoryVersion"),
        rival.key,
    )
    missing = await id_answers(
        client,
        token,
        ws.gid(uuid.uuid4(), "MemoryPage"),
        ws.gid(uuid.uuid4(), "MemoryVersion"),
        rival.key,
    )
    for got in raw + forged:
        assert got.json()["data"] is None
        assert "merger" not in got.text and "Rival" not in got.text
    assert [codes(got) for got in raw] == [["NOT_FOUND"]] * len(raw)
    # An agent is refused every edit before any page is looked for, whatever the id names.
    for got, absent in zip(forged, missing, strict=True):
        assert codes(got) in (["NOT_FOUND"], ["FORBIDDEN"])
        assert got.json() == absent.json()
    # A proposal id is no page id, here or there.
    as_page = await gql(client, token, MEMORY_PAGE, {"id": rival.proposal})
    assert codes(as_page) == ["NOT_FOUND"]
    assert "Rival" not in as_page.text
    # Their record names nothing to propose about or to find a page by.
    proposed = await gql(client, token, PROPOSE, {"text": "Steal", "record": rival.record})
    assert codes(proposed) == ["NOT_FOUND"]
    by_record = await gql(client, token, BY_RECORD, {"id": rival.record})
    assert codes(by_record) == ["NOT_FOUND"] or by_record.json() == {
        "data": {"memoryPageByRecord": None}
    }
    assert "Rival" not in by_record.text
    forged_record = ws.gid(local(ws2, rival.record))
    by_forged = await gql(client, token, BY_RECORD, {"id": forged_record})
    assert by_forged.json() == {"data": {"memoryPageByRecord": None}}
    mine = await gql(client, token, MY_PROPOSALS)
    assert data(mine) == {"myMemoryProposals": []}
    assert await state(pool, ws2, rival.page) == rival.before


async def test_another_workspaces_ids_are_answered_like_missing_ones(client, ws, rival):
    """An id of another workspace is answered exactly like an id that names nothing
    (resolvers.ids.decode: "answered exactly like a missing node")."""
    token = ws.tokens["admin"]
    raw = await id_answers(client, token, rival.page, rival.version, rival.key)
    missing = await id_answers(
        client,
        token,
        ws.gid(uuid.uuid4(), "MemoryPage"),
        ws.gid(uuid.uuid4(), "MemoryVersion"),
        rival.key,
    )
    assert [got.json() for got in raw] == [absent.json() for absent in missing]


# Proposals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["member", "agent", "mcp_client", "viewer", "api_key"])
async def test_who_proposes(pool, client, ws, who):
    acme = await company(pool, ws)
    response = await gql(
        client, ws.tokens[who], PROPOSE, {"text": "Acme prefers mail", "record": acme}
    )
    if who == "api_key":
        assert codes(response) == ["FORBIDDEN"]
        assert response.json()["data"] is None
        assert await fetch(pool, ws, "SELECT id FROM memory_proposals") == []
        return
    found = data(response)["proposeMemory"]
    person = ws.gid(ws.members[ACTS_FOR[who]], "Member")
    assert found["text"] == "Acme prefers mail"
    assert found["recordId"] == acme
    assert found["onBehalfOfId"] == person
    assert found["status"] == "WAITING"
    assert found["proposerName"] == {"agent": "Scout", "mcp_client": "Desktop"}.get(
        who, who.title()
    )


@pytest.mark.parametrize("who", ["member", "agent", "mcp_client"])
async def test_a_proposal_about_an_unreadable_record_is_not_found(pool, client, ws, who):
    hidden = await private_deal(pool, ws, "other", "Others deal")
    token = ws.tokens[who]
    refused = await gql(client, token, PROPOSE, {"text": "Others deal is late", "record": hidden})
    missing = await gql(
        client, token, PROPOSE, {"text": "Others deal is late", "record": ws.gid(uuid.uuid4())}
    )
    assert codes(refused) == ["NOT_FOUND"]
    assert refused.json() == missing.json()
    assert "Others deal" not in refused.text.replace("Others deal is late", "")
    assert await fetch(pool, ws, "SELECT id FROM memory_proposals") == []


async def test_a_proposer_sees_only_its_own_proposals(pool, client, ws):
    said = {
        "member": "Member says",
        "agent": "Scout says",
        "mcp_client": "Desktop says",
        "other": "Other says",
    }
    for who, text in said.items():
        data(await gql(client, ws.tokens[who], PROPOSE, {"text": text}))
    for who, text in said.items():
        mine = data(await gql(client, ws.tokens[who], MY_PROPOSALS))["myMemoryProposals"]
        assert [p["text"] for p in mine] == [text], who
    assert data(await gql(client, ws.tokens["admin"], MY_PROPOSALS)) == {"myMemoryProposals": []}
    key = await gql(client, ws.tokens["api_key"], MY_PROPOSALS)
    assert codes(key) == ["FORBIDDEN"] or data(key) == {"myMemoryProposals": []}


async def test_an_agent_for_another_person_sees_none_of_the_first_persons_proposals(
    pool, client, ws
):
    """Scout acting for Member proposes; Scout acting for Other must not list it: what an
    agent proposes on your behalf is private to you (seed: "your proposals (yours, or an
    agent's on your behalf)")."""
    scout = await agent_named(pool, ws, "Scout")
    for_other = await agent_token_for(pool, ws, scout, "other")
    data(await gql(client, ws.tokens["agent"], PROPOSE, {"text": "Member's pay is late"}))
    data(await gql(client, for_other, PROPOSE, {"text": "Other's remark"}))
    theirs = await gql(client, for_other, MY_PROPOSALS)
    assert "Member's pay" not in theirs.text
    assert [p["text"] for p in data(theirs)["myMemoryProposals"]] == ["Other's remark"]
    mine = data(await gql(client, ws.tokens["agent"], MY_PROPOSALS))["myMemoryProposals"]
    assert [p["text"] for p in mine] == ["Member's pay is late"]


# Preferences and the workspace's settings ----------------------------------------------------

PREFERENCES = "{ memoryPreferences { shareWithTeam learnFromEmail } }"
SET_PREFERENCE = (
    "mutation($value: Boolean!) { setMemoryPreference(key: SHARE_WITH_TEAM, value: $value) "
    "{ shareWithTeam learnFromEmail } }"
)


async def preferences_of(client: httpx.AsyncClient, token: str) -> dict[str, bool]:
    found: dict[str, bool] = data(await gql(client, token, PREFERENCES))["memoryPreferences"]
    return found


async def put_preference(
    client: httpx.AsyncClient, token: str, key: str, value: Any
) -> httpx.Response:
    return await client.put(
        f"/users/me/preferences/{key}", json={"value": value}, headers=bearer(token)
    )


async def test_a_member_sets_their_own_preferences(client, ws):
    token = ws.tokens["member"]
    found = data(await gql(client, token, SET_PREFERENCE, {"value": False}))
    assert found["setMemoryPreference"] == {"shareWithTeam": False, "learnFromEmail": True}
    response = await put_preference(client, token, "memory.learnFromEmail", False)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["key"], body["value"]) == ("memory.learnFromEmail", False)
    # Off, it still says when it was last on: since the member was added (the default).
    assert body["onSince"] is not None
    off = {"shareWithTeam": False, "learnFromEmail": False}
    for who in ("member", "agent", "mcp_client"):
        assert await preferences_of(client, ws.tokens[who]) == off
    on = {"shareWithTeam": True, "learnFromEmail": True}
    for who in ("admin", "viewer", "other"):
        assert await preferences_of(client, ws.tokens[who]) == on


@pytest.mark.parametrize("who", NOT_PEOPLE)
async def test_only_a_persons_own_session_sets_their_preferences(client, ws, who):
    token = ws.tokens[who]
    refused = await gql(client, token, SET_PREFERENCE, {"value": False})
    assert codes(refused) == ["FORBIDDEN"]
    assert refused.json()["data"] is None
    for key in ("memory.shareWithTeam", "memory.learnFromEmail"):
        response = await put_preference(client, token, key, False)
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == "FORBIDDEN"
    assert await preferences_of(client, ws.tokens["member"]) == {
        "shareWithTeam": True,
        "learnFromEmail": True,
    }


UPDATE_SETTINGS = (
    "mutation($input: TenantSettingsInput!) { updateTenantSettings(input: $input) "
    "{ memoryPersonMonthlyLimitUsd memoryTenantMonthlyLimitUsd } }"
)


async def settings_now(client: httpx.AsyncClient, ws: Workspace) -> dict[str, Any]:
    response = await client.get("/tenant/settings", headers=bearer(ws.tokens["admin"]))
    assert response.status_code == 200
    found: dict[str, Any] = response.json()
    return found


@pytest.mark.parametrize("who", PRINCIPALS)
async def test_only_the_settings_right_sets_the_allowances(client, ws, who):
    token = ws.tokens[who]
    wanted = {"memoryPersonMonthlyLimitUsd": "3.00", "memoryTenantMonthlyLimitUsd": "8.00"}
    through_graphql = await gql(client, token, UPDATE_SETTINGS, {"input": wanted})
    if who == "admin":
        assert data(through_graphql) == {"updateTenantSettings": wanted}
        assert await settings_now(client, ws) == {**wanted, "aiCredits": True}
    else:
        assert codes(through_graphql) == ["FORBIDDEN"]
        assert through_graphql.json()["data"] is None
    then = {"memoryPersonMonthlyLimitUsd": "4", "memoryTenantMonthlyLimitUsd": None}
    through_http = await client.patch("/tenant/settings", json=then, headers=bearer(token))
    if who == "admin":
        assert through_http.status_code == 200, through_http.text
        assert through_http.json() == {**then, "aiCredits": True}
        assert await settings_now(client, ws) == {**then, "aiCredits": True}
        return
    assert through_http.status_code == 403, through_http.text
    assert through_http.json()["error"]["code"] == "FORBIDDEN"
    assert await settings_now(client, ws) == {
        "memoryPersonMonthlyLimitUsd": None,
        "memoryTenantMonthlyLimitUsd": None,
        "aiCredits": True,
    }


# Deleting a souvenir from a record's page over HTTP -----------------------------------------


async def patch_souvenir(
    client: httpx.AsyncClient, token: str, obj: str, record: str, body: dict[str, Any]
) -> httpx.Response:
    return await client.patch(
        f"/v1/records/{obj}/{record}/memory", json=body, headers=bearer(token)
    )


async def test_a_souvenir_is_deleted_from_its_records_page(pool, client, ws):
    made = await matrix_page(pool, ws, "record")
    assert made.about is not None
    before = await state(pool, ws, made.page)
    key = before["lines"][0]["key"]
    response = await patch_souvenir(
        client, ws.tokens["member"], "companies", made.about, {"pageId": made.page, "key": key}
    )
    assert response.status_code == 200, response.text
    page = response.json()["page"]
    assert page["id"] == made.page
    assert page["content"] == SECOND
    assert page["version"] == 3
    assert key not in [s["key"] for s in page["souvenirs"]]


async def test_a_souvenir_is_deleted_only_through_its_own_record(pool, client, ws):
    made = await matrix_page(pool, ws, "record")
    elsewhere = await matrix_page(pool, ws, "private_record")  # Member's deal, its own page
    assert made.about is not None and elsewhere.about is not None
    before = await state(pool, ws, made.page)
    key = before["lines"][0]["key"]
    token = ws.tokens["member"]
    wrong = [
        ("deals", made.about, made.page),  # the wrong object
        ("no_such_object", made.about, made.page),
        ("contacts", made.about, made.page),
        ("companies", elsewhere.about, made.page),  # another record
        ("deals", elsewhere.about, made.page),
        ("companies", ws.gid(uuid.uuid4()), made.page),
        ("companies", made.about, elsewhere.page),  # another page
        ("companies", made.about, ws.gid(uuid.uuid4(), "MemoryPage")),
    ]
    for obj, record, page in wrong:
        response = await patch_souvenir(client, token, obj, record, {"pageId": page, "key": key})
        assert response.status_code == 404, (obj, record, page, response.text)
        assert response.json()["error"]["code"] == "NOT_FOUND"
        assert "Pays late" not in response.text
    assert await state(pool, ws, made.page) == before
    assert (await state(pool, ws, elsewhere.page))["version"] == 2


@pytest.mark.parametrize("who", ["viewer", "agent", "mcp_client", "api_key"])
async def test_a_souvenir_is_deleted_over_http_only_by_who_may_edit(pool, client, ws, who):
    made = await matrix_page(pool, ws, "record")
    assert made.about is not None
    before = await state(pool, ws, made.page)
    body = {"pageId": made.page, "key": before["lines"][0]["key"]}
    response = await patch_souvenir(client, ws.tokens[who], "companies", made.about, body)
    status = 404 if who == "api_key" else 403
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == ("NOT_FOUND" if status == 404 else "FORBIDDEN")
    assert await state(pool, ws, made.page) == before
