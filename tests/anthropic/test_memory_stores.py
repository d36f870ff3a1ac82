"""Memory stores and their memories through the `anthropic` SDK itself (issue 14, item 3):
every method of `client.beta.memory_stores` and `.memories`, pages followed to the last,
`depth` roll-ups, archive, metadata merge, the sha256 preconditions and path conflicts (409,
sent once, nothing changed), every problem of an input listed, 401 and 404."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import anthropic
import pytest

from tests.factories import Workspace

CONTENT = "All reports use GAAP formatting."


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def test_a_store_is_created_read_updated_listed_and_deleted(sdk, ws: Workspace):
    client = sdk(ws.tokens["admin"]).beta.memory_stores
    made = await client.create(
        name="User Preferences", description="Per-user preferences.", metadata={"team": "ops"}
    )
    assert made.id.startswith("memstore_") and made.type == "memory_store"
    assert (made.name, made.description, made.metadata) == (
        "User Preferences",
        "Per-user preferences.",
        {"team": "ops"},
    )
    assert made.archived_at is None and made.created_at is not None
    assert (await client.retrieve(made.id)).name == "User Preferences"
    changed = await client.update(made.id, name="Prefs", metadata={"team": None, "owner": "claire"})
    # A string sets its key, null removes it, keys left out are kept.
    assert (changed.name, changed.description, changed.metadata) == (
        "Prefs",
        "Per-user preferences.",
        {"owner": "claire"},
    )
    assert made.id in [s.id async for s in client.list()]
    gone = await client.delete(made.id)
    assert (gone.id, gone.type) == (made.id, "memory_store_deleted")
    with pytest.raises(anthropic.NotFoundError):
        await client.retrieve(made.id)


async def test_an_archived_store_refuses_writes_but_reads_deletes_and_redacts(sdk, ws: Workspace):
    client = sdk(ws.tokens["admin"]).beta.memory_stores
    store = await client.create(name="Old")
    kept = await client.memories.create(store.id, path="/kept.md", content=CONTENT)
    archived = await client.archive(store.id)
    assert archived.archived_at is not None
    again = await client.archive(store.id)
    assert again.archived_at == archived.archived_at  # archiving again changes nothing
    refused = [
        client.update(store.id, name="New"),
        client.memories.create(store.id, path="/new.md", content="x"),
        client.memories.update(kept.id, memory_store_id=store.id, content="y"),
    ]
    for call in refused:
        with pytest.raises(anthropic.BadRequestError) as raised:
            await call
        assert "archived" in raised.value.message
    assert (await client.retrieve(store.id)).name == "Old"
    listed = [s.id async for s in client.list()]
    assert store.id not in listed
    assert store.id in [s.id async for s in client.list(include_archived=True)]
    assert (await client.memories.retrieve(kept.id, memory_store_id=store.id)).content == CONTENT
    await client.memory_versions.redact(kept.memory_version_id, memory_store_id=store.id)
    await client.memories.delete(kept.id, memory_store_id=store.id)
    await client.delete(store.id)


async def test_memories_are_created_read_updated_and_deleted_with_their_views(sdk, ws: Workspace):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    store = await client.create(name="Notes")
    made = await client.memories.create(store.id, path="/formatting.md", content=CONTENT)
    assert made.id.startswith("mem_") and made.memory_store_id == store.id
    # create answers the basic view: no content, always its sha256 and size.
    assert made.content is None
    assert (made.content_sha256, made.content_size_bytes) == (sha(CONTENT), len(CONTENT))
    assert made.memory_version_id.startswith("memver_")
    full = await client.memories.create(store.id, path="/é.md", content="café", view="full")
    assert (full.content, full.content_size_bytes) == ("café", 5)
    read = await client.memories.retrieve(made.id, memory_store_id=store.id)
    assert read.content == CONTENT  # retrieve answers the full view
    basic = await client.memories.retrieve(made.id, memory_store_id=store.id, view="basic")
    assert basic.content is None
    moved = await client.memories.update(
        made.id,
        memory_store_id=store.id,
        content="Dates are ISO-8601.",
        path="/standards/formatting.md",
        precondition={"type": "content_sha256", "content_sha256": sha(CONTENT)},
        view="full",
    )
    assert (moved.path, moved.content) == ("/standards/formatting.md", "Dates are ISO-8601.")
    assert moved.memory_version_id != made.memory_version_id
    gone = await client.memories.delete(
        made.id, memory_store_id=store.id, expected_content_sha256=sha("Dates are ISO-8601.")
    )
    assert (gone.id, gone.type) == (made.id, "memory_deleted")
    with pytest.raises(anthropic.NotFoundError):
        await client.memories.retrieve(made.id, memory_store_id=store.id)


async def test_a_failed_precondition_is_409_sent_once_and_changes_nothing(sdk, sent, ws: Workspace):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    store = await client.create(name="Notes")
    made = await client.memories.create(store.id, path="/a.md", content=CONTENT)
    path = f"/v1/memory_stores/{store.id}/memories/{made.id}"
    with pytest.raises(anthropic.ConflictError) as raised:
        await client.memories.update(
            made.id,
            memory_store_id=store.id,
            content="clobbered",
            precondition={"type": "content_sha256", "content_sha256": sha("stale")},
        )
    assert raised.value.type == "memory_precondition_failed_error"
    assert sent.count("POST", path) == 1
    with pytest.raises(anthropic.ConflictError) as raised:
        await client.memories.delete(
            made.id, memory_store_id=store.id, expected_content_sha256=sha("stale")
        )
    assert raised.value.type == "memory_precondition_failed_error"
    assert sent.count("DELETE", path) == 1
    still = await client.memories.retrieve(made.id, memory_store_id=store.id)
    assert (still.content, still.memory_version_id) == (CONTENT, made.memory_version_id)
    versions = [v async for v in client.memory_versions.list(store.id, memory_id=made.id)]
    assert [v.operation for v in versions] == ["created"]


async def test_a_taken_path_is_409_sent_once_and_changes_nothing(sdk, sent, ws: Workspace):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    store = await client.create(name="Notes")
    first = await client.memories.create(store.id, path="/a.md", content="one")
    second = await client.memories.create(store.id, path="/b.md", content="two")
    with pytest.raises(anthropic.ConflictError) as raised:
        await client.memories.create(store.id, path="/a.md", content="three")
    assert raised.value.type == "memory_path_conflict_error"
    assert sent.count("POST", f"/v1/memory_stores/{store.id}/memories") == 3
    with pytest.raises(anthropic.ConflictError) as raised:
        await client.memories.update(second.id, memory_store_id=store.id, path="/a.md")
    assert raised.value.type == "memory_path_conflict_error"
    assert sent.count("POST", f"/v1/memory_stores/{store.id}/memories/{second.id}") == 1
    listed = [(m.path, m.id) async for m in client.memories.list(store.id)]
    assert listed == [("/a.md", first.id), ("/b.md", second.id)]
    versions = [v async for v in client.memory_versions.list(store.id)]
    assert len(versions) == 2


async def test_pages_are_followed_to_the_last(sdk, ws: Workspace):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    store = await client.create(name="Many")
    paths = sorted(f"/notes/{n:02}.md" for n in range(25))
    for path in paths:
        await client.memories.create(store.id, path=path, content=path)
    page = await client.memories.list(store.id, limit=10)
    assert len(page.data) == 10 and page.next_page
    assert [m.path async for m in client.memories.list(store.id, limit=10)] == paths
    # The full view holds at most 20 a page.
    full = await client.memories.list(store.id, limit=100, view="full")
    assert len(full.data) == 20 and full.data[0].content == paths[0]
    assert [m.content async for m in client.memories.list(store.id, view="full")] == paths
    versions = [v.id async for v in client.memory_versions.list(store.id, limit=7)]
    assert len(set(versions)) == 25
    others = [await client.create(name=f"Store {n}") for n in range(3)]
    listed = [s.id async for s in client.list(limit=2)]
    assert listed[-4:] == [store.id, *(o.id for o in others)]
    assert len(listed) == len(set(listed))


async def test_depth_rolls_deeper_memories_up_into_prefixes(sdk, ws: Workspace):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    store = await client.create(name="Tree")
    for path in ("/preferences/formatting.md", "/notes/acme.md", "/notes/beta.md"):
        await client.memories.create(store.id, path=path, content=path)
    await client.memories.create(store.id, path="/notes-x/a.md", content="x")
    await client.memories.create(store.id, path="/notes/deep/c.md", content="c")
    await client.memories.create(store.id, path="/top.md", content="t")
    top = [(e.type, e.path) async for e in client.memories.list(store.id, depth=1)]
    assert top == [
        ("memory_prefix", "/notes-x/"),
        ("memory_prefix", "/notes/"),
        ("memory_prefix", "/preferences/"),
        ("memory", "/top.md"),
    ]
    notes = [
        (e.type, e.path)
        async for e in client.memories.list(store.id, path_prefix="/notes/", depth=1)
    ]
    assert notes == [
        ("memory", "/notes/acme.md"),
        ("memory", "/notes/beta.md"),
        ("memory_prefix", "/notes/deep/"),
    ]
    # A prefix matches whole segments only.
    under = [e.path async for e in client.memories.list(store.id, path_prefix="/notes/")]
    assert under == ["/notes/acme.md", "/notes/beta.md", "/notes/deep/c.md"]
    # A prefix item counts toward the limit.
    page = await client.memories.list(store.id, depth=1, limit=2)
    assert [e.path for e in page.data] == ["/notes-x/", "/notes/"] and page.next_page


async def test_every_problem_of_an_input_is_listed_and_nothing_is_written(sdk, ws: Workspace):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.create(name="", metadata={f"k{n}": "v" for n in range(17)})
    assert raised.value.type == "invalid_request_error"
    assert "name:" in raised.value.message and "16 pairs" in raised.value.message
    store = await client.create(name="Checked")
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.memories.create(store.id, path="notes//../x", content="é" * 51_201)
    message = raised.value.message
    for why in ("starts with '/'", "empty segment", "'..'", "102402 bytes"):
        assert why in message, message
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.memories.list(store.id, path_prefix="/notes", limit=0)
    assert "limit" in raised.value.message and "path_prefix" not in raised.value.message
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.memories.list(store.id, path_prefix="/notes")
    assert "path_prefix: a path prefix ends with '/'" in raised.value.message
    assert [m async for m in client.memories.list(store.id)] == []
    # At the limit: 102,400 bytes of UTF-8 (four-byte characters, escaped twice as long in JSON).
    full = await client.memories.create(store.id, path="/full.md", content="😀" * 25_600)
    assert full.content_size_bytes == 102_400


async def test_an_unknown_token_is_401(sdk):
    client = sdk("smk_" + "x" * 43).beta.memory_stores
    with pytest.raises(anthropic.AuthenticationError):
        await client.list()


async def test_another_workspaces_ids_are_404_like_missing_ones(sdk, ws, ws2):
    theirs = sdk(ws2.tokens["admin"]).beta.memory_stores
    store = await theirs.create(name="Theirs")
    memory = await theirs.memories.create(store.id, path="/a.md", content="secret")
    ours = sdk(ws.tokens["admin"]).beta.memory_stores
    calls = [
        ours.retrieve(store.id),
        ours.update(store.id, name="Mine"),
        ours.delete(store.id),
        ours.memories.retrieve(memory.id, memory_store_id=store.id),
        ours.memories.delete(memory.id, memory_store_id=store.id),
        ours.memory_versions.retrieve(memory.memory_version_id, memory_store_id=store.id),
        ours.memory_versions.redact(memory.memory_version_id, memory_store_id=store.id),
    ]
    for call in calls:
        with pytest.raises(anthropic.NotFoundError) as raised:
            await call
        assert "secret" not in str(raised.value.body)
    assert (await theirs.memories.retrieve(memory.id, memory_store_id=store.id)).content


async def test_a_private_store_is_its_owners_and_rights_follow_the_role(sdk, ws: Workspace):
    mine = sdk(ws.tokens["member"]).beta.memory_stores
    store = await mine.create(name="Mine", extra_body={"visibility": "private"})
    assert store.model_extra and store.model_extra["visibility"] == "private"
    other = sdk(ws.tokens["other"]).beta.memory_stores
    with pytest.raises(anthropic.NotFoundError):
        await other.retrieve(store.id)
    assert store.id not in [s.id async for s in other.list()]
    shared = await mine.create(name="Shared")
    viewer = sdk(ws.tokens["viewer"]).beta.memory_stores
    assert (await viewer.retrieve(shared.id)).name == "Shared"
    with pytest.raises(anthropic.PermissionDeniedError):
        await viewer.memories.create(shared.id, path="/a.md", content="x")
    with pytest.raises(anthropic.PermissionDeniedError):
        await viewer.create(name="Nope")
    with pytest.raises(anthropic.PermissionDeniedError):
        await mine.delete(shared.id)  # members may not delete memory stores; admins may
    await sdk(ws.tokens["admin"]).beta.memory_stores.delete(shared.id)


async def test_lists_filter_by_creation_time(sdk, ws: Workspace, stand):
    client = sdk(ws.tokens["member"]).beta.memory_stores
    made = []
    for day in (1, 2, 3):
        stand(datetime(2026, 11, day, 12, tzinfo=UTC))
        made.append(await client.create(name=f"Day {day}"))
    store = made[0]
    for day in (4, 5):
        stand(datetime(2026, 11, day, 12, tzinfo=UTC))
        await client.memories.create(store.id, path=f"/{day}.md", content=str(day))
    middle = [
        s.name
        async for s in client.list(
            created_at_gte=datetime(2026, 11, 2, tzinfo=UTC),
            created_at_lte=datetime(2026, 11, 2, 23, tzinfo=UTC),
        )
    ]
    assert middle == ["Day 2"]
    later = [
        v.path
        async for v in client.memory_versions.list(
            store.id, created_at_gte=datetime(2026, 11, 5, tzinfo=UTC)
        )
    ]
    assert later == ["/5.md"]
