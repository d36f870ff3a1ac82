"""Subscriptions' reading (issue 13, item 2): each event names rows by id (db/events.py); the
subscriber reads them in a transaction of its own, as its token resolves now (a token revoked
since ends the subscription), so it hears only of what it may read: the "Memory updated" lines
of its own items on pages it may read, and the decisions on its own proposals."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast
from uuid import UUID

import asyncpg

from db import memory_updates
from db.events import Listener
from db.memory_proposals import ProposalRow
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import Principal, principal_for_token
from resolvers.memory.grammar import render
from resolvers.memory.reading import souvenir_of
from resolvers.memory.writing import actor_of

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class UpdatedLine:
    """A "Memory updated" line: the page, the line's key and text as the reader sees it, and
    whether the pass wrote it or refreshed it (moved its date)."""

    page_id: UUID
    page_name: str
    key: str
    line: str
    verdict: str


def _reader(principal: Principal) -> UUID:
    if principal.person_id is None:
        raise DomainError(Code.FORBIDDEN, "The request acts for no member: it has no memory items.")
    return principal.person_id


Read = Callable[[asyncpg.Connection, Principal, Sequence[UUID]], Awaitable[list[T]]]


async def _read(
    pool: asyncpg.Pool, token: str, read: Read[T], ids: Sequence[UUID]
) -> list[T] | None:
    """``read`` in a transaction as the token's principal now; None once the token is gone."""
    async with pool.acquire() as proxy, proxy.transaction():
        conn = cast(asyncpg.Connection, proxy)
        principal = await principal_for_token(conn, token)
        if principal is None:
            return None
        return await read(conn, principal, ids)


async def _events(
    pool: asyncpg.Pool,
    events: Listener,
    token: str,
    principal: Principal,
    kind: str,
    read: Read[T],
) -> AsyncIterator[T]:
    async with events.subscribe(kind, principal.workspace_id) as queue:
        while (event := await queue.get()) is not None:
            found = await _read(pool, token, read, event.ids)
            if found is None:
                return
            for each in found:
                yield each


async def _updated_lines(
    conn: asyncpg.Connection, principal: Principal, item_ids: Sequence[UUID]
) -> list[UpdatedLine]:
    rows = await memory_updates.updated_lines(
        conn, item_ids, principal.readable_objects, _reader(principal)
    )
    return [
        UpdatedLine(
            row.page_id,
            row.page_name,
            row.key,
            render(souvenir_of(row.line, principal.workspace_id)),
            row.verdict,
        )
        for row in rows
    ]


async def _decided(
    conn: asyncpg.Connection, principal: Principal, proposal_ids: Sequence[UUID]
) -> list[ProposalRow]:
    return await memory_updates.decided_proposals(
        conn, proposal_ids, actor_of(principal), principal.person_id
    )


def memory_updated(
    pool: asyncpg.Pool, events: Listener, token: str, principal: Principal
) -> AsyncIterator[UpdatedLine]:
    """The "Memory updated" lines of the subscriber's own items, as passes write them (an API
    key, acting for no person, is refused)."""
    _reader(principal)
    return _events(pool, events, token, principal, "memory", _updated_lines)


def proposal_decided(
    pool: asyncpg.Pool, events: Listener, token: str, principal: Principal
) -> AsyncIterator[ProposalRow]:
    """The subscriber's own proposals (myMemoryProposals' rule), as passes decide them."""
    return _events(pool, events, token, principal, "proposal", _decided)
