"""Dreams through the `anthropic` SDK itself (issue 14, item 5): a memory store consolidated by
the Dreamer's reader as a job (run here directly, as the worker and `skillmem dreamer run` do),
on a copy of the store or on the store itself; cancel and archive with their refusals; list
with its filters over several pages; another workspace's ids; the payer's allowance and the
charge."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from uuid import UUID, uuid4

import anthropic
import asyncpg
import pytest

from db import dreamer_pass
from db.pool import begin_workspace
from gateway.anthropic.memory_models import STORE
from gateway.anthropic.transport import public_id
from resolvers.common import clock
from resolvers.common.ids import decode, encode
from resolvers.common.principals import principal_for_token
from resolvers.memory.dreamer.consolidating import ConsolidationAnswer, ConsolidationBatch
from resolvers.memory.dreamer.passes import PassSettings, month_of
from resolvers.memory.dreamer.reader import ReaderError, Usage
from resolvers.memory.dreamer.rules import RulesReader
from resolvers.memory.dreamer.spend import Prices
from resolvers.stores import dreaming, dreams
from resolvers.stores.workspace import WORKSPACE_STORE_ID
from tests.factories import Workspace

PREFS = "- Prefers dark mode\n- prefers dark mode.\n- Uses vim"
MERGED = "- Prefers dark mode\n- Uses vim"
NOTE = "# Notes\nThe client signed in May."


async def run_dreams(pool: asyncpg.Pool, ws: Workspace, settings: PassSettings | None = None):
    """The dreams of ``ws`` run, as the periodic job runs them."""
    return await dreaming.run_due(pool, clock.now(), settings or PassSettings(), [ws.id])


async def store_with(client: anthropic.AsyncAnthropic, name: str = "Prefs", **memories: str):
    stores = client.beta.memory_stores
    store = await stores.create(name=name)
    made = {}
    for path, content in (memories or {"/prefs.md": PREFS, "/notes.md": NOTE}).items():
        made[path] = await stores.memories.create(store.id, path=path, content=content)
    return store, made


async def contents(client: anthropic.AsyncAnthropic, store_id: str) -> dict[str, str]:
    memories = client.beta.memory_stores.memories
    found = {}
    async for memory in memories.list(store_id):
        full = await memories.retrieve(memory.id, memory_store_id=store_id)
        found[full.path] = full.content
    return found


def dream_of(store_id: str, **more):
    return {"inputs": [{"type": "memory_store", "memory_store_id": store_id}], **more}


async def test_a_dream_consolidates_a_copy_of_the_store(sdk, ws: Workspace, api_pool):
    client = sdk(ws.tokens["admin"])
    store, _ = await store_with(client)
    made = await client.beta.dreams.create(**dream_of(store.id), model="claude-opus-4-1")
    assert made.id.startswith("drm_") and made.type == "dream"
    assert (made.status, made.outputs, made.ended_at) == ("pending", [], None)
    assert made.model.id == "claude-opus-4-1"
    assert made.output_behavior.type == "create_new"
    assert made.usage.input_tokens == made.usage.output_tokens == 0
    [line] = await run_dreams(api_pool, ws)
    assert "completed" in line
    done = await client.beta.dreams.retrieve(made.id)
    assert done.status == "completed" and done.ended_at is not None and done.error is None
    [output] = done.outputs
    assert output.type == "memory_store" and output.memory_store_id != store.id
    # The copy holds the consolidated memories (the duplicate merged, the rest as written),
    # the input is untouched.
    assert await contents(client, output.memory_store_id) == {
        "/notes.md": NOTE,
        "/prefs.md": MERGED,
    }
    assert await contents(client, store.id) == {"/notes.md": NOTE, "/prefs.md": PREFS}
    copy = await client.beta.memory_stores.retrieve(output.memory_store_id)
    assert copy.name == "Prefs (dream)"
    assert await run_dreams(api_pool, ws) == []  # a completed dream never runs again


async def test_update_existing_changes_the_store_with_versions(sdk, ws: Workspace, api_pool):
    client = sdk(ws.tokens["member"])
    store, made = await store_with(client)
    dream = await client.beta.dreams.create(
        **dream_of(store.id),
        model={"id": "claude-opus-4-1", "speed": "standard"},
        output_behavior={"type": "update_existing", "memory_store_id": store.id},
        instructions="Keep what the team decided.",
    )
    assert dream.outputs == [] and dream.instructions == "Keep what the team decided."
    await run_dreams(api_pool, ws)
    done = await client.beta.dreams.retrieve(dream.id)
    assert done.status == "completed"
    assert [o.memory_store_id for o in done.outputs] == [store.id]
    assert await contents(client, store.id) == {"/notes.md": NOTE, "/prefs.md": MERGED}
    prefs = made["/prefs.md"]
    versions = [
        v
        async for v in client.beta.memory_stores.memory_versions.list(store.id, memory_id=prefs.id)
    ]
    assert sorted(v.operation for v in versions) == ["created", "modified"]
    modified = next(v for v in versions if v.operation == "modified")
    # Recorded as made by whoever asked for the dream.
    assert modified.created_by.type == "user_actor"
    assert modified.created_by.user_id == "user_" + encode("Member", ws.id, ws.members["member"])
    notes = made["/notes.md"]
    untouched = await client.beta.memory_stores.memories.retrieve(
        notes.id, memory_store_id=store.id
    )
    assert untouched.memory_version_id == notes.memory_version_id


async def test_a_canceled_dream_never_runs(sdk, ws: Workspace, api_pool):
    client = sdk(ws.tokens["admin"])
    store, _ = await store_with(client)
    dream = await client.beta.dreams.create(
        **dream_of(store.id),
        model="claude-opus-4-1",
        output_behavior={"type": "update_existing", "memory_store_id": store.id},
    )
    canceled = await client.beta.dreams.cancel(dream.id)
    assert canceled.status == "canceled" and canceled.ended_at is not None
    again = await client.beta.dreams.cancel(dream.id)
    assert (again.status, again.ended_at) == ("canceled", canceled.ended_at)
    assert await run_dreams(api_pool, ws) == []
    assert (await client.beta.dreams.retrieve(dream.id)).outputs == []
    assert await contents(client, store.id) == {"/notes.md": NOTE, "/prefs.md": PREFS}
    archived = await client.beta.dreams.archive(dream.id)
    assert archived.archived_at is not None
    assert (await client.beta.dreams.archive(dream.id)).archived_at == archived.archived_at


async def test_cancel_and_archive_refusals(sdk, ws: Workspace, api_pool):
    client = sdk(ws.tokens["admin"])
    store, _ = await store_with(client)
    dream = await client.beta.dreams.create(**dream_of(store.id), model="m")
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.beta.dreams.archive(dream.id)
    assert "Only a completed, failed or canceled dream" in raised.value.message
    await run_dreams(api_pool, ws)
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.beta.dreams.cancel(dream.id)
    assert "A completed dream cannot be canceled" in raised.value.message
    assert (await client.beta.dreams.retrieve(dream.id)).status == "completed"
    # A viewer reads the dream of a store it reads, but may not cancel or archive it.
    viewer = sdk(ws.tokens["viewer"]).beta.dreams
    assert (await viewer.retrieve(dream.id)).id == dream.id
    with pytest.raises(anthropic.PermissionDeniedError):
        await viewer.archive(dream.id)


async def test_list_filters_and_pages(sdk, ws: Workspace, api_pool, stand):
    client = sdk(ws.tokens["admin"])
    store, _ = await store_with(client)
    start = clock.now()
    made = []
    for minute in range(5):
        stand(start + timedelta(minutes=minute))
        made.append(await client.beta.dreams.create(**dream_of(store.id), model="m"))
    await client.beta.dreams.cancel(made[1].id)
    await client.beta.dreams.archive(made[1].id)
    await client.beta.dreams.cancel(made[3].id)
    dreams = client.beta.dreams
    listed = [d.id async for d in await dreams.list(limit=2)]
    # Newest first, over more than one page; the archived one hidden.
    assert listed == [made[i].id for i in (4, 3, 2, 0)]
    first = await dreams.list(limit=2)
    assert len(first.data) == 2 and first.next_page
    with_archived = [d.id async for d in await dreams.list(limit=2, include_archived=True)]
    assert with_archived == [made[i].id for i in (4, 3, 2, 1, 0)]
    canceled = [d.id async for d in await dreams.list(statuses=["canceled"], include_archived=True)]
    assert canceled == [made[3].id, made[1].id]
    between = [
        d.id
        async for d in await dreams.list(
            created_at_gt=made[0].created_at, created_at_lt=made[4].created_at
        )
    ]
    assert between == [made[3].id, made[2].id]
    with pytest.raises(anthropic.BadRequestError) as raised:
        await dreams.list(statuses=["sleeping"])
    assert "sleeping" in raised.value.message


async def test_another_workspaces_ids_answer_404(sdk, ws: Workspace, ws2: Workspace):
    client = sdk(ws.tokens["admin"])
    store, _ = await store_with(client)
    dream = await client.beta.dreams.create(**dream_of(store.id), model="m")
    stranger = sdk(ws2.tokens["admin"]).beta.dreams
    for call in (stranger.retrieve, stranger.cancel, stranger.archive):
        with pytest.raises(anthropic.NotFoundError):
            await call(dream.id)
    with pytest.raises(anthropic.NotFoundError):
        await stranger.create(**dream_of(store.id), model="m")
    assert dream.id not in [d.id async for d in await stranger.list()]
    with pytest.raises(anthropic.NotFoundError):
        await client.beta.dreams.retrieve("drm_nothing")


async def test_a_private_stores_dream_is_its_owners(sdk, ws: Workspace):
    owner = sdk(ws.tokens["member"])
    store = await owner.beta.memory_stores.create(name="Mine", extra_body={"visibility": "private"})
    dream = await owner.beta.dreams.create(**dream_of(store.id), model="m")
    other = sdk(ws.tokens["other"]).beta.dreams
    with pytest.raises(anthropic.NotFoundError):
        await other.retrieve(dream.id)
    with pytest.raises(anthropic.NotFoundError):
        await other.create(**dream_of(store.id), model="m")


async def test_an_archived_store_and_bad_inputs_are_refused(sdk, ws: Workspace):
    client = sdk(ws.tokens["admin"])
    store, _ = await store_with(client)
    other, _ = await store_with(client, name="Other")
    await client.beta.memory_stores.archive(store.id)
    for behavior in (
        {"type": "create_new"},
        {"type": "update_existing", "memory_store_id": store.id},
    ):
        with pytest.raises(anthropic.BadRequestError) as raised:
            await client.beta.dreams.create(
                **dream_of(store.id), model="m", output_behavior=behavior
            )
        assert "archived" in raised.value.message
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.beta.dreams.create(
            **dream_of(other.id),
            model="m",
            output_behavior={"type": "update_existing", "memory_store_id": store.id},
        )
    assert "output_behavior.memory_store_id" in raised.value.message
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.beta.dreams.create(
            inputs=[
                {"type": "memory_store", "memory_store_id": other.id},
                {"type": "memory_store", "memory_store_id": other.id},
            ],
            model="m",
            instructions="",
        )
    # Every problem listed.
    assert "one memory_store input" in raised.value.message
    assert "instructions" in raised.value.message
    # The workspace's memory store is consolidated by the Dreamer itself.
    workspace_store = public_id(*STORE, ws.id, WORKSPACE_STORE_ID)
    with pytest.raises(anthropic.BadRequestError) as raised:
        await client.beta.dreams.create(**dream_of(workspace_store), model="m")
    assert "workspace memory store" in raised.value.message
    assert [d async for d in await client.beta.dreams.list()] == []


async def test_sessions_are_conversations_the_caller_reads(sdk, ws: Workspace, pool, api_pool):
    own, private = uuid4(), uuid4()
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        for conversation, person in ((own, "member"), (private, "other")):
            await conn.execute(
                "INSERT INTO conversations (workspace_id, id, external_id, person_id,"
                " created_at, updated_at) VALUES ($1, $2, $3, $4, now(), now())",
                ws.id,
                conversation,
                str(conversation),
                ws.members[person],
            )
    client = sdk(ws.tokens["member"])
    store, _ = await store_with(client)

    def sessions(*ids: UUID) -> dict:
        given = ["sesn_" + encode("Conversation", ws.id, i) for i in ids]
        return {"type": "sessions", "session_ids": given}

    dream = await client.beta.dreams.create(
        inputs=[{"type": "memory_store", "memory_store_id": store.id}, sessions(own)], model="m"
    )
    assert dream.inputs[1].session_ids == sessions(own)["session_ids"]
    with pytest.raises(anthropic.NotFoundError):
        await client.beta.dreams.create(
            inputs=[{"type": "memory_store", "memory_store_id": store.id}, sessions(private)],
            model="m",
        )


class PaidReader(RulesReader):
    """The rules reader, as a chat model would be paid: 1,000 tokens read, 200 written."""

    async def consolidate(self, batch: ConsolidationBatch) -> ConsolidationAnswer:
        answer = await super().consolidate(batch)
        return answer.model_copy(update={"usage": Usage(input_tokens=1000, output_tokens=200)})


async def spent(pool: asyncpg.Pool, ws: Workspace, person: str) -> Decimal:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        return await dreamer_pass.spent(conn, "member", ws.members[person], month_of(clock.now()))


async def test_the_charge_is_recorded_and_the_allowance_holds(sdk, ws: Workspace, pool, api_pool):
    client = sdk(ws.tokens["member"])
    store, _ = await store_with(client)
    paid = PassSettings(
        reader=PaidReader(), reader_name="paid", prices=Prices(Decimal(3), Decimal(15))
    )
    dream = await client.beta.dreams.create(**dream_of(store.id), model="m")
    await run_dreams(api_pool, ws, paid)
    done = await client.beta.dreams.retrieve(dream.id)
    assert done.status == "completed"
    assert (done.usage.input_tokens, done.usage.output_tokens) == (1000, 200)
    # 1,000 x $3 + 200 x $15 per million tokens, charged to the person who asked.
    assert await spent(pool, ws, "member") == Decimal("0.006")
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await dreamer_pass.charge(
            conn, "member", ws.members["member"], month_of(clock.now()), Decimal(1)
        )
    over = await client.beta.dreams.create(**dream_of(store.id), model="m")
    await run_dreams(api_pool, ws, paid)
    failed = await client.beta.dreams.retrieve(over.id)
    assert failed.status == "failed" and failed.ended_at is not None
    assert failed.error.type == "billing_error"
    assert "allowance" in failed.error.message and failed.outputs == []
    with pytest.raises(anthropic.BadRequestError):
        await client.beta.dreams.cancel(over.id)
    assert (await client.beta.dreams.archive(over.id)).archived_at is not None


class CancelingReader(RulesReader):
    """The rules reader, paid, during whose reading the dream is canceled by who asked."""

    def __init__(self, pool: asyncpg.Pool, token: str, dream_id: UUID) -> None:
        self.pool, self.token, self.dream_id = pool, token, dream_id

    async def consolidate(self, batch: ConsolidationBatch) -> ConsolidationAnswer:
        async with self.pool.acquire() as conn, conn.transaction():
            principal = await principal_for_token(conn, self.token)
            assert principal is not None
            await dreams.cancel(conn, principal, self.dream_id)
        answer = await super().consolidate(batch)
        return answer.model_copy(update={"usage": Usage(input_tokens=10, output_tokens=5)})


class FailingReader(RulesReader):
    async def consolidate(self, batch: ConsolidationBatch) -> ConsolidationAnswer:
        raise ReaderError("the model answered no JSON", Usage(input_tokens=7))


async def test_a_dream_canceled_while_running_or_whose_reader_fails_applies_nothing(
    sdk, ws: Workspace, pool, api_pool
):
    client = sdk(ws.tokens["member"])
    store, _ = await store_with(client)
    in_place = {"type": "update_existing", "memory_store_id": store.id}
    dream = await client.beta.dreams.create(
        **dream_of(store.id), model="m", output_behavior=in_place
    )
    local = decode(dream.id.removeprefix("drm_"), "Dream", ws.id)
    canceling = CancelingReader(api_pool, ws.tokens["member"], local)
    prices = Prices(Decimal(1000), Decimal(1000))
    await run_dreams(api_pool, ws, PassSettings(reader=canceling, prices=prices))
    canceled = await client.beta.dreams.retrieve(dream.id)
    assert canceled.status == "canceled" and canceled.error is None
    assert (canceled.usage.input_tokens, canceled.usage.output_tokens) == (10, 5)
    assert await contents(client, store.id) == {"/notes.md": NOTE, "/prefs.md": PREFS}
    # What the reader spent is charged all the same: 15 tokens at $1,000 per million.
    assert await spent(pool, ws, "member") == Decimal("0.015")
    failing = await client.beta.dreams.create(
        **dream_of(store.id), model="m", output_behavior=in_place
    )
    await run_dreams(api_pool, ws, PassSettings(reader=FailingReader()))
    failed = await client.beta.dreams.retrieve(failing.id)
    assert failed.status == "failed" and failed.error.type == "api_error"
    assert "the model answered no JSON" in failed.error.message
    assert failed.usage.input_tokens == 7
    assert await contents(client, store.id) == {"/notes.md": NOTE, "/prefs.md": PREFS}


async def test_a_store_archived_after_the_dream_was_asked_for_is_not_written(
    sdk, ws: Workspace, api_pool
):
    client = sdk(ws.tokens["admin"])
    store, _ = await store_with(client)
    in_place = {"type": "update_existing", "memory_store_id": store.id}
    dream = await client.beta.dreams.create(
        **dream_of(store.id), model="m", output_behavior=in_place
    )
    await client.beta.memory_stores.archive(store.id)
    await run_dreams(api_pool, ws)
    failed = await client.beta.dreams.retrieve(dream.id)
    assert failed.status == "failed" and "archived" in failed.error.message
    assert await contents(client, store.id) == {"/notes.md": NOTE, "/prefs.md": PREFS}
