"""The mail tests' helpers stand the clock where mail is posted and the job runs
(tests/memory/mail/mailing.py): it comes back after each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from resolvers.common import clock


@pytest.fixture(autouse=True)
def system_clock_after() -> Iterator[None]:
    yield
    clock.set_clock(None)
