"""A conversation's read-only memory store (issue 14, item 6; seed 001 "access": "read_only"):
the agent of an open conversation that attached a store read-only (and read-write in none of
its open conversations) writes nothing to it, by any surface: every write of a store goes
through writable_store or delete_store (resolvers/stores/stores.py), which ask here. The rule is
SQL's (store_write_refused, migration 0029)."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from db import conversation_stores
from resolvers.agents.agents import caller_agent
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import Principal

READ_ONLY_ATTACHED = (
    "Your conversation attached this memory store read-only: its agent writes nothing to it."
)


async def refuse_read_only(conn: asyncpg.Connection, principal: Principal, store_id: UUID) -> None:
    """FORBIDDEN when the caller is an agent whose open conversation attached the store
    read-only."""
    agent = caller_agent(principal)
    person = principal.person_id
    if await conversation_stores.store_write_refused(conn, store_id, person, agent):
        raise DomainError(Code.FORBIDDEN, READ_ONLY_ATTACHED)
