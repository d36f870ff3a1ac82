"""Fixtures of the memory tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

import pytest

from resolvers.common import clock


@pytest.fixture
def stand() -> Iterator[Callable[[datetime], None]]:
    """Stand the one clock at a given time; the system clock comes back after the test."""

    def at(when: datetime) -> None:
        clock.set_clock(lambda: when)

    yield at
    clock.set_clock(None)
