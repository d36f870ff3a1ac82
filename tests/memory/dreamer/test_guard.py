"""One pass per page owner at a time (resolvers/memory/dreamer/guard.py): the owner's advisory
lock is taken for the pass, refused to a second runner, and let go however the pass ends."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import pytest

from db.dreamer_schedule import DueOwner
from resolvers.memory.dreamer.guard import owner_key, owner_lock, run_guarded
from resolvers.memory.dreamer.passes import PassReport, PassSettings

AT = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


def an_owner() -> DueOwner:
    return DueOwner(uuid.uuid4(), "member", uuid.uuid4(), AT, 2)


async def free(pool, owner: DueOwner) -> bool:  # type: ignore[no-untyped-def]
    async with owner_lock(pool, owner) as taken:
        return taken


def test_an_owner_key_names_ids_only():
    owner = an_owner()
    assert owner_key(owner) == f"dreamer:{owner.workspace_id}:member:{owner.owner_id}"
    workspace = DueOwner(owner.workspace_id, "workspace", None, AT, 1)
    assert owner_key(workspace) == f"dreamer:{owner.workspace_id}:workspace:-"


async def test_a_second_runner_of_the_same_owner_runs_nothing(pool):
    owner, other = an_owner(), an_owner()
    inner: list[PassReport | None] = []

    async def the_pass(pool, running: DueOwner, settings) -> PassReport:  # type: ignore[no-untyped-def]
        inner.append(await run_guarded(pool, owner, settings, the_pass))
        inner.append(await run_guarded(pool, other, settings, lambda *a: report_of(other)))
        return PassReport(running, read=2)

    report = await run_guarded(pool, owner, PassSettings(), the_pass)
    assert report == PassReport(owner, read=2)
    # While it ran, the same owner's pass was refused; another owner's ran.
    assert inner == [None, PassReport(other)]
    assert await free(pool, owner)


async def report_of(owner: DueOwner) -> PassReport:
    return PassReport(owner)


@pytest.mark.parametrize("ending", ["raises", "cancelled"])
async def test_the_lock_is_let_go_however_the_pass_ends(pool, ending):
    owner = an_owner()
    started = asyncio.Event()

    async def the_pass(pool, owner, settings):  # type: ignore[no-untyped-def]
        started.set()
        if ending == "raises":
            raise RuntimeError("the reader failed")
        await asyncio.sleep(60)

    task = asyncio.create_task(run_guarded(pool, owner, PassSettings(), the_pass))
    await started.wait()
    if ending == "cancelled":
        task.cancel()
    with pytest.raises((RuntimeError, asyncio.CancelledError)):
        await task
    assert await free(pool, owner)
