"""A dream's sessions read through the `anthropic` SDK (issue 14, item 5): what the people said
in the dream's conversations becomes memories of its output store (never the workspace's
memory pages), the reading in its usage and charge; a conversation through an agent whose
memory is off contributes nothing."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from uuid import UUID

import asyncpg

from db import agents as db_agents
from db.pool import begin_workspace
from resolvers.common import clock
from resolvers.common.ids import encode
from resolvers.memory.dreamer.passes import MAX_BATCH_CHARS, MAX_BATCH_ITEMS, PassSettings
from resolvers.memory.dreamer.reader import Batch, Item, ReaderAnswer, ReaderError, Usage, Voice
from resolvers.memory.dreamer.rules import RulesReader
from resolvers.memory.dreamer.spend import Prices
from resolvers.memory.grammar import parse
from resolvers.stores.dream_sessions import reading_parts
from tests.anthropic.test_dreams import contents, run_dreams, spent, store_with
from tests.factories import Workspace, agent_id, company
from tests.memory.dreamer.dreaming import items_of, said

PAYS = "Remember: @[{label}](record:{id}) pays in {days} days."


async def session(pool: asyncpg.Pool, ws: Workspace, external: str) -> str:
    """The public id of the conversation recorded as ``external``."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        found: UUID = await conn.fetchval(
            "SELECT id FROM conversations WHERE external_id = $1", external
        )
    return "sesn_" + encode("Conversation", ws.id, found)


async def workspace_memory(pool: asyncpg.Pool, ws: Workspace) -> list[asyncpg.Record]:
    """Every line of every memory page of the workspace."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        return await conn.fetch(
            "SELECT p.id, p.version, l.* FROM memory_pages p LEFT JOIN memory_lines l"
            " ON l.workspace_id = p.workspace_id AND l.page_id = p.id ORDER BY p.id, l.position"
        )


def dream_with(store_id: str, *sessions: str, **more) -> dict:
    inputs = [
        {"type": "memory_store", "memory_store_id": store_id},
        {"type": "sessions", "session_ids": list(sessions)},
    ]
    return {"inputs": inputs, "model": "m", **more}


class PaidReading(RulesReader):
    """The rules reader, its reading paid as a chat model's: 500 tokens read, 100 written."""

    async def read(self, batch: Batch) -> ReaderAnswer:
        answer = await super().read(batch)
        return answer.model_copy(update={"usage": Usage(input_tokens=500, output_tokens=100)})


class FailingReading(RulesReader):
    async def read(self, batch: Batch) -> ReaderAnswer:
        raise ReaderError("the model answered no JSON", Usage(input_tokens=9))


async def test_what_a_person_said_becomes_a_memory_of_the_output_store(
    sdk, ws: Workspace, pool, api_pool, stand
):
    acme = await company(pool, ws, "Acme")
    now = clock.now()
    stand(now)
    item = await said(pool, ws, "member", PAYS.format(label="Acme", id=acme, days=60), now)
    assert item is not None
    client = sdk(ws.tokens["member"])
    store, _ = await store_with(client)
    before = await workspace_memory(pool, ws)
    made = await client.beta.dreams.create(**dream_with(store.id, await session(pool, ws, "c1")))
    paid = PassSettings(reader=PaidReading(), prices=Prices(Decimal(3), Decimal(15)))
    [line] = await run_dreams(api_pool, ws, paid)
    assert "session messages read 1" in line
    done = await client.beta.dreams.retrieve(made.id)
    assert done.status == "completed"
    [output] = done.outputs
    found = await contents(client, output.memory_store_id)
    # The learning is a souvenir of the record's memory, by the person who said it, beside
    # the store's own memories (consolidated as before); the input store is untouched.
    souvenir = parse(found.pop("/records/companies/Acme.md"))
    assert souvenir.text == "Acme pays in 60 days."
    assert souvenir.author == "Member" and souvenir.day == now.date()
    assert set(found) == {"/notes.md", "/prefs.md"}
    assert set(await contents(client, store.id)) == {"/notes.md", "/prefs.md"}
    # The reading is in the dream's usage, and charged: 500 x $3 + 100 x $15 per million.
    assert (done.usage.input_tokens, done.usage.output_tokens) == (500, 100)
    assert await spent(pool, ws, "member") == Decimal("0.003")
    # Nothing of the session reached the workspace's memory pages; its item still waits for
    # the Dreamer's own pass.
    assert await workspace_memory(pool, ws) == before
    [row] = await items_of(pool, ws, [item])
    assert row["status"] == "waiting"


