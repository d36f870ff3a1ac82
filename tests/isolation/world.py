"""Two workspaces holding one of each thing an id can name, for the isolation sweep.

Workspace A is the caller's (its admin asks every door); B is the other workspace. In A, the
member ``other`` also holds private things (a private deal, its page, a private store, a
personal mailbox, a private skill, its own conversation) that A's admin may not read. Each
thing is kept as (type name, workspace, local id) so that every door can spell it its own way:
a GraphQL id, an SDK id (``memstore_…``) or an MCP reference (``record:…``)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import asyncpg
import httpx

from db import identity
from db.pool import begin_workspace
from resolvers.catalog import approvals
from resolvers.catalog.settings import CatalogSettings
from resolvers.common import ids
from resolvers.common.principals import issue_token, principal_for_token
from tests.factories import (
    Workspace,
    agent_id,
    bearer,
    company,
    data,
    gql,
    make_page,
    make_workspace,
    private_deal,
    write_page,
)

SOUVENIR = "- Pays its invoices at 60 days — Claire, 2026-10-02 [relation]"
SOUVENIR_TOO = "- Prefers calls before noon — Claire, 2026-10-03 [preference]"
# The SDK prefix of each kind an SDK-style id names (gateway/anthropic/).
SDK_PREFIXES = {
    "MemoryStore": "memstore",
    "StoreMemory": "mem",
    "StoreMemoryVersion": "memver",
    "Dream": "drm",
    "Skill": "skill",
    "SkillVersion": "skillver",
    "Conversation": "sesn",
}


@dataclass(frozen=True, slots=True)
class Thing:
    """One thing an id names: its GraphQL type name, its workspace and its local id. A
    conversation is named by its owner's own string instead (``text``)."""

    type_name: str
    workspace_id: UUID
    local: UUID
    text: str = ""

    def gid(self) -> str:
        return self.text or ids.encode(self.type_name, self.workspace_id, self.local)

    def sdk(self) -> str:
        return f"{SDK_PREFIXES[self.type_name]}_{self.gid()}"


def thing(type_name: str, workspace_id: UUID, gid_or_sdk: str) -> Thing:
    """A thing from the id a door answered (a GraphQL id, or an SDK id)."""
    _, _, gid = gid_or_sdk.rpartition("_") if "_" in gid_or_sdk else ("", "", gid_or_sdk)
    return Thing(type_name, workspace_id, ids.decode(gid, type_name, workspace_id))


@dataclass
class World:
    a: Workspace
    b: Workspace
    home: dict[str, Thing]  # A's, readable by A's admin
    foreign: dict[str, Thing]  # B's
    private: dict[str, Thing]  # A's, of ``other``, not readable by A's admin

    def get(self, variant: str, kind: str) -> Thing:
        """The thing of ``kind`` a variant names: missing, foreign, private or home."""
        if variant == "missing":
            return self.missing(kind)
        found: Thing = getattr(self, variant)[kind]
        return found

    def missing(self, kind: str) -> Thing:
        """A well-formed id of ``kind`` in A that names nothing."""
        like = self.home[kind]
        if like.text:
            return Thing(like.type_name, like.workspace_id, like.local, f"none-{uuid4().hex}")
        return Thing(like.type_name, like.workspace_id, uuid4())


class Api:
    """The app's doors as one principal of a workspace."""

    def __init__(self, client: httpx.AsyncClient, ws: Workspace, who: str) -> None:
        self.client, self.ws, self.token = client, ws, ws.tokens[who]

    async def gql(self, query: str, **variables: Any) -> Any:
        return data(await gql(self.client, self.token, query, variables))

    async def json(self, method: str, path: str, body: Any = None) -> Any:
        sent = await self.client.request(method, path, json=body, headers=bearer(self.token))
        assert sent.status_code < 300, (path, sent.text)
        return sent.json()


