"""Helpers of the intake tests: the GraphQL documents that record sources, and what the
database holds for a workspace (read as the owner, past row-level security)."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import asyncpg
import httpx

from db import identity
from db.pool import begin_workspace
from resolvers.common.principals import issue_token
from tests.factories import Workspace, data, gql

ITEM = "item { status reason urgent shareWithTeam arrivedAt }"
RECORD_MESSAGE = f"""mutation($i: RecordMessageInput!) {{ recordMessage(input: $i) {{
  conversationId messageId role text attachedRecordId readAnotherConversation at scope replayed
  {ITEM} }} }}"""
RECORD_MEETING = f"""mutation($i: RecordMeetingInput!) {{ recordMeeting(input: $i) {{
  id externalId title heldAt scope recordIds replayed {ITEM} }} }}"""
RECORD_RUN = f"""mutation($i: RecordRunInput!) {{ recordRun(input: $i) {{
  externalId runnerKind agentId routineId ownerId scope mission retried failedBefore
  answeredAfterMission conversationId parentRunId startedAt replayed {ITEM} }} }}"""
PROPOSE = """mutation($t: String!, $c: String, $r: ID) {
  proposeMemory(text: $t, conversationId: $c, recordId: $r) { id status verdict decidedAt } }"""

# The tables the intake writes (and the meeting records it makes).
INTAKE_TABLES = (
    "conversations",
    "conversation_messages",
    "meeting_transcripts",
    "meeting_links",
    "runs",
    "memory_items",
    "memory_proposals",
)


async def say(
    client: httpx.AsyncClient, token: str, text: str, conversation: str = "c1", **more: Any
) -> httpx.Response:
    """Record one message of ``conversation`` (role user unless ``role`` is given)."""
    given = {"conversationId": conversation, "role": "USER", "text": text, **more}
    return await gql(client, token, RECORD_MESSAGE, {"i": given})


async def said(
    client: httpx.AsyncClient, token: str, text: str, conversation: str = "c1", **more: Any
) -> dict[str, Any]:
    """``say``, which must succeed: the recorded message."""
    found: dict[str, Any] = data(await say(client, token, text, conversation, **more))[
        "recordMessage"
    ]
    return found


async def run(client: httpx.AsyncClient, token: str, **given: Any) -> httpx.Response:
    given.setdefault("externalId", f"run-{uuid4().hex[:8]}")
    given.setdefault("mission", "Chase the unpaid invoices of the week.")
    return await gql(client, token, RECORD_RUN, {"i": given})


async def meeting(client: httpx.AsyncClient, token: str, **given: Any) -> httpx.Response:
    given.setdefault("externalId", f"meet-{uuid4().hex[:8]}")
    given.setdefault("title", "Weekly with Acme")
    given.setdefault("transcript", "Claire: we sign in March.")
    return await gql(client, token, RECORD_MEETING, {"i": given})


async def items(pool: asyncpg.Pool, ws: Workspace, kind: str | None = None) -> list[dict[str, Any]]:
    """The workspace's items (of ``kind``), in arrival order, with their source's external id
    (a message's, a meeting's, a run's; a proposal's text)."""
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            """SELECT i.*, COALESCE(m.external_id, t.external_id, r.external_id, p.text) AS source
                 FROM memory_items i
                 LEFT JOIN conversation_messages m
                        ON m.workspace_id = i.workspace_id AND m.id = i.message_id
                 LEFT JOIN meeting_transcripts t
                        ON t.workspace_id = i.workspace_id AND t.meeting_id = i.meeting_id
                 LEFT JOIN runs r ON r.workspace_id = i.workspace_id AND r.id = i.run_id
                 LEFT JOIN memory_proposals p
                        ON p.workspace_id = i.workspace_id AND p.id = i.proposal_id
                WHERE i.workspace_id = $1 AND ($2::text IS NULL OR i.kind = $2)
                ORDER BY i.arrived_at, m.said_at, i.id""",
            ws.id,
            kind,
        )
    return [dict(row) for row in rows]


def statuses(found: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(row["status"], row["reason"]) for row in found]


async def counts(pool: asyncpg.Pool, ws: Workspace) -> dict[str, int]:
    """How many rows each intake table holds for the workspace, and its meeting records."""
    found = {}
    async with pool.acquire() as conn:
        for table in INTAKE_TABLES:
            found[table] = await conn.fetchval(
                f"SELECT count(*) FROM {table} WHERE workspace_id = $1",  # noqa: S608
                ws.id,
            )
        found["meeting records"] = await conn.fetchval(
            "SELECT count(*) FROM records r JOIN objects o ON o.workspace_id = r.workspace_id"
            " AND o.id = r.object_id WHERE r.workspace_id = $1 AND o.slug = 'meeting'",
            ws.id,
        )
    return found


async def new_agent(pool: asyncpg.Pool, ws: Workspace, name: str, owner: str) -> tuple[UUID, str]:
    """Another agent owned by ``owner``, and a token of it acting for `member`."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        agent = await identity.insert_actor(conn, "agent", uuid4(), name, ws.members[owner])
        token = await issue_token(
            conn, "agent", member_id=ws.members["member"], agent_id=agent.id, purpose="test"
        )
    return agent.id, token


async def new_routine(pool: asyncpg.Pool, ws: Workspace, name: str, owner: str) -> UUID:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        routine = await identity.insert_actor(conn, "routine", uuid4(), name, ws.members[owner])
    return routine.id


async def admin_key(pool: asyncpg.Pool, ws: Workspace) -> str:
    """A token of an API key with the admin role (it reads memory and creates meetings)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        key = await identity.insert_actor(conn, "api_key", uuid4(), "ops", ws.roles["admin"])
        return await issue_token(conn, "api_key", api_key_id=key.id, purpose="test")
