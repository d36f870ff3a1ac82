"""What reading a batch costs (resolvers/memory/dreamer/spend.py): exact decimals."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.memory.dreamer.reader import Batch, PageOwner, Usage
from resolvers.memory.dreamer.rules import RulesReader
from resolvers.memory.dreamer.spend import FREE, Prices, cost_usd

PRICES = Prices(input_per_mtok=Decimal("3"), output_per_mtok=Decimal("15"))


def test_a_million_input_tokens_at_three_cost_three_dollars():
    assert cost_usd(Usage(input_tokens=1_000_000), PRICES) == Decimal("3")


def test_input_and_output_add_up_exactly():
    usage = Usage(input_tokens=1_234, output_tokens=567)
    assert cost_usd(usage, PRICES) == Decimal("0.012207")  # 0.003702 + 0.008505


def test_one_token_costs_its_share_without_rounding():
    assert cost_usd(Usage(output_tokens=1), Prices(output_per_mtok=Decimal("0.15"))) == Decimal(
        "0.00000015"
    )


async def test_the_rules_reader_costs_nothing_at_any_price():
    batch = Batch(
        owner=PageOwner(kind="workspace", id=None, name="Demo"), items=(), today=date(2026, 1, 1)
    )
    answer = await RulesReader().read(batch)
    assert cost_usd(answer.usage, PRICES) == 0


def test_no_prices_cost_nothing():
    assert cost_usd(Usage(input_tokens=10**9, output_tokens=10**9), FREE) == 0


def test_a_price_is_never_negative():
    with pytest.raises(ValueError):
        Prices(input_per_mtok=Decimal("-0.01"))


@given(st.integers(0, 10**12), st.integers(0, 10**12))
def test_the_cost_grows_with_the_tokens(read: int, written: int):
    cost = cost_usd(Usage(input_tokens=read, output_tokens=written), PRICES)
    more = cost_usd(Usage(input_tokens=read + 1, output_tokens=written), PRICES)
    assert 0 <= cost < more
