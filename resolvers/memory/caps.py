"""The caps of a page (DESIGN §5): how many souvenirs a record page and a profile hold, ✍
lines not counted. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from resolvers.common.errors import Problem
from resolvers.memory.grammar import Souvenir

PROFILE_SOUVENIR_CAP = 15
PROFILE_RECORD_SOUVENIR_CAP = 20
RECORD_PAGE_SOUVENIR_CAP = 20

PageKind = Literal["profile", "record"]


def counted(souvenirs: Iterable[Souvenir | tuple[bool, object]]) -> dict[object, int]:
    """Souvenirs that count toward a cap (✍ lines do not), by the record they are about
    (None: about no record)."""
    counts: dict[object, int] = {}
    for item in souvenirs:
        human, about = (
            (item.human, item.about.target if item.about else None)
            if isinstance(item, Souvenir)
            else item
        )
        if not human:
            counts[about] = counts.get(about, 0) + 1
    return counts


def cap_of(page_kind: PageKind, about: object) -> int:
    """How many counted souvenirs a page holds: a record page 20; a profile 15, plus 20 per
    record it mentions."""
    if page_kind == "record":
        return RECORD_PAGE_SOUVENIR_CAP
    return PROFILE_SOUVENIR_CAP if about is None else PROFILE_RECORD_SOUVENIR_CAP


def cap_problems(
    page_kind: PageKind, before: dict[object, int], after: dict[object, int]
) -> list[Problem]:
    """A problem for every cap the change passes. Past a cap only a rewrite or a delete is
    accepted: a count may stay over its cap, never grow over it."""
    problems = []
    for about, count in after.items():
        cap = cap_of(page_kind, about)
        if count > cap and count > before.get(about, 0):
            what = "this page" if about is None else f"this profile about {about}"
            problems.append(
                Problem(
                    f"{what} holds at most {cap} souvenirs (✍ lines not counted), not {count};"
                    " past it only a rewrite or a delete",
                    field="content",
                )
            )
    return problems
