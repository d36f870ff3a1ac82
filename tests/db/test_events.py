"""The subscriptions' listener (db/events.py): a notification reaches the subscribers of its
kind and workspace only, a payload that is no event is ignored, and a lost connection is opened
again (what is sent after that is heard)."""

from __future__ import annotations

import asyncio
import uuid

import orjson
import pytest

from db.events import CHANNEL, Event, Listener, parse
from db.pool import api_dsn

WAIT_SECONDS = 30.0


def payload(kind: str, workspace: uuid.UUID, *ids: uuid.UUID) -> str:
    return orjson.dumps(
        {"kind": kind, "workspace": str(workspace), "ids": [str(i) for i in ids]}
    ).decode()


def test_a_payload_is_an_event_or_nothing():
    workspace, row = uuid.uuid4(), uuid.uuid4()
    assert parse(payload("memory", workspace, row)) == Event("memory", workspace, (row,))
    for wrong in ("", "{}", "[1]", payload("other", workspace, row), '{"kind": "memory"}'):
        assert parse(wrong) is None


@pytest.fixture
async def listener(dsn):
    started = Listener(api_dsn(dsn), name=f"events-test-{uuid.uuid4().hex[:8]}")
    await started.start()
    yield started
    await started.stop()


async def notify(pool, text: str) -> None:
    async with pool.acquire() as conn:
        await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, text)


async def test_an_event_reaches_its_kind_and_workspace_only(pool, listener):
    mine, theirs, row = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    async with (
        listener.subscribe("memory", mine) as queue,
        listener.subscribe("proposal", mine) as proposals,
    ):
        await notify(pool, "not an event")
        await notify(pool, payload("memory", theirs, uuid.uuid4()))
        await notify(pool, payload("proposal", mine, uuid.uuid4()))
        await notify(pool, payload("memory", mine, row))
        got = await asyncio.wait_for(queue.get(), WAIT_SECONDS)
        assert got == Event("memory", mine, (row,))
        assert proposals.qsize() == 1
    assert listener.subscribers("memory", mine) == 0


async def test_a_lost_connection_is_opened_again(pool, listener):
    workspace, row = uuid.uuid4(), uuid.uuid4()
    async with listener.subscribe("memory", workspace) as queue:
        async with pool.acquire() as conn:
            ended = await conn.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE application_name = $1",
                listener.name,
            )
        assert ended == 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_SECONDS
        while listener.connections < 2:
            assert loop.time() < deadline, "the listener never listened again"
            await asyncio.sleep(0.05)
        await notify(pool, payload("memory", workspace, row))
        assert await asyncio.wait_for(queue.get(), WAIT_SECONDS) == Event(
            "memory", workspace, (row,)
        )
