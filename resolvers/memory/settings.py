"""A person's memory preferences and the workspace's monthly allowances (DESIGN §5)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

import asyncpg

from db import memory_settings
from db.memory_settings import SettingsRow
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.principals import Principal

PREFERENCE_KEYS = ("memory.shareWithTeam", "memory.learnFromEmail")
DEFAULT_PERSON_MONTHLY_LIMIT_USD = "1.00"
DEFAULT_TENANT_MONTHLY_LIMIT_USD = "5.00"
SETTING_KEYS = ("memoryPersonMonthlyLimitUsd", "memoryTenantMonthlyLimitUsd")
# Without AI credits nothing of memory runs (the Dreamer reads nothing; proposals wait).
AI_CREDITS_KEY = "aiCredits"
# A decimal string with at most six decimals and a sane number of digits.
_AMOUNT = re.compile(r"(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?")


@dataclass(frozen=True, slots=True)
class Preference:
    key: str
    value: bool
    # When it was last turned on (a default is on since the member joined).
    on_since: datetime | None


async def preferences(conn: asyncpg.Connection, principal: Principal) -> list[Preference]:
    """The preferences of the person the request acts for."""
    person = _person(principal)
    row = await memory_settings.preferences_of(conn, person)
    if row is None:
        raise DomainError(Code.FORBIDDEN, "The request acts for no member.")
    found = []
    for key in PREFERENCE_KEYS:
        set_ = row.set.get(key)
        if set_ is None:
            found.append(Preference(key, True, row.member_since))
        else:
            on_since = set_["turned_on_at"]
            found.append(
                Preference(
                    key,
                    bool(set_["value"]),
                    datetime.fromisoformat(on_since) if on_since else None,
                )
            )
    return found


def _person(principal: Principal) -> UUID:
    if principal.person_id is None:
        raise DomainError(Code.FORBIDDEN, "An API key acts for no person and has no preferences.")
    return principal.person_id


async def set_preference(
    conn: asyncpg.Connection, principal: Principal, key: str, value: Any
) -> list[Preference]:
    """A person sets one of their own preferences (never an agent or a client for them)."""
    problems = []
    if key not in PREFERENCE_KEYS:
        problems.append(Problem(f"a preference is one of {', '.join(PREFERENCE_KEYS)}", "key"))
    if not isinstance(value, bool):
        problems.append(Problem("a preference's value is true or false", "value"))
    if problems:
        raise invalid(problems)
    if not principal.is_own_session:
        raise DomainError(Code.FORBIDDEN, "Only the person's own session sets their preferences.")
    await memory_settings.set_preference(conn, _person(principal), key, value, clock.now())
    return await preferences(conn, principal)


@dataclass(frozen=True, slots=True)
class Allowances:
    """The monthly allowances as set (None: the default) and as they apply."""

    person: str | None
    tenant: str | None
    ai_credits: bool = True

    @property
    def person_effective(self) -> str:
        return self.person if self.person is not None else DEFAULT_PERSON_MONTHLY_LIMIT_USD

    @property
    def tenant_effective(self) -> str:
        return self.tenant if self.tenant is not None else DEFAULT_TENANT_MONTHLY_LIMIT_USD


def _allowances(row: SettingsRow) -> Allowances:
    return Allowances(row.person, row.tenant, row.ai_credits)


async def allowances(conn: asyncpg.Connection) -> Allowances:
    """The workspace's monthly memory allowances."""
    return _allowances(await memory_settings.workspace_settings(conn))


def amount_problems(field: str, value: Any) -> list[Problem]:
    """Why an allowance is refused: it is a decimal string with at most six decimals, or null."""
    if value is None:
        return []
    if not isinstance(value, str) or not _AMOUNT.fullmatch(value):
        return [
            Problem(
                'an amount in USD is a decimal string with at most six decimals ("3", "0.50"),'
                " or null for the default",
                field,
            )
        ]
    return []


async def update_allowances(
    conn: asyncpg.Connection, principal: Principal, changes: dict[str, Any]
) -> Allowances:
    """A person with the settings right sets either allowance (absent: unchanged; None: the
    default). Any bad value changes nothing."""
    known = (*SETTING_KEYS, AI_CREDITS_KEY)
    problems = [
        Problem(f"unknown setting; the settings are {', '.join(known)}", key)
        for key in changes
        if key not in known
    ]
    for key in SETTING_KEYS:
        if key in changes:
            problems.extend(amount_problems(key, changes[key]))
    credits = changes.get(AI_CREDITS_KEY)
    if AI_CREDITS_KEY in changes and not isinstance(credits, bool):
        problems.append(Problem("true or false", AI_CREDITS_KEY))
    if problems:
        raise invalid(problems, "The settings are not valid: nothing was changed.")
    if not principal.is_own_session or not principal.row.can_update_settings:
        # A person with the right decides, in their own session: never an API key (whatever
        # its role), nor an agent or a client acting for them.
        raise DomainError(Code.FORBIDDEN, "You may not update the workspace's settings.")

    def change(key: str) -> tuple[bool, Decimal | None]:
        value = changes.get(key)
        return key in changes, Decimal(value) if value is not None else None

    row = await memory_settings.set_workspace_settings(
        conn,
        change(SETTING_KEYS[0]),
        change(SETTING_KEYS[1]),
        clock.now(),
        credits if isinstance(credits, bool) else None,
    )
    return _allowances(row)
