"""What reading a batch costs (DESIGN §5 "Allowances"): a reader's token usage at the
configured prices, in USD. Pure.

Prices are per million tokens, as model vendors quote them. The cost is exact (no rounding):
the allowance sums it, and rounding every pass would drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from resolvers.memory.dreamer.reader import Usage

TOKENS_PER_PRICE_UNIT = 1_000_000


@dataclass(frozen=True, slots=True)
class Prices:
    """USD per million input (read) and output (written) tokens."""

    input_per_mtok: Decimal = Decimal(0)
    output_per_mtok: Decimal = Decimal(0)

    def __post_init__(self) -> None:
        if self.input_per_mtok < 0 or self.output_per_mtok < 0:
            raise ValueError("a price per million tokens is never negative")


# What the ``rules`` reader costs, and any reader with no prices configured.
FREE = Prices()


def cost_usd(usage: Usage, prices: Prices) -> Decimal:
    """What ``usage`` costs at ``prices``, in USD (zero for the rules reader: it uses none)."""
    spent = (
        usage.input_tokens * prices.input_per_mtok + usage.output_tokens * prices.output_per_mtok
    )
    return spent / TOKENS_PER_PRICE_UNIT
