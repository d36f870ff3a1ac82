"""What the chat reader is configured with (resolvers/memory/dreamer/chat_settings.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from resolvers.memory.dreamer.chat_settings import ChatSettings
from resolvers.memory.dreamer.spend import Prices


def test_settings_name_what_is_missing_and_hide_the_key():
    assert ChatSettings().missing() == ("base_url", "model", "api_key")
    assert ChatSettings(base_url="http://x", model=" ", api_key="k").missing() == ("model",)
    assert "sk-secret" not in repr(ChatSettings(api_key="sk-secret"))


@pytest.mark.parametrize(
    "wrong",
    [{"timeout": 0}, {"max_retries": -1}, {"price_input_per_mtok": Decimal("-1")}],
)
def test_settings_refuse_impossible_values(wrong: dict[str, Any]):
    with pytest.raises(ValueError):
        ChatSettings(**wrong)


def test_its_prices_are_per_million_tokens():
    chat = ChatSettings(price_input_per_mtok=Decimal("3"), price_output_per_mtok=Decimal("15"))
    assert chat.prices == Prices(Decimal("3"), Decimal("15"))
