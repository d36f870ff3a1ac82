"""Fixtures of the memory tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

import pytest

from resolvers.common import clock
from tests.memory.pages_api import NOW


@pytest.fixture
def stand() -> Iterator[Callable[[datetime], None]]:
    """Stand the one clock at a given time; the system clock comes back after the test."""

    def at(when: datetime) -> None:
        clock.set_clock(lambda: when)

    yield at
    clock.set_clock(None)


@pytest.fixture
def today():
    """The clock stands on TODAY for the test, then goes back to the system clock."""
    clock.set_clock(lambda: NOW)
    yield NOW
    clock.set_clock(None)