MEETING = """mutation M($input: RecordMeetingInput!) { recordMeeting(input: $input) { id } }"""
MAILBOX = """mutation B($input: CreateMailboxInput!) { createMailbox(input: $input) { id } }"""
SKILL = """mutation S($input: CreateSkillInput!) { createSkill(input: $input) { name } }"""
START = """mutation C($id: String!, $stores: [ConversationStoreInput!]) {
  startConversation(conversationId: $id, memoryStores: $stores) { conversationId } }"""
MESSAGE = (
    """mutation R($input: RecordMessageInput!) { recordMessage(input: $input) { messageId } }"""
)
VERSIONS = """query V($page: ID!) { memoryVersions(pageId: $page) { id } }"""


async def holdings(
    pool: asyncpg.Pool,
    client: httpx.AsyncClient,
    ws: Workspace,
    who: str,
    private: bool,
    tag: str = "",
) -> dict[str, Thing]:
    """One of each kind made by ``who`` (private when asked), keyed by kind; ``tag`` tells
    apart the names of a later set."""
    api = Api(client, ws, who)
    made: dict[str, Thing] = {}
    scope, visibility = ("PRIVATE", "private") if private else ("WORKSPACE", "workspace")
    record = await (private_deal(pool, ws, who, "Secret") if private else company(pool, ws, "Acme"))
    made["Record"] = thing("Record", ws.id, record)
    meeting = await api.gql(
        MEETING,
        input={
            "externalId": f"meet-{who}{tag}",
            "title": "Review",
            "transcript": "Claire: Acme pays at 60 days.",
            "recordIds": [record],
            "scope": scope,
        },
    )
    made["Meeting"] = thing("Record", ws.id, meeting["recordMeeting"]["id"])
    page = await make_page(pool, ws, "record", made["Record"].local, SOUVENIR, name="Acme")
    await write_page(pool, ws, page, SOUVENIR + "\n" + SOUVENIR_TOO)
    made["MemoryPage"] = thing("MemoryPage", ws.id, page)
    versions = await api.gql(VERSIONS, page=page)
    made["MemoryVersion"] = thing("MemoryVersion", ws.id, versions["memoryVersions"][-1]["id"])
    box = {
        "externalId": f"box-{who}{tag}",
        "name": "Inbox",
        "kind": "PERSONAL" if private else "SHARED",
    }
    mailbox = await api.gql(MAILBOX, input=box)
    made["Mailbox"] = thing("Mailbox", ws.id, mailbox["createMailbox"]["id"])
    await store_holdings(api, made, visibility)
    name = f"sweep-{ws.name.lower()}-{who}{tag}"
    await skill_holdings(api, made, visibility.upper(), name)
    await conversation_holdings(pool, api, made, who, name)
    made["CatalogApproval"] = await approval_holding(pool, ws, who)
    return made


async def approval_holding(pool: asyncpg.Pool, ws: Workspace, who: str) -> Thing:
    """A community search the workspace's agent asked of ``who`` (an approval only ``who``
    sees and decides; deciding it asks no server: the tests' directory is closed)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        agent = await agent_id(pool, ws)
        token = await issue_token(
            conn, "agent", member_id=ws.members[who], agent_id=agent, purpose="test"
        )
        principal = await principal_for_token(conn, token)
        assert principal is not None
        row = await approvals.ask_search(conn, principal, CatalogSettings(), "xlsx reports")
    return Thing("CatalogApproval", ws.id, row.id)


async def store_holdings(api: Api, made: dict[str, Thing], visibility: str) -> None:
    """A memory store with one memory (and its version), and a dream of that store."""
    ws = api.ws.id
    store = await api.json("POST", "/v1/memory_stores", {"name": "Prefs", "visibility": visibility})
    made["MemoryStore"] = thing("MemoryStore", ws, store["id"])
    memory = await api.json(
        "POST", f"/v1/memory_stores/{store['id']}/memories", {"path": "/a.md", "content": "A\n"}
    )
    made["StoreMemory"] = thing("StoreMemory", ws, memory["id"])
    made["StoreMemoryVersion"] = thing("StoreMemoryVersion", ws, memory["memory_version_id"])
    inputs = [{"type": "memory_store", "memory_store_id": store["id"]}]
    dream = await api.json("POST", "/v1/dreams", {"inputs": inputs, "model": "m"})
    made["Dream"] = thing("Dream", ws, dream["id"])


async def skill_holdings(api: Api, made: dict[str, Thing], visibility: str, name: str) -> None:
    """A skill (and its version), as the SDK's routes name them."""
    skill = {"name": name, "description": "Chase invoices.", "visibility": visibility}
    await api.gql(SKILL, input=skill)
    listed = await api.json("GET", "/v1/skills?source=custom&limit=1000")
    [found] = [s for s in listed["data"] if s["display_name"] == name]
    made["Skill"] = thing("Skill", api.ws.id, found["id"])
    made["SkillVersion"] = thing("SkillVersion", api.ws.id, found["latest_version_id"])
    made["SkillName"] = Thing("Skill", api.ws.id, made["Skill"].local, name)


