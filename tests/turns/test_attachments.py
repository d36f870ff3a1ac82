"""A conversation created with its memory stores (issue 14, item 6; seed 001: "Attach at
session-create time (only)", "Max 8 memory stores per session"): startConversation attaches at
most 8 stores, each read_only or read_write with instructions, before the conversation's first
turn or message and never after; the conversation's agent writes none of its read-only stores
through any surface (the SDK's routes: 403 permission_error; GraphQL and the resolvers:
FORBIDDEN); other workspaces' stores are NOT_FOUND."""

from __future__ import annotations

import pytest

from db.pool import begin_workspace
from resolvers.common.principals import principal_for_token
from resolvers.stores import stores
from resolvers.stores.workspace import WORKSPACE_STORE_ID
from resolvers.turns.attachments import (
    StoreAttachment,
    parse_stores,
    public_store_id,
)
from tests.factories import Workspace, agent_id, codes, data, gql, problems

START = """mutation Start($id: String!, $agent: ID, $stores: [ConversationStoreInput!]) {
  startConversation(conversationId: $id, agentId: $agent, memoryStores: $stores) {
    conversationId agentId memoryStores { memoryStoreId access instructions name description }
  }
}"""
READ = """query Read($id: String!) {
  conversation(conversationId: $id) { conversationId memoryStores { memoryStoreId access } }
}"""
TURN = """query Turn($message: String!, $conversation: String) {
  turnContext(input: {message: $message, conversationId: $conversation}) { text }
}"""


async def make_store(pool, ws: Workspace, name: str, who: str = "member") -> str:
    """A workspace-visible store made by ``who``; its `memstore_…` id."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        principal = await principal_for_token(conn, ws.tokens[who])
        assert principal is not None
        made = await stores.create_store(conn, principal, stores.StoreInput(name, "About " + name))
    return public_store_id(ws.id, made.id)


def attach(store: str, access: str = "read_write", instructions: str = "") -> dict[str, str]:
    return {"memoryStoreId": store, "access": access, "instructions": instructions}


async def start(client, token: str, conversation: str, attached: list[dict[str, str]], **more):
    variables = {"id": conversation, "stores": attached, **more}
    return await gql(client, token, START, variables)


async def attachment_rows(pool, ws: Workspace) -> int:
    async with pool.acquire() as conn:
        value: int = await conn.fetchval(
            "SELECT count(*) FROM conversation_memory_stores WHERE workspace_id = $1", ws.id
        )
    return value


async def test_a_conversation_attaches_8_stores_and_the_9th_is_refused(client, pool, ws):
    made = [await make_store(pool, ws, f"Store {n}") for n in range(9)]
    eight = [
        attach(s, "read_only" if n % 2 else "read_write", f"Notes {n}.")
        for n, s in enumerate(made[:8])
    ]
    refused = await start(client, ws.tokens["member"], "c-9", [*eight, attach(made[8])])
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    assert problems(refused) == [
        {"field": "memoryStores", "message": "a conversation attaches at most 8 memory stores"}
    ]
    assert await attachment_rows(pool, ws) == 0
    started = data(await start(client, ws.tokens["member"], "c-8", eight))["startConversation"]
    assert [s["name"] for s in started["memoryStores"]] == [f"Store {n}" for n in range(8)]
    assert started["memoryStores"][1]["access"] == "read_only"
    assert started["memoryStores"][1]["instructions"] == "Notes 1."
    assert started["memoryStores"][0]["description"] == "About Store 0"
    read = data(await gql(client, ws.tokens["member"], READ, {"id": "c-8"}))["conversation"]
    assert [s["memoryStoreId"] for s in read["memoryStores"]] == made[:8]
    assert await attachment_rows(pool, ws) == 8


async def test_stores_attach_at_creation_only(client, pool, ws):
    store = await make_store(pool, ws, "Prefs")
    assert not codes(await start(client, ws.tokens["member"], "c-1", []))
    again = await start(client, ws.tokens["member"], "c-1", [attach(store)])
    assert codes(again) == ["SCHEMA_VALIDATION_FAILED"]
    assert problems(again)[0]["field"] == "memoryStores"
    # A conversation begun by its first turn is not created afterwards either.
    assert not codes(
        await gql(client, ws.tokens["member"], TURN, {"message": "Hi", "conversation": "c-2"})
    )
    late = await start(client, ws.tokens["member"], "c-2", [attach(store)])
    assert codes(late) == ["SCHEMA_VALIDATION_FAILED"]
    assert await attachment_rows(pool, ws) == 0
    # Another person's conversation of the same id is theirs: created freely.
    assert not codes(await start(client, ws.tokens["other"], "c-1", [attach(store)]))


async def test_a_created_conversation_keeps_its_agent(client, pool, ws):
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    made = data(await start(client, ws.tokens["agent"], "c-a", []))["startConversation"]
    assert made["agentId"] == scout
    # The person's own token speaks in it without the agent: refused as another agent's.
    turn = await gql(client, ws.tokens["member"], TURN, {"message": "Hi", "conversation": "c-a"})
    assert codes(turn) == ["FORBIDDEN"]
    assert not codes(
        await gql(client, ws.tokens["agent"], TURN, {"message": "Hi", "conversation": "c-a"})
    )


async def test_every_problem_is_listed_and_other_workspaces_stores_are_not_found(
    client, pool, ws, ws2
):
    mine = await make_store(pool, ws, "Mine")
    workspace_store = public_store_id(ws.id, WORKSPACE_STORE_ID)
    given = [
        attach(mine, "write"),
        attach("memstore_nope"),
        attach(workspace_store, "read_write"),
        attach(mine, instructions="x" * 4097),
    ]
    refused = await start(client, ws.tokens["member"], "c-1", given)
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    assert {p["field"] for p in problems(refused)} == {
        "memoryStores[0].access",
        "memoryStores[1].memoryStoreId",
        "memoryStores[2].access",
        "memoryStores[3].instructions",
        "memoryStores[3].memoryStoreId",
    }
    theirs = await make_store(pool, ws2, "Theirs")
    assert codes(await start(client, ws.tokens["member"], "c-1", [attach(theirs)])) == ["NOT_FOUND"]
    assert await attachment_rows(pool, ws) == 0
    # The workspace's memory store attaches read-only.
    made = await start(client, ws.tokens["member"], "c-1", [attach(workspace_store, "read_only")])
    assert data(made)["startConversation"]["memoryStores"][0]["name"] == "Workspace memory"


async def test_the_agent_writes_no_read_only_store_through_the_resolvers(client, pool, ws):
    shared = await make_store(pool, ws, "Shared reference")
    assert not codes(await start(client, ws.tokens["agent"], "s-1", [attach(shared, "read_only")]))
    from resolvers.stores import memories
    from resolvers.turns.attachments import store_id_of

    async with pool.acquire() as conn:
        async with conn.transaction():
            await begin_workspace(conn, ws.id)
            principal = await principal_for_token(conn, ws.tokens["agent"])
            assert principal is not None
            store_id = store_id_of(shared, ws.id, "id")
            with pytest.raises(Exception) as refused:
                await memories.create_memory(conn, principal, store_id, "/x.md", "x")
    assert getattr(refused.value, "code", None) == "FORBIDDEN"


def test_a_store_is_attached_once():
    workspace = WORKSPACE_STORE_ID
    store = public_store_id(workspace, WORKSPACE_STORE_ID)
    given = [StoreAttachment(store, "read_only"), StoreAttachment(store, "read_only")]
    _, missing, found = parse_stores(given, workspace)
    assert [p.field for p in found] == ["memoryStores[1].memoryStoreId"]
    assert missing == []
