"""The Dreamer's reader from the environment (gateway/dreamer_reader.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from gateway.dreamer_reader import chat_settings, dreamer_prices, dreamer_reader
from gateway.settings import Settings
from resolvers.memory.dreamer.chat import ChatReader
from resolvers.memory.dreamer.rules import RulesReader
from resolvers.memory.dreamer.spend import FREE, Prices
from tests.memory.dreamer.sample_reader import QuietReader

MODEL = {
    "SKILLMEM_DREAMER_READER": "openai",
    "SKILLMEM_DREAMER_MODEL_BASE_URL": "http://127.0.0.1:9/v1",
    "SKILLMEM_DREAMER_MODEL": "small-model",
    "SKILLMEM_DREAMER_MODEL_API_KEY": "sk-test",
    "SKILLMEM_DREAMER_MODEL_REASONING_EFFORT": "low",
    "SKILLMEM_DREAMER_MODEL_TIMEOUT": "20",
    "SKILLMEM_DREAMER_MODEL_MAX_RETRIES": "4",
    "SKILLMEM_DREAMER_PRICE_INPUT_PER_MTOK": "0.25",
    "SKILLMEM_DREAMER_PRICE_OUTPUT_PER_MTOK": "2",
}


def settings(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> Settings:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings(_env_file=None)


def test_by_default_the_rules_reader_costs_nothing(monkeypatch: pytest.MonkeyPatch):
    chosen = settings(monkeypatch, {})
    assert isinstance(dreamer_reader(chosen), RulesReader)
    assert dreamer_prices(chosen) == FREE


def test_the_environment_configures_the_chat_reader(monkeypatch: pytest.MonkeyPatch):
    chosen = settings(monkeypatch, MODEL)
    reader = dreamer_reader(chosen)
    assert isinstance(reader, ChatReader)
    chat = reader.settings
    assert (chat.base_url, chat.model, chat.api_key) == (
        "http://127.0.0.1:9/v1",
        "small-model",
        "sk-test",
    )
    assert (chat.timeout, chat.max_retries, chat.reasoning_effort) == (20, 4, "low")
    assert dreamer_prices(chosen) == Prices(Decimal("0.25"), Decimal("2"))
    assert "sk-test" not in repr(chosen)


def test_the_chat_reader_without_its_model_is_refused(monkeypatch: pytest.MonkeyPatch):
    chosen = settings(monkeypatch, {"SKILLMEM_DREAMER_READER": "openai"})
    assert chat_settings(chosen).missing() == ("base_url", "model", "api_key")
    with pytest.raises(ValueError, match="'openai' needs its model's base_url, model, api_key"):
        dreamer_reader(chosen)


def test_a_reader_of_your_own(monkeypatch: pytest.MonkeyPatch):
    spec = "tests.memory.dreamer.sample_reader:QuietReader"
    assert isinstance(
        dreamer_reader(settings(monkeypatch, {"SKILLMEM_DREAMER_READER": spec})), QuietReader
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SKILLMEM_DREAMER_PRICE_INPUT_PER_MTOK", "-1"),
        ("SKILLMEM_DREAMER_MODEL_TIMEOUT", "0"),
        ("SKILLMEM_DREAMER_MODEL_MAX_RETRIES", "-1"),
        ("SKILLMEM_DREAMER_MODEL_REASONING_EFFORT", "extreme"),
    ],
)
def test_impossible_values_are_refused_at_start(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
):
    with pytest.raises(ValidationError):
        settings(monkeypatch, {name: value})


def test_every_dreamer_setting_is_described():
    fields = {
        name: field for name, field in Settings.model_fields.items() if name.startswith("dreamer_")
    }
    assert len(fields) == 12
    assert all(field.description for field in fields.values())