async def conversation_holdings(
    pool: asyncpg.Pool, api: Api, made: dict[str, Thing], who: str, name: str
) -> None:
    """A conversation ``who`` started and wrote in (each person's conversation ids are their
    own strings), and its id as a session."""
    await api.gql(START, id=name, stores=[])
    await api.gql(MESSAGE, input={"conversationId": name, "role": "USER", "text": "Hello."})
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, api.ws.id)
        local = await conn.fetchval(
            "SELECT id FROM conversations WHERE workspace_id = $1 AND external_id = $2"
            " AND person_id = $3",
            api.ws.id,
            name,
            api.ws.members[who],
        )
    made["Conversation"] = Thing("Conversation", api.ws.id, local, name)
    made["Session"] = Thing("Conversation", api.ws.id, local)


async def fresh_home(world: World, pool: asyncpg.Pool, client: httpx.AsyncClient) -> None:
    """A new set of the home workspace's things (its actors kept), for a control that
    deletes what it is given."""
    made = await holdings(pool, client, world.a, "admin", private=False, tag=f"-{uuid4().hex[:8]}")
    world.home.update(made)


async def fresh_conversations(world: World, client: httpx.AsyncClient) -> None:
    """New conversations for B's admin and A's ``other``, under a name A's admin has never
    used (a door that creates the caller's conversation may have taken the last one)."""
    for ws, who, kept in ((world.b, "admin", world.foreign), (world.a, "other", world.private)):
        name = f"elsewhere-{uuid4().hex}"
        api = Api(client, ws, who)
        await api.gql(START, id=name, stores=[])
        await api.gql(MESSAGE, input={"conversationId": name, "role": "USER", "text": "Hi."})
        kept["Conversation"] = Thing("Conversation", ws.id, kept["Conversation"].local, name)


async def actors(pool: asyncpg.Pool, ws: Workspace) -> dict[str, Thing]:
    """The agent, a member and a routine of ``ws``."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        routine = await identity.insert_actor(
            conn, "routine", uuid.uuid4(), "Nightly", ws.members["admin"]
        )
    found = {
        "Agent": Thing("Agent", ws.id, await agent_id(pool, ws)),
        "Member": Thing("Member", ws.id, ws.members["admin"]),
        "Routine": Thing("Routine", ws.id, routine.id),
    }
    # Profiles, so that a door reading one shows whether it read it.
    for kind in ("Agent", "Member"):
        about = found[kind].local
        await make_page(pool, ws, kind.lower(), about, SOUVENIR_TOO, name=f"{kind} profile")
    return found


async def make_world(pool: asyncpg.Pool, client: httpx.AsyncClient) -> World:
    a = await make_workspace(pool, "Acmecorp")
    b = await make_workspace(pool, "Rival")
    home = await holdings(pool, client, a, "admin", private=False) | await actors(pool, a)
    foreign = await holdings(pool, client, b, "admin", private=False) | await actors(pool, b)
    private = await holdings(pool, client, a, "other", private=True)
    # A personal mailbox is no secret to the admin: whoever may update the settings posts any
    # mailbox's mail (resolvers/memory/mail/mailboxes.trusted), so it is swept as home only.
    del private["Mailbox"]
    return World(a, b, home, foreign, private)
