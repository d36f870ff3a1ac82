"""The operators' commands' view of workspaces (on the owner's connection, outside any
workspace): a workspace named by its UUID, its GraphQL id or its name; and an API key created
with its role inside one workspace."""

from __future__ import annotations

import base64
import binascii
from uuid import UUID, uuid4

import asyncpg

from db import identity
from db.identity import ActorRow, WorkspaceRow
from db.pool import begin_workspace
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError, Problem, invalid

MAX_API_KEY_NAME_CHARS = 200


def workspace_uuid(reference: str) -> UUID | None:
    """The workspace a UUID or a workspace's GraphQL id names; None for anything else (a name)."""
    try:
        return UUID(reference)
    except ValueError:
        pass
    try:
        padded = reference + "=" * (-len(reference) % 4)
        kind, workspace, local = base64.urlsafe_b64decode(padded.encode()).decode().split(":")
        workspace_id = UUID(hex=workspace)
    except (ValueError, binascii.Error, UnicodeError):
        return None
    if kind != "Workspace" or ids.encode(kind, workspace_id, UUID(hex=local)) != reference:
        return None
    return workspace_id


async def find_workspace(conn: asyncpg.Connection, reference: str) -> WorkspaceRow:
    """The one workspace ``reference`` names (a UUID, a GraphQL id or a name); NOT_FOUND when
    none does, SCHEMA_VALIDATION_FAILED when a name is shared (listing the ids to use)."""
    workspace_id = workspace_uuid(reference)
    if workspace_id is not None:
        found = [
            w for w in await identity.workspace_directory(conn) if w.workspace_id == workspace_id
        ]
    else:
        found = await identity.workspaces_named(conn, reference)
    if not found:
        raise DomainError(Code.NOT_FOUND, f"no workspace {reference}")
    if len(found) > 1:
        listed = ", ".join(str(w.workspace_id) for w in found)
        raise invalid(
            [Problem(f"{len(found)} workspaces are called {reference!r}: {listed}", "workspace")],
            f"more than one workspace is called {reference}: give its id",
        )
    return found[0]


async def create_api_key(
    conn: asyncpg.Connection, workspace_id: UUID, name: str, role: str
) -> ActorRow:
    """Inside a transaction: an API key of the workspace with the role called ``role``; every
    problem listed (an empty or too long name, a name taken, no such role), nothing written."""
    await begin_workspace(conn, workspace_id)
    problems = []
    if not name.strip() or len(name) > MAX_API_KEY_NAME_CHARS:
        problems.append(Problem(f"1 to {MAX_API_KEY_NAME_CHARS} characters", "name"))
    elif await identity.api_key_by_name(conn, name) is not None:
        problems.append(Problem(f"an API key {name} exists already", "name"))
    role_id = await identity.role_by_name(conn, role)
    if role_id is None:
        problems.append(Problem(f"no role {role}", "role"))
    if problems or role_id is None:
        raise invalid(problems)
    return await identity.insert_actor(conn, "api_key", uuid4(), name, role_id)
