"""When a page owner's pass is due, and in which order its items are read (issue 10, item 3;
DESIGN §6 "Batching"). All durations are settings (BatchTiming). Pure: no database, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

WaitingKind = Literal["conversation", "run", "meeting", "proposal", "mail"]

# A pass waits this long after its oldest item, to group items.
GROUP_WAIT = timedelta(hours=1)
# ... only this long after a remember-request or a proposal.
QUICK_WAIT = timedelta(minutes=5)
# ... and not at all once this many items wait.
FULL_BATCH = 20
# Read after everything else waiting for the same owner.
LATE_KINDS: frozenset[WaitingKind] = frozenset({"mail"})


@dataclass(frozen=True, slots=True)
class BatchTiming:
    """The settings of batching: the grouping wait, the quick wait after an urgent item, and
    the number of waiting items that makes a pass due at once."""

    group_wait: timedelta = GROUP_WAIT
    quick_wait: timedelta = QUICK_WAIT
    full_batch: int = FULL_BATCH


@dataclass(frozen=True, slots=True)
class Waiting:
    """One item waiting for its owner's pass: when it arrived, its kind, and whether it is
    urgent (a remember-request or a proposal)."""

    arrived_at: datetime
    kind: WaitingKind
    urgent: bool = False


def due_at(waiting: Sequence[Waiting], timing: BatchTiming = BatchTiming()) -> datetime | None:
    """When the pass over ``waiting`` is due: the earliest of the oldest arrival plus the group
    wait, the earliest urgent arrival plus the quick wait, and the arrival of the
    ``full_batch``-th item (in arrival order). None when nothing waits."""
    if not waiting:
        return None
    arrivals = sorted(item.arrived_at for item in waiting)
    candidates = [arrivals[0] + timing.group_wait]
    urgent = [item.arrived_at for item in waiting if item.urgent]
    if urgent:
        candidates.append(min(urgent) + timing.quick_wait)
    if len(arrivals) >= timing.full_batch:
        candidates.append(arrivals[timing.full_batch - 1])
    return min(candidates)


def reading_order(waiting: Sequence[Waiting]) -> list[Waiting]:
    """``waiting`` in reading order: conversations, runs, meetings and proposals before mail,
    each group by arrival (stable: items arrived together keep their order)."""
    return sorted(waiting, key=lambda item: (item.kind in LATE_KINDS, item.arrived_at))
