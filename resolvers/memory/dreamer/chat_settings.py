"""What the chat model reader is configured with (issue 10, item 5): where the model is, which
one, its key, what its tokens cost, how long to wait and how often to retry, and the reasoning
effort. Kept apart from ``chat`` so that the process's settings can name these defaults
without loading the ``openai`` package. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from resolvers.memory.dreamer.spend import Prices

DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_MAX_RETRIES = 2
# The effort levels every reasoning model of the API knows; the seed runs the Dreamer "at a
# low reasoning level", sent only when configured (a model without reasoning refuses it).
ReasoningEffort = Literal["minimal", "low", "medium", "high"]


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """How to reach the chat model and what its tokens cost (USD per million)."""

    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    price_input_per_mtok: Decimal = Decimal(0)
    price_output_per_mtok: Decimal = Decimal(0)
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    max_retries: int = DEFAULT_MAX_RETRIES
    reasoning_effort: ReasoningEffort | None = None

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError("the chat model's timeout is a positive number of seconds")
        if self.max_retries < 0:
            raise ValueError("the chat model's max_retries is never negative")
        if self.price_input_per_mtok < 0 or self.price_output_per_mtok < 0:
            raise ValueError("a price per million tokens is never negative")

    @property
    def prices(self) -> Prices:
        """The prices per million tokens, for ``spend.cost_usd``."""
        return Prices(self.price_input_per_mtok, self.price_output_per_mtok)

    def missing(self) -> tuple[str, ...]:
        """The names of the settings a chat reader needs and that are empty."""
        needed = {"base_url": self.base_url, "model": self.model, "api_key": self.api_key}
        return tuple(name for name, value in needed.items() if not value.strip())