async def set_memory(pool: asyncpg.Pool, ws: Workspace, on: bool) -> None:
    """The workspace's agent Scout's memory tool group on or off."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        groups = ["core", "memory"] if on else ["core"]
        assert await db_agents.set_tool_groups(conn, await agent_id(pool, ws), groups)


async def test_a_conversation_through_an_agent_without_memory_contributes_nothing(
    sdk, ws: Workspace, pool, api_pool, stand
):
    acme, globex = await company(pool, ws, "Acme"), await company(pool, ws, "Globex")
    now: datetime = clock.now()
    stand(now)
    said_by_agent = PAYS.format(label="Acme", id=acme, days=60)
    await said(pool, ws, "agent", said_by_agent, now, conversation="scout", scope="workspace")
    await said(pool, ws, "member", PAYS.format(label="Globex", id=globex, days=30), now)
    await set_memory(pool, ws, False)
    client = sdk(ws.tokens["member"])
    store, _ = await store_with(client)
    sessions = [await session(pool, ws, external) for external in ("scout", "c1")]
    in_place = {"type": "update_existing", "memory_store_id": store.id}
    await client.beta.dreams.create(**dream_with(store.id, *sessions, output_behavior=in_place))
    [line] = await run_dreams(api_pool, ws)
    assert "completed" in line and "session messages read 1" in line
    found = await contents(client, store.id)
    assert parse(found["/records/companies/Globex.md"]).text == "Globex pays in 30 days."
    assert "/records/companies/Acme.md" not in found
    # The same conversation, its agent's memory on again, is read.
    await set_memory(pool, ws, True)
    await client.beta.dreams.create(**dream_with(store.id, *sessions, output_behavior=in_place))
    await run_dreams(api_pool, ws)
    found = await contents(client, store.id)
    assert parse(found["/records/companies/Acme.md"]).text == "Acme pays in 60 days."


async def test_a_reader_failing_on_the_sessions_fails_the_dream(
    sdk, ws: Workspace, pool, api_pool, stand
):
    acme = await company(pool, ws, "Acme")
    now = clock.now()
    stand(now)
    await said(pool, ws, "member", PAYS.format(label="Acme", id=acme, days=60), now)
    client = sdk(ws.tokens["member"])
    store, _ = await store_with(client)
    in_place = {"type": "update_existing", "memory_store_id": store.id}
    made = await client.beta.dreams.create(
        **dream_with(store.id, await session(pool, ws, "c1"), output_behavior=in_place)
    )
    await run_dreams(api_pool, ws, PassSettings(reader=FailingReading()))
    failed = await client.beta.dreams.retrieve(made.id)
    assert failed.status == "failed" and failed.error.type == "api_error"
    assert "the model answered no JSON" in failed.error.message
    assert failed.usage.input_tokens == 9
    assert set(await contents(client, store.id)) == {"/notes.md", "/prefs.md"}


class SensitiveReading(RulesReader):
    """The rules reader, flagging every learning sensitive (as a chat model may)."""

    async def read(self, batch: Batch) -> ReaderAnswer:
        answer = await super().read(batch)
        learnings = tuple(
            found.model_copy(
                update={
                    "candidates": tuple(
                        c.model_copy(update={"sensitive": "health"}) for c in found.candidates
                    )
                }
            )  # fmt: skip
            for found in answer.learnings
        )
        return answer.model_copy(update={"learnings": learnings})


async def test_nothing_sensitive_of_a_private_conversation_reaches_a_shared_store(
    sdk, ws: Workspace, pool, api_pool, stand
):
    acme = await company(pool, ws, "Acme")
    now = clock.now()
    stand(now)
    await said(pool, ws, "member", PAYS.format(label="Acme", id=acme, days=60), now)
    client = sdk(ws.tokens["member"])
    shared, _ = await store_with(client)
    own = await client.beta.memory_stores.create(name="Mine", extra_body={"visibility": "private"})
    c1 = await session(pool, ws, "c1")
    for store in (shared, own):
        in_place = {"type": "update_existing", "memory_store_id": store.id}
        await client.beta.dreams.create(**dream_with(store.id, c1, output_behavior=in_place))
    await run_dreams(api_pool, ws, PassSettings(reader=SensitiveReading()))
    assert "/records/companies/Acme.md" not in await contents(client, shared.id)
    mine = await contents(client, own.id)
    assert parse(mine["/records/companies/Acme.md"]).text == "Acme pays in 60 days."


def test_the_messages_are_read_in_parts_as_a_pass_cuts_its_batches():
    def item(number: int, chars: int = 10) -> Item:
        person = Voice(kind="person", id=None, name="someone")
        return Item(id=str(number), kind="conversation", at=clock.now(), speaker=person,
                    text="x" * chars)  # fmt: skip

    many = [item(n) for n in range(MAX_BATCH_ITEMS + 1)]
    assert [len(part) for part in reading_parts(many)] == [MAX_BATCH_ITEMS, 1]
    long = [item(1), item(2, MAX_BATCH_CHARS), item(3)]
    assert [[i.id for i in part] for part in reading_parts(long)] == [["1"], ["2"], ["3"]]
