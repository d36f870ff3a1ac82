"""Agents as admins create and configure them (issue 12, item 1): a name and tool groups.

Only a person's own session with the settings right (an admin) creates an agent (owned by
that person) or changes its groups; every other caller is answered ``FORBIDDEN``. Every
problem of an input is listed and nothing is stored when any is found."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from uuid import UUID, uuid4

import asyncpg

from db import agents
from db.agents import AgentRow
from resolvers.agents.groups import tool_group_problems, tool_groups
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal

MAX_NAME_CHARS = 200


def admin(principal: Principal) -> UUID:
    """The admin asking (their member id); FORBIDDEN for anyone else."""
    person = principal.person_id
    if not principal.is_own_session or person is None or not principal.row.can_update_settings:
        raise DomainError(
            Code.FORBIDDEN, "Only an admin, in their own session, creates and configures agents."
        )
    return person


def name_problems(name: str) -> list[Problem]:
    """Why an agent's name is refused: blank, too long, or holding a control character."""
    if not name.strip() or len(name) > MAX_NAME_CHARS:
        return [Problem(f"1 to {MAX_NAME_CHARS} characters, not blank", "name")]
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
        return [Problem("holds no control character", "name")]
    return []


async def create_agent(
    conn: asyncpg.Connection,
    principal: Principal,
    name: str,
    groups: Sequence[str] | None = None,
) -> AgentRow:
    """A new agent owned by the admin asking, with ``groups`` (none given: the default,
    ``core`` and ``memory``)."""
    owner = admin(principal)
    problems = name_problems(name) + tool_group_problems(groups or [])
    if problems:
        raise invalid(problems)
    made = await agents.insert_agent(conn, uuid4(), name, owner, tool_groups(groups))
    if made is None:
        raise invalid([Problem("the workspace has an agent of this name", "name")])
    return made


async def set_tool_groups(
    conn: asyncpg.Connection, principal: Principal, agent_gid: str, groups: Sequence[str]
) -> AgentRow:
    """Replace an agent's tool groups (``core`` stays whatever is asked)."""
    admin(principal)
    problems = tool_group_problems(groups)
    try:
        agent = ids.decode(agent_gid, "Agent", principal.workspace_id)
    except DomainError as error:
        if error.code is not Code.SCHEMA_VALIDATION_FAILED:
            raise
        problems = error.problems + problems
    if problems:
        raise invalid(problems)
    changed = await agents.set_tool_groups(conn, agent, tool_groups(groups))
    if changed is None:
        raise not_found("agent")
    return changed


async def workspace_agents(conn: asyncpg.Connection, principal: Principal) -> list[AgentRow]:
    """The workspace's agents, in name order (admins only)."""
    admin(principal)
    return await agents.agents(conn)


async def memory_on(conn: asyncpg.Connection, principal: Principal) -> bool:
    """Whether the caller reads and saves memories: every caller but an agent whose groups
    omit ``memory``."""
    if principal.kind != "agent":
        return True
    return await agents.memory_on(conn, principal.row.actor_id)


def caller_agent(principal: Principal) -> UUID | None:
    """The agent a request comes from (an agent's token), or None."""
    return principal.row.actor_id if principal.kind == "agent" else None
