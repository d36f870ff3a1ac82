"""The skills panel (seed 003, "Viewing skills"): every skill the catalog offers, with its
trigger, uses, whether it is promoted or dormant, and where a harness agent finds its folder.

A skill is **promoted** when it has been used at least ``PROMOTED_MIN_USES`` times and its body
passes every L1 form check (``form``). The panel lists the skills most used first; skills used
as often are in name order. It reads the catalog's one query, so it shows exactly the skills
the catalog shows (readable by the caller, model invocation not disabled).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from db import skills
from db.skills import CatalogRow
from resolvers.agents.agents import caller_agent
from resolvers.common import clock
from resolvers.common.principals import Principal
from resolvers.skills.dormancy import is_dormant
from resolvers.skills.form import FormCheck, form_check
from resolvers.skills.reading import skill_directory
from resolvers.skills.trigger import trigger

PROMOTED_MIN_USES = 5


@dataclass(frozen=True, slots=True)
class PanelEntry:
    name: str
    trigger: str | None
    uses: int
    promoted: bool
    dormant: bool
    path: str


def is_promoted(uses: int, checks: list[FormCheck]) -> bool:
    """Used ``PROMOTED_MIN_USES`` times or more, and passing every form check."""
    return uses >= PROMOTED_MIN_USES and all(check.passed for check in checks)


def panel_order(entry: PanelEntry) -> tuple[int, str]:
    """Most used first; ties in name order."""
    return -entry.uses, entry.name


def _entry(row: CatalogRow, now: datetime) -> PanelEntry:
    return PanelEntry(
        name=row.name,
        trigger=trigger(row.content),
        uses=row.use_count,
        promoted=is_promoted(row.use_count, form_check(row.name, row.content)),
        dormant=is_dormant(row.use_count, row.updated_at, now),
        path=skill_directory(row.name, "harness"),
    )


async def skills_panel(conn: asyncpg.Connection, principal: Principal) -> list[PanelEntry]:
    """The panel's skills, most used first (ties in name order), in one statement."""
    now = clock.now()
    rows = await skills.skill_catalog(
        conn, principal.readable_objects, principal.person_id, caller_agent(principal)
    )
    return sorted((_entry(row, now) for row in rows), key=panel_order)
