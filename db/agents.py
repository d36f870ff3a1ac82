"""Agents and their tool groups (issue 12, item 1)."""

from __future__ import annotations

from collections.abc import Sequence
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


# Attached skills (issue 14, item 6) ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttachableSkill:
    id: UUID
    name: str
    versions: list[int]


@dataclass(frozen=True, slots=True)
class AgentSkillRow:
    agent_id: UUID
    position: int
    kind: str
    skill_id: UUID | None
    # None: the skill's latest version.
    version: int | None
    anthropic_name: str | None
    skill_name: str | None


@dataclass(frozen=True, slots=True)
class NewAgentSkill:
    kind: str
    skill_id: UUID | None
    version: int | None
    anthropic_name: str | None


async def lock_agent(conn: asyncpg.Connection, agent_id: UUID) -> bool:
    """Lock the agent until the transaction ends; False when the workspace has none such."""
    return await conn.fetchval(Q["lock_agent"], agent_id) is not None


async def attachable_skills(
    conn: asyncpg.Connection,
    skill_ids: Sequence[UUID],
    readable: Sequence[UUID],
    person: UUID | None,
) -> list[AttachableSkill]:
    """The skills among ``skill_ids`` the caller may read, with their version numbers."""
    rows = await conn.fetch(Q["attachable_skills"], list(skill_ids), readable, person)
    return [AttachableSkill(r["id"], r["name"], list(r["versions"])) for r in rows]


async def replace_agent_skills(
    conn: asyncpg.Connection, agent_id: UUID, skills: Sequence[NewAgentSkill], at: datetime
) -> None:
    """The agent's attached skills become ``skills``, in order."""
    await conn.execute(Q["clear_agent_skills"], agent_id)
    if skills:
        await conn.execute(
            Q["insert_agent_skills"],
            agent_id,
            [s.kind for s in skills],
            [s.skill_id for s in skills],
            [s.version for s in skills],
            [s.anthropic_name for s in skills],
            at,
        )


async def agent_skills(conn: asyncpg.Connection, agent_ids: Sequence[UUID]) -> list[AgentSkillRow]:
    """The skills attached to the agents, each agent's in order."""
    rows = await conn.fetch(Q["agent_skills"], list(agent_ids))
    return [AgentSkillRow(**dict(r)) for r in rows]
