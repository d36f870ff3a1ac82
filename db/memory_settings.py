"""Memory settings: a member's preferences and the workspace's monthly allowances."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("memory_settings")


@dataclass(frozen=True, slots=True)
class PreferencesRow:
    member_since: datetime
    set: dict[str, dict[str, Any]]


async def preferences_of(conn: asyncpg.Connection, member_id: UUID) -> PreferencesRow | None:
    """A member's preferences as set, and when they joined."""
    row = await conn.fetchrow(Q["preferences_of"], member_id)
    return PreferencesRow(**dict(row)) if row else None


async def set_preference(
    conn: asyncpg.Connection, member_id: UUID, key: str, value: bool, at: datetime
) -> None:
    """Set a member's preference at ``at``."""
    await conn.execute(Q["set_preference"], member_id, key, value, at)


@dataclass(frozen=True, slots=True)
class SettingsRow:
    person: str | None
    tenant: str | None
    ai_credits: bool = True


async def workspace_settings(conn: asyncpg.Connection) -> SettingsRow:
    """The workspace's allowances as set (None: the default)."""
    row = await conn.fetchrow(Q["workspace_settings"])
    assert row is not None  # the workspace of the transaction exists
    return SettingsRow(**dict(row))


async def set_workspace_settings(
    conn: asyncpg.Connection,
    person: tuple[bool, Decimal | None],
    tenant: tuple[bool, Decimal | None],
    at: datetime,
    ai_credits: bool | None = None,
) -> SettingsRow:
    """Set either allowance (whether to set it, the amount or None for the default), and
    whether the workspace has AI credits (None: unchanged)."""
    row = await conn.fetchrow(
        Q["set_workspace_settings"], person[0], person[1], tenant[0], tenant[1], at, ai_credits
    )
    assert row is not None  # an upsert returns its row
    return SettingsRow(**dict(row))
