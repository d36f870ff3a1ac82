"""A conversation's read-only memory store through the `anthropic` SDK itself (issue 14, item
6): while the conversation is open its agent's writes to the store answer 403
`permission_error` on every write route; reads go on, a read-write store is written, the person
is not narrowed, and the end of the conversation lifts the rule."""

from __future__ import annotations

import anthropic
import pytest

from tests.agents.test_skills import SET
from tests.factories import agent_id, codes, data, gql
from tests.skills.test_service import create
from tests.turns.test_attachments import attach, make_store, start


async def test_the_agent_writes_no_read_only_store_through_the_sdk(client, pool, sdk, ws):
    shared = await make_store(pool, ws, "Shared reference")
    own = await make_store(pool, ws, "Per-user")
    agent = sdk(ws.tokens["agent"]).beta.memory_stores
    person = sdk(ws.tokens["member"]).beta.memory_stores
    written = await agent.memories.create(shared, path="/before.md", content="Before.")
    attached = [attach(shared, "read_only", "Check first."), attach(own, "read_write")]
    assert not codes(await start(client, ws.tokens["agent"], "s-1", attached))
    with pytest.raises(anthropic.PermissionDeniedError) as refused:
        await agent.memories.create(shared, path="/notes.md", content="Mine now.")
    assert refused.value.status_code == 403
    for write in (
        agent.memories.update(written.id, memory_store_id=shared, content="Changed."),
        agent.memories.delete(written.id, memory_store_id=shared),
        agent.update(shared, name="Renamed"),
        agent.archive(shared),
        agent.delete(shared),
    ):
        with pytest.raises(anthropic.PermissionDeniedError):
            await write
    # Reading stays; the read-write store is written; the person is not narrowed.
    assert (await agent.memories.retrieve(written.id, memory_store_id=shared)).content == "Before."
    await agent.memories.create(own, path="/notes.md", content="Mine.")
    await person.memories.create(shared, path="/person.md", content="By the person.")
    # Once the conversation ends its read-only attachment no longer holds the agent.
    end = 'mutation { endConversation(conversationId: "s-1") { ended } }'
    assert not codes(await gql(client, ws.tokens["agent"], end))
    await agent.memories.create(shared, path="/after.md", content="After.")


async def test_the_sdks_ids_attach_a_skill_and_a_store(client, pool, sdk, ws):
    made = await create(client, ws.tokens["admin"], "invoice-followup")
    assert made.json()["data"]["createSkill"]["name"] == "invoice-followup"
    admin = sdk(ws.tokens["admin"]).beta
    [skill] = [s async for s in admin.skills.list()]
    store = await admin.memory_stores.create(name="Team notes")
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    attached = await gql(
        client,
        ws.tokens["admin"],
        SET,
        {"id": scout, "skills": [{"type": "custom", "skillId": skill.id, "version": "latest"}]},
    )
    assert data(attached)["setAgentSkills"][0]["skillId"] == skill.id
    started = await start(client, ws.tokens["admin"], "c-1", [attach(store.id, "read_only")])
    assert data(started)["startConversation"]["memoryStores"][0]["memoryStoreId"] == store.id


async def test_a_deleted_store_leaves_its_conversations(client, pool, sdk, ws):
    admin = sdk(ws.tokens["admin"]).beta.memory_stores
    store = await admin.create(name="Team notes")
    assert not codes(await start(client, ws.tokens["admin"], "c-1", [attach(store.id)]))
    await admin.delete(store.id)
    read = 'query { conversation(conversationId: "c-1") { memoryStores { name } } }'
    assert data(await gql(client, ws.tokens["admin"], read))["conversation"]["memoryStores"] == []
