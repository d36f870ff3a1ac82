"""A store's versions through the `anthropic` SDK (issue 14, item 3): one per create, modify
and delete with its actor (our principals as the SDK's actor kinds), surviving the memory's
delete, listed with filters, read, and redacted keeping id, operation, times and actor."""

from __future__ import annotations

import anthropic
import pytest

from db import identity
from db.pool import begin_workspace
from tests.factories import Workspace


async def test_versions_outlive_their_memory_with_their_actor(sdk, ws: Workspace):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    store = await client.create(name="Audited")
    made = await client.memories.create(store.id, path="/a.md", content="one")
    await client.memories.update(made.id, memory_store_id=store.id, content="two")
    await client.memories.update(made.id, memory_store_id=store.id, content="two")  # no change
    await client.memories.delete(made.id, memory_store_id=store.id)
    versions = [v async for v in client.memory_versions.list(store.id, memory_id=made.id)]
    assert [v.operation for v in versions] == ["deleted", "modified", "created"]
    assert versions[-1].id == made.memory_version_id
    member = "user_" + ws.gid(ws.members["member"], "Member")
    for version in versions:
        assert version.memory_id == made.id and version.memory_store_id == store.id
        assert version.created_by is not None
        assert version.created_by.type == "user_actor"
        assert version.created_by.user_id == member  # type: ignore[union-attr]
        assert version.content is None  # the list answers the basic view
    deleted, modified, created = versions
    assert (deleted.path, deleted.content_sha256, deleted.content_size_bytes) == (None, None, None)
    assert (modified.path, modified.content_size_bytes) == ("/a.md", 3)
    full = await client.memory_versions.retrieve(created.id, memory_store_id=store.id)
    assert full.content == "one"  # retrieve answers the full view
    only = [v.operation async for v in client.memory_versions.list(store.id, operation="modified")]
    assert only == ["modified"]
    listed = [v.content async for v in client.memory_versions.list(store.id, view="full")]
    assert listed == [None, "two", "one"]


async def test_a_redacted_version_keeps_its_id_operation_times_and_actor(sdk, ws: Workspace):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    store = await client.create(name="Leaky")
    made = await client.memories.create(store.id, path="/secret.md", content="password=hunter2")
    before = await client.memory_versions.retrieve(made.memory_version_id, memory_store_id=store.id)
    redacted = await client.memory_versions.redact(made.memory_version_id, memory_store_id=store.id)
    assert (redacted.content, redacted.path) == (None, None)
    assert (redacted.content_sha256, redacted.content_size_bytes) == (None, None)
    assert redacted.redacted_at is not None and redacted.redacted_by == before.created_by
    assert (redacted.id, redacted.memory_id, redacted.operation) == (
        before.id,
        before.memory_id,
        "created",
    )
    assert (redacted.created_at, redacted.created_by) == (before.created_at, before.created_by)
    again = await client.memory_versions.retrieve(made.memory_version_id, memory_store_id=store.id)
    assert again.content is None and again.redacted_at == redacted.redacted_at
    # The memory itself keeps its content: redaction scrubs the audit trail's copy.
    assert (await client.memories.retrieve(made.id, memory_store_id=store.id)).content


async def test_each_principal_is_its_actor_kind_and_filters_find_it(pool, sdk, ws: Workspace):
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await identity.upsert_role_permission(
            conn,
            ws.roles["integration"],
            ws.objects["memory_store"],
            read=True,
            create=True,
            update=True,
            delete=False,
        )
    key = sdk(ws.tokens["api_key"]).beta.memory_stores
    store = await key.create(name="Shared")
    by_key = await key.memories.create(store.id, path="/key.md", content="k")
    agent = sdk(ws.tokens["agent"]).beta.memory_stores
    by_agent = await agent.memories.create(store.id, path="/agent.md", content="a")
    mcp = sdk(ws.tokens["mcp_client"]).beta.memory_stores
    by_mcp = await mcp.memories.create(store.id, path="/mcp.md", content="m")
    kinds = {}
    async for version in key.memory_versions.list(store.id):
        assert version.created_by is not None
        kinds[version.memory_id] = version.created_by.to_dict()
    assert kinds[by_key.id]["type"] == "api_actor"
    assert kinds[by_agent.id]["type"] == "session_actor"
    assert kinds[by_mcp.id]["type"] == "service_account_actor"
    api_key_id = kinds[by_key.id]["api_key_id"]
    session_id = kinds[by_agent.id]["session_id"]
    account_id = kinds[by_mcp.id]["service_account_id"]
    assert (api_key_id[:7], session_id[:5], account_id[:5]) == ("apikey_", "sesn_", "svac_")
    filtered = {
        "api_key_id": api_key_id,
        "session_id": session_id,
        "service_account_id": account_id,
    }
    expected = {"api_key_id": by_key.id, "session_id": by_agent.id, "service_account_id": by_mcp.id}
    for name, value in filtered.items():
        found = [v.memory_id async for v in key.memory_versions.list(store.id, **{name: value})]
        assert found == [expected[name]], name
    # An id that names nothing here matches nothing.
    assert [v async for v in key.memory_versions.list(store.id, api_key_id="apikey_x")] == []


async def test_a_store_goes_with_its_memories_and_versions(sdk, ws: Workspace):
    client = sdk(ws.tokens["admin"]).beta.memory_stores
    store = await client.create(name="Short-lived")
    made = await client.memories.create(store.id, path="/a.md", content="a")
    await client.delete(store.id)
    with pytest.raises(anthropic.NotFoundError):
        await client.memory_versions.retrieve(made.memory_version_id, memory_store_id=store.id)
    with pytest.raises(anthropic.NotFoundError):
        await client.memories.list(store.id)
