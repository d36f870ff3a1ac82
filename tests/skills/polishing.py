"""Helpers of the automatic polish tests: skills written and used as a principal, the sweep run
with a reader, and what it left (looks recorded, versions, lessons, spend)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import asyncpg

from db.pool import begin_workspace
from resolvers.common.principals import principal_for_token
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.dreamer.polishing import PolishAnswer, PolishBatch
from resolvers.memory.dreamer.reader import Usage
from resolvers.memory.dreamer.rules import RulesReader
from resolvers.memory.dreamer.spend import Prices
from resolvers.skills import autopolish, writing
from resolvers.skills.autopolish import PolishReport
from tests.factories import Workspace
from tests.skills.bodies import body

NAME = "deploy-workflow"


async def as_principal(pool: asyncpg.Pool, ws: Workspace, who: str, step: Any) -> Any:
    """``step(conn, principal)`` in the workspace's transaction, as ``who``."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        principal = await principal_for_token(conn, ws.tokens[who])
        assert principal is not None
        return await step(conn, principal)


async def make_skill(
    pool: asyncpg.Pool, ws: Workspace, content: str | None = None, **extra: Any
) -> None:
    """The skill ``NAME`` written by the member, with a body passing the form check."""

    async def create(conn: asyncpg.Connection, principal: Any) -> Any:
        return await writing.create_skill(
            conn,
            principal,
            name=NAME,
            description="Deploy safely.",
            content=body() if content is None else content,
            **extra,
        )

    await as_principal(pool, ws, "member", create)


async def add_lessons(pool: asyncpg.Pool, ws: Workspace, *texts: str) -> None:
    """One use of the skill per lesson, by the member's agent."""
    for text in texts:

        async def use(conn: asyncpg.Connection, principal: Any, text: str = text) -> Any:
            return await writing.record_skill_use(conn, principal, NAME, text)

        await as_principal(pool, ws, "agent", use)


class Drafting:
    """A reader of the tests' own that polishes: answers ``make(batch)`` (default: the rules
    reader's draft), reports ``usage``, keeps the batches it got."""

    def __init__(
        self, make: Callable[[PolishBatch], str] | None = None, usage: Usage | None = None
    ) -> None:
        self.make = make
        self.usage = usage or Usage()
        self.batches: list[PolishBatch] = []

    async def read(self, batch: Any) -> Any:
        raise AssertionError("polish never reads items")

    async def polish(self, batch: PolishBatch) -> PolishAnswer:
        self.batches.append(batch)
        if self.make is None:
            drafted = (await RulesReader().polish(batch)).body
        else:
            drafted = self.make(batch)
        return PolishAnswer(body=drafted, usage=self.usage)


def settings_of(reader: object | None = None, per_mtok: str = "0") -> PassSettings:
    return PassSettings(
        reader=reader or RulesReader(),  # type: ignore[arg-type]
        reader_name="test" if reader is not None else "rules",
        prices=Prices(Decimal(per_mtok), Decimal(0)),
    )


async def sweep(
    pool: asyncpg.Pool, ws: Workspace, reader: object | None = None, **more: Any
) -> list[PolishReport]:
    """The polish job's sweep, for this workspace only."""
    from resolvers.common import clock

    return await autopolish.run_due(pool, clock.now(), settings_of(reader, **more), {ws.id})


async def fetch(pool: asyncpg.Pool, ws: Workspace, sql: str, *args: Any) -> list[asyncpg.Record]:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rows: list[asyncpg.Record] = await conn.fetch(sql, *args)
    return rows


async def looks(pool: asyncpg.Pool, ws: Workspace) -> list[asyncpg.Record]:
    """The skill's recorded looks, oldest first."""
    return await fetch(
        pool,
        ws,
        "SELECT version, lessons, trigger, outcome, new_version, reason, payer_kind, payer_id,"
        " cost_usd FROM skill_polishes ORDER BY created_at, version",
    )


async def versions(pool: asyncpg.Pool, ws: Workspace) -> list[asyncpg.Record]:
    """The skill's versions, oldest first: number, author kind and name, body."""
    return await fetch(
        pool,
        ws,
        "SELECT version, author_kind, author_name, content FROM skill_versions ORDER BY version",
    )


async def lessons(pool: asyncpg.Pool, ws: Workspace) -> list[tuple[str, int | None]]:
    """The skill's lessons: (text, the version they were folded into)."""
    rows = await fetch(pool, ws, "SELECT text, folded_in FROM skill_lessons ORDER BY id")
    return [(row["text"], row["folded_in"]) for row in rows]
