"""Dormancy: the rule at its boundary (pure); it reads the times skills keep, and those times come
from the one clock (DESIGN §1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from resolvers.common import clock
from resolvers.skills.dormancy import is_dormant
from tests.factories import gql
from tests.skills.test_service import UPDATE, create

DAY = datetime(2021, 3, 1, 9, 30, tzinfo=UTC)
CATALOG = "{ skillCatalog { name description dormant } }"
USE = 'mutation { recordSkillUse(name: "invoice-followup") { useCount } }'


async def skill_times(pool, ws, name: str) -> tuple[datetime, datetime, datetime | None]:
    async with pool.acquire() as conn:
        row = await conn.fetchrow(
            "SELECT created_at, updated_at, last_used_at FROM skills"
            " WHERE workspace_id = $1 AND name = $2",
            ws.id,
            name,
        )
    return row["created_at"], row["updated_at"], row["last_used_at"]


async def test_skill_times_come_from_the_clock(client, pool, ws):
    # Regression: updated_at and last_used_at were SQL now(), whatever the clock said.
    token = ws.tokens["member"]
    try:
        clock.set_clock(lambda: DAY)
        await create(client, token)
        assert await skill_times(pool, ws, "invoice-followup") == (DAY, DAY, None)
        updated = DAY + timedelta(days=2)
        clock.set_clock(lambda: updated)
        variables = {"name": "invoice-followup", "input": {"description": "Chase it twice."}}
        await gql(client, token, UPDATE, variables)
        assert await skill_times(pool, ws, "invoice-followup") == (DAY, updated, None)
        used = DAY + timedelta(days=5)
        clock.set_clock(lambda: used)
        await gql(client, token, USE)
        assert await skill_times(pool, ws, "invoice-followup") == (DAY, updated, used)
    finally:
        clock.set_clock(None)


async def test_a_skill_left_alone_on_the_clock_turns_dormant(client, ws):
    token = ws.tokens["member"]
    try:
        clock.set_clock(lambda: DAY)
        await create(client, token)
        clock.set_clock(lambda: DAY + timedelta(days=20))
        awake = (await gql(client, token, CATALOG)).json()["data"]["skillCatalog"]
        assert awake[0]["dormant"] is False
        clock.set_clock(lambda: DAY + timedelta(days=21))
        dormant = (await gql(client, token, CATALOG)).json()["data"]["skillCatalog"]
        assert dormant == [{"name": "invoice-followup", "description": None, "dormant": True}]
    finally:
        clock.set_clock(None)


# The rule at its boundary ----------------------------------------------------------------------

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("uses", "age", "dormant"),
    [
        (0, timedelta(days=20, hours=23, minutes=59), False),
        (0, timedelta(days=21), True),
        (0, timedelta(days=90), True),
        (1, timedelta(days=20, hours=23, minutes=59), False),
        (1, timedelta(days=21), False),
        (5, timedelta(days=365), False),
        (0, timedelta(0), False),
    ],
)
def test_dormancy(uses, age, dormant):
    assert is_dormant(uses, NOW - age, NOW) is dormant


def test_dormancy_with_naive_datetimes():
    now = datetime(2024, 6, 1)
    assert is_dormant(0, now - timedelta(days=21), now)
    assert not is_dormant(0, now - timedelta(days=21) + timedelta(microseconds=1), now)
