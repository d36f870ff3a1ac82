"""Creating a workspace with its native objects and its standard roles."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID, uuid4

import asyncpg

from db import identity, records
from db.pool import begin_workspace

# Native objects every workspace has (DESIGN §2): slug, singular, plural, kind.
NATIVE_OBJECTS = (
    ("skill", "Skill", "Skills", "skill"),
    ("memory", "Memory", "Memories", "memory"),
    ("meeting", "Meeting", "Meetings", "document"),
    ("mail", "Mail", "Mails", "document"),
    ("drive", "Drive", "Drives", "document"),
    ("artifact", "Artifact", "Artifacts", "document"),
    ("memory_store", "Memory store", "Memory stores", "memory_store"),
)

# Standard roles: name -> (settings update, create and update skills, record rights).
STANDARD_ROLES = {
    "admin": (True, True, (True, True, True, True)),
    "member": (False, True, (True, True, True, False)),
    "viewer": (False, False, (True, False, False, False)),
}


@dataclass(frozen=True, slots=True)
class NewWorkspace:
    workspace_id: UUID
    roles: dict[str, UUID]
    objects: dict[str, UUID]


async def create_workspace(
    conn: asyncpg.Connection, name: str, workspace_id: UUID | None = None
) -> NewWorkspace:
    """Inside a transaction: create a workspace, act in it, add native objects and roles."""
    workspace_id = workspace_id or uuid4()
    await begin_workspace(conn, workspace_id)
    await identity.insert_workspace(conn, workspace_id, name)
    objects: dict[str, UUID] = {}
    for slug, singular, plural, kind in NATIVE_OBJECTS:
        objects[slug] = uuid4()
        await records.insert_object(conn, objects[slug], slug, singular, plural, kind)
    roles: dict[str, UUID] = {}
    for role, (settings, skills, _) in STANDARD_ROLES.items():
        roles[role] = await identity.insert_role(
            conn, uuid4(), role, can_update_settings=settings, can_write_skills=skills
        )
    for slug in objects:
        await grant_standard_roles(conn, roles, objects[slug])
    return NewWorkspace(workspace_id, roles, objects)


async def grant_standard_roles(
    conn: asyncpg.Connection, roles: dict[str, UUID], object_id: UUID
) -> None:
    """Give each standard role its usual rights on one object."""
    for role, (_, _, (read, create, update, delete)) in STANDARD_ROLES.items():
        if role in roles:
            await identity.upsert_role_permission(
                conn,
                roles[role],
                object_id,
                read=read,
                create=create,
                update=update,
                delete=delete,
            )


async def create_object(
    conn: asyncpg.Connection,
    slug: str,
    singular: str,
    plural: str,
    attributes: list[tuple[str, str, str, str | None, int | None]],
) -> UUID:
    """Create a user-defined object with attributes (slug, title, type, target, principal
    rank); relation targets must exist already."""
    object_id = uuid4()
    await records.insert_object(conn, object_id, slug, singular, plural, "custom")
    for position, (a_slug, title, type_, target, rank) in enumerate(attributes):
        await records.insert_attribute(
            conn,
            object_id,
            a_slug,
            title,
            type_,
            target=target,
            principal_rank=rank,
            position=position,
        )
    return object_id
