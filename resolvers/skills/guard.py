"""Writing a skill safely (DESIGN §3): who may write skills, and holding a skill while they do."""

from __future__ import annotations

import asyncpg

from db import records, skills
from db.skills import SkillRow
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import Principal
from resolvers.skills.reading import skill

SKILL_OBJECT = "skill"


async def require_skill_right(
    conn: asyncpg.Connection, principal: Principal, action: str = "update"
) -> None:
    """Refuse agents (skills are read-only to them, whatever their person's role), and callers
    whose role lacks the workspace right to create and update skills, or the ``action``
    (create, update, delete) on the skill object."""
    if principal.kind == "agent":
        raise DomainError(Code.FORBIDDEN, "Agents may not write skills; a person may.")
    if not principal.row.can_write_skills:
        raise DomainError(Code.FORBIDDEN, "You may not create or update skills.")
    object_id = await records.object_id(conn, SKILL_OBJECT)
    if object_id is None or not principal.may(action, object_id):
        raise DomainError(Code.FORBIDDEN, f"Your role may not {action} skills.")


async def locked_skill(conn: asyncpg.Connection, principal: Principal, name: str) -> SkillRow:
    """Inside a transaction: the latest state of a readable skill, held until it ends."""
    await skill(conn, principal, name)  # NOT_FOUND before anything is locked
    await skills.lock_skill(conn, name)
    return await skill(conn, principal, name)
