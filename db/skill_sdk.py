"""Skills as the Anthropic SDK sees them (issue 14): a skill with its label and latest version's
id, its versions by public id, and the versions withdrawn through the SDK."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("skill_sdk")


@dataclass(frozen=True, slots=True)
class SdkSkillRow:
    id: UUID
    name: str
    display_name: str
    created_at: datetime
    updated_at: datetime
    latest_version_id: UUID


@dataclass(frozen=True, slots=True)
class SdkVersionRow:
    public_id: UUID
    version: int
    description: str
    created_at: datetime


async def sdk_skill(
    conn: asyncpg.Connection, skill_id: UUID, readable: Sequence[UUID], person: UUID | None
) -> SdkSkillRow | None:
    """A readable skill by id."""
    row = await conn.fetchrow(Q["sdk_skill"], skill_id, readable, person)
    return SdkSkillRow(**dict(row)) if row else None


async def sdk_skills_page(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    *,
    after_name: str,
    limit: int,
) -> list[SdkSkillRow]:
    """Readable skills in name order after ``after_name``."""
    rows = await conn.fetch(Q["sdk_skills_page"], readable, person, after_name, limit)
    return [SdkSkillRow(**dict(r)) for r in rows]


async def sdk_versions_page(
    conn: asyncpg.Connection, skill_id: UUID, *, after_version: int, limit: int
) -> list[SdkVersionRow]:
    """A skill's versions not withdrawn, oldest first, after ``after_version``."""
    rows = await conn.fetch(Q["sdk_versions_page"], skill_id, after_version, limit)
    return [SdkVersionRow(**dict(r)) for r in rows]


async def sdk_version(
    conn: asyncpg.Connection, skill_id: UUID, public_id: UUID | None
) -> SdkVersionRow | None:
    """A version of a skill not withdrawn, by public id (None: the latest)."""
    row = await conn.fetchrow(Q["sdk_version"], skill_id, public_id)
    return SdkVersionRow(**dict(row)) if row else None


async def set_display_name(conn: asyncpg.Connection, skill_id: UUID, label: str | None) -> None:
    """Label a skill (None: its name is its label)."""
    await conn.execute(Q["set_display_name"], skill_id, label)


async def withdraw_version(
    conn: asyncpg.Connection, skill_id: UUID, version: int, at: datetime
) -> None:
    """Withdraw a version from the SDK's view (once; again is nothing)."""
    await conn.execute(Q["withdraw_version"], skill_id, version, at)
