"""The Monday removal's rules that need no I/O (issue 11, item 3; seed 000 "Weekly removal"):
when it runs, which contexte lines have passed their review, what a page keeps and when it is
left empty."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from uuid import UUID

from db.memory import LineRow
from db.removal import CandidateRow, StoredPage
from resolvers.memory.content import MISSION_HEADING
from resolvers.memory.grammar import REVIEW_AFTER_MONTHS, add_months, review_day

# Why a souvenir goes, in the order they are looked at (a line gets the first that holds).
REMOVAL_REASONS = ("ended", "review_passed", "source_gone", "source_closed")
PAGE_EMPTY = "page_empty"
MONDAY = 0


def is_monday(now: datetime) -> bool:
    """Whether ``now`` falls on a Monday, UTC."""
    return now.astimezone(UTC).weekday() == MONDAY


def day_of(now: datetime) -> tuple[datetime, datetime]:
    """The UTC day ``now`` falls in, as [midnight, next midnight)."""
    start = datetime.combine(now.astimezone(UTC).date(), datetime.min.time(), UTC)
    return start, start + timedelta(days=1)


def review_before(today: date) -> date:
    """The first day whose contexte is not yet past its review on ``today``: a contexte of an
    earlier day has a review date (``review_day``) before today. ``review_day`` never goes
    back as the day moves on, so this one day splits them."""
    day = add_months(today, -REVIEW_AFTER_MONTHS)
    while review_day(day) < today:
        day += timedelta(days=1)
    while review_day(day - timedelta(days=1)) >= today:
        day -= timedelta(days=1)
    return day


def is_empty(lines: Sequence[LineRow], about_kind: str) -> bool:
    """A page with no souvenir and no mission left: headings and blank lines alone do not
    keep a page, but the workspace profile's ``## Mission mémoire`` heading does, even with
    no text under it (the mission is never touched)."""
    for line in lines:
        if line.kind in ("souvenir", "mission"):
            return False
        if about_kind == "workspace" and line.kind == "heading":
            if line.text.rstrip() == MISSION_HEADING:
                return False
    return True


@dataclass(frozen=True, slots=True)
class PagePlan:
    """What the removal does to one page: the lines it keeps (none when it is deleted), the
    souvenirs it takes, and whether the page is left empty (then deleted)."""

    page_id: UUID
    audience: UUID | None  # the member whose profile it is; None: the workspace's
    lines: list[LineRow]
    removed: list[CandidateRow]
    emptied: bool


def plan_page(page: StoredPage, taken: Mapping[str, CandidateRow]) -> PagePlan | None:
    """The page without the souvenirs ``taken`` (by key; never a ✍ line); None when it
    loses none."""
    removed = [
        taken[line.key]
        for line in page.lines
        if line.kind == "souvenir" and not line.human and line.key is not None and line.key in taken
    ]
    if not removed:
        return None
    gone = {candidate.key for candidate in removed}
    kept = [line for line in page.lines if line.key is None or line.key not in gone]
    emptied = is_empty(kept, page.about_kind)
    return PagePlan(
        page_id=page.id,
        audience=page.member_id if page.about_kind == "member" else None,
        lines=[] if emptied else kept,
        removed=removed,
        emptied=emptied,
    )
