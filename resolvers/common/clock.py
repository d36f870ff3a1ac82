"""The one clock (DESIGN §1): tests stand it on any day."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

_now: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731


def now() -> datetime:
    """The current time, timezone-aware."""
    return _now()


def set_clock(clock: Callable[[], datetime] | None) -> None:
    """Replace the clock (None restores the system clock)."""
    global _now
    _now = clock or (lambda: datetime.now(UTC))


def utc_day(moment: datetime) -> date:
    """The day ``moment`` falls on in UTC, whatever its own offset (a time given with one, such
    as `skillmem dreamer run --now 2026-03-01T01:00+02:00`, is that day of UTC: February's
    last)."""
    return moment.astimezone(UTC).date()
