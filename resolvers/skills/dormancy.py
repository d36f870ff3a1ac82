"""Dormancy (DESIGN §3): a skill never used and not updated for 21 days leaves the catalog's
descriptions until it is used again (pure)."""

from __future__ import annotations

from datetime import datetime, timedelta

DORMANT_AFTER_DAYS = 21


def is_dormant(use_count: int, updated_at: datetime, now: datetime) -> bool:
    """Whether a skill is dormant: never used and not updated for 21 days or more.
    ``updated_at`` and ``now`` must both be aware or both naive."""
    return use_count <= 0 and now - updated_at >= timedelta(days=DORMANT_AFTER_DAYS)


def dormant_since(now: datetime) -> datetime:
    """The moment a never-used skill not updated since is dormant at ``now`` (what
    ``is_dormant`` tells of one skill, as a bound a query compares ``updated_at`` with)."""
    return now - timedelta(days=DORMANT_AFTER_DAYS)
