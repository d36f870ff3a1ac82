"""Agents and their tool groups (issue 12, item 1)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("agents")


@dataclass(frozen=True, slots=True)
class AgentRow:
    id: UUID
    name: str
    owner_member_id: UUID
    tool_groups: list[str]
    created_at: datetime


def _agent(row: asyncpg.Record | None) -> AgentRow | None:
    return AgentRow(**dict(row)) if row else None


async def insert_agent(
    conn: asyncpg.Connection, agent_id: UUID, name: str, owner: UUID, tool_groups: list[str]
) -> AgentRow | None:
    """Add an agent owned by ``owner``; None when the workspace has one of that name."""
    return _agent(await conn.fetchrow(Q["insert_agent"], agent_id, name, owner, tool_groups))


async def agents(conn: asyncpg.Connection) -> list[AgentRow]:
    """The workspace's agents, in name order."""
    return [AgentRow(**dict(row)) for row in await conn.fetch(Q["agents"])]


async def set_tool_groups(
    conn: asyncpg.Connection, agent_id: UUID, tool_groups: list[str]
) -> AgentRow | None:
    """Replace an agent's tool groups; None when the workspace has no such agent."""
    return _agent(await conn.fetchrow(Q["set_tool_groups"], agent_id, tool_groups))


async def memory_on(conn: asyncpg.Connection, agent_id: UUID) -> bool:
    """Whether the agent reads and saves memories (its groups hold ``memory``)."""
    value: bool = await conn.fetchval(Q["memory_on"], agent_id)
    return value
