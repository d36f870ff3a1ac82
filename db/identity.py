"""Workspaces, roles, members, agents, routines, API keys, MCP clients and tokens."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("identity")


@dataclass(frozen=True, slots=True)
class PrincipalRow:
    workspace_id: UUID
    workspace_name: str
    token_id: UUID
    kind: str
    member_id: UUID | None
    member_name: str | None
    member_email: str | None
    actor_id: UUID
    actor_name: str
    role_id: UUID
    role_name: str
    can_update_settings: bool
    can_write_skills: bool
    readable: frozenset[UUID]
    creatable: frozenset[UUID]
    updatable: frozenset[UUID]
    deletable: frozenset[UUID]


@dataclass(frozen=True, slots=True)
class WorkspaceRow:
    workspace_id: UUID
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class MemberRow:
    id: UUID
    name: str
    email: str
    role_id: UUID
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ActorRow:
    """An agent, a routine, an API key or an MCP client: something acting in a workspace."""

    id: UUID
    name: str
    created_at: datetime


async def begin_request(conn: asyncpg.Connection, token_hash: str) -> PrincipalRow | None:
    """Start the request's transaction as the token's principal; None for no live token."""
    row = await conn.fetchrow(Q["begin_request"], token_hash)
    if row is None:
        return None
    values = dict(row)
    for right in ("readable", "creatable", "updatable", "deletable"):
        values[right] = frozenset(values[right])
    return PrincipalRow(**values)


async def begin_request_generation(
    conn: asyncpg.Connection, token_hash: str
) -> tuple[PrincipalRow, int | None] | None:
    """As ``begin_request``, with the workspace's principal counter (None when it has none):
    what a principal cache keeps (db/principal_cache.py)."""
    row = await conn.fetchrow(Q["begin_request_generation"], token_hash)
    if row is None:
        return None
    values = dict(row)
    generation: int | None = values.pop("generation")
    for right in ("readable", "creatable", "updatable", "deletable"):
        values[right] = frozenset(values[right])
    return PrincipalRow(**values), generation


async def insert_workspace(conn: asyncpg.Connection, workspace_id: UUID, name: str) -> WorkspaceRow:
    """Create the workspace the transaction was begun for."""
    row = await conn.fetchrow(Q["insert_workspace"], workspace_id, name)
    assert row is not None
    return WorkspaceRow(**dict(row))


async def workspace(conn: asyncpg.Connection) -> WorkspaceRow | None:
    """The transaction's workspace."""
    row = await conn.fetchrow(Q["workspace"])
    return WorkspaceRow(**dict(row)) if row else None


async def workspace_directory(conn: asyncpg.Connection) -> list[WorkspaceRow]:
    """Every workspace, by name: on the owner's connection only (the operators' commands)."""
    return [WorkspaceRow(**dict(row)) for row in await conn.fetch(Q["workspace_directory"])]


async def workspaces_named(conn: asyncpg.Connection, name: str) -> list[WorkspaceRow]:
    """The workspaces called ``name``: on the owner's connection only."""
    return [WorkspaceRow(**dict(row)) for row in await conn.fetch(Q["workspaces_named"], name)]


async def insert_role(
    conn: asyncpg.Connection,
    role_id: UUID,
    name: str,
    *,
    can_update_settings: bool = False,
    can_write_skills: bool = False,
) -> UUID:
    """Create a role; return its id."""
    value: UUID = await conn.fetchval(
        Q["insert_role"], role_id, name, can_update_settings, can_write_skills
    )
    return value


async def upsert_role_permission(
    conn: asyncpg.Connection,
    role_id: UUID,
    object_id: UUID,
    *,
    read: bool,
    create: bool,
    update: bool,
    delete: bool,
) -> None:
    """Set a role's rights on one object."""
    await conn.execute(
        Q["upsert_role_permission"], role_id, object_id, read, create, update, delete
    )


async def role_by_name(conn: asyncpg.Connection, name: str) -> UUID | None:
    """The id of the role called ``name``."""
    row = await conn.fetchrow(Q["role_by_name"], name)
    return row["id"] if row else None


def _member(row: asyncpg.Record | None) -> MemberRow | None:
    return MemberRow(**dict(row)) if row else None


async def insert_member(
    conn: asyncpg.Connection, member_id: UUID, name: str, email: str, role_id: UUID
) -> MemberRow:
    """Add a member."""
    row = _member(await conn.fetchrow(Q["insert_member"], member_id, name, email, role_id))
    assert row is not None
    return row


async def member_by_email(conn: asyncpg.Connection, email: str) -> MemberRow | None:
    """The member with this email."""
    return _member(await conn.fetchrow(Q["member_by_email"], email))


async def members_by_ids(conn: asyncpg.Connection, ids: list[UUID]) -> list[MemberRow]:
    """Members by id (missing ids are left out)."""
    return [MemberRow(**dict(row)) for row in await conn.fetch(Q["members_by_ids"], ids)]


async def members_page(
    conn: asyncpg.Connection, after: tuple[str, UUID] | None, limit: int
) -> list[MemberRow]:
    """Members in name order after ``after`` (a name and id)."""
    name, member_id = after or ("", UUID(int=0))
    rows = await conn.fetch(Q["members_page"], name, member_id, limit)
    return [MemberRow(**dict(row)) for row in rows]


def _actor(row: asyncpg.Record | None) -> ActorRow | None:
    return ActorRow(row["id"], row["name"], row["created_at"]) if row else None


ActorKind = Literal["agent", "routine", "api_key", "mcp_client"]


async def insert_actor(
    conn: asyncpg.Connection, kind: ActorKind, actor_id: UUID, name: str, holder_id: UUID
) -> ActorRow:
    """Add an agent or a routine (``holder_id``: its owning member), an API key (its role) or an
    MCP client (its member)."""
    row = _actor(await conn.fetchrow(Q[f"insert_{kind}"], actor_id, name, holder_id))
    assert row is not None
    return row


async def agent_by_name(conn: asyncpg.Connection, name: str) -> ActorRow | None:
    """The agent called ``name``."""
    return _actor(await conn.fetchrow(Q["agent_by_name"], name))


async def api_key_by_name(conn: asyncpg.Connection, name: str) -> ActorRow | None:
    """The API key called ``name``."""
    return _actor(await conn.fetchrow(Q["api_key_by_name"], name))


async def insert_token(
    conn: asyncpg.Connection,
    token_id: UUID,
    token_hash: str,
    kind: str,
    *,
    member_id: UUID | None = None,
    agent_id: UUID | None = None,
    api_key_id: UUID | None = None,
    mcp_client_id: UUID | None = None,
    purpose: str = "cli",
) -> None:
    """Store a token's hash, and its workspace for the lookup by hash."""
    await conn.execute(
        Q["insert_token"],
        token_id,
        token_hash,
        kind,
        member_id,
        agent_id,
        api_key_id,
        mcp_client_id,
        purpose,
    )


async def revoke_tokens_by_purpose(conn: asyncpg.Connection, purpose: str) -> int:
    """Revoke the workspace's live tokens made for ``purpose``."""
    count: int = await conn.fetchval(Q["revoke_tokens_by_purpose"], purpose)
    return count


async def revoke_token(conn: asyncpg.Connection, token_id: UUID) -> None:
    """Revoke one token."""
    await conn.execute(Q["revoke_token"], token_id)


async def members_by_emails(conn: asyncpg.Connection, emails: list[str]) -> list[MemberRow]:
    """Members by email (unknown emails are left out)."""
    return [MemberRow(**dict(row)) for row in await conn.fetch(Q["members_by_emails"], emails)]
