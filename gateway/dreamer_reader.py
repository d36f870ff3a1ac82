"""The Dreamer's reader, its prices and its batching, built from the process's settings
(issue 10, items 3 and 5): what every pass of this process runs with."""

from __future__ import annotations

from datetime import timedelta

from gateway.settings import Settings
from resolvers.memory.dreamer.batching import BatchTiming
from resolvers.memory.dreamer.chat_settings import ChatSettings
from resolvers.memory.dreamer.loading import reader_named
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.dreamer.reader import Reader
from resolvers.memory.dreamer.spend import Prices


def chat_settings(settings: Settings) -> ChatSettings:
    """The chat model settings among ``settings`` (unset ones empty)."""
    key = settings.dreamer_model_api_key
    return ChatSettings(
        base_url=settings.dreamer_model_base_url or "",
        model=settings.dreamer_model or "",
        api_key=key.get_secret_value() if key is not None else "",
        price_input_per_mtok=settings.dreamer_price_input_per_mtok,
        price_output_per_mtok=settings.dreamer_price_output_per_mtok,
        timeout=settings.dreamer_model_timeout,
        max_retries=settings.dreamer_model_max_retries,
        reasoning_effort=settings.dreamer_model_reasoning_effort,
    )


def dreamer_reader(settings: Settings) -> Reader:
    """The reader ``SKILLMEM_DREAMER_READER`` names; a ``ValueError`` naming the spec when it
    names none (or the model settings it needs are missing)."""
    return reader_named(settings.dreamer_reader, chat_settings(settings))


def dreamer_prices(settings: Settings) -> Prices:
    """What the reader's tokens cost, whichever reader it is (the rules reader spends none)."""
    return chat_settings(settings).prices


def batch_timing(settings: Settings) -> BatchTiming:
    """The batching settings: the grouping wait, the quick wait, the full batch."""
    return BatchTiming(
        group_wait=timedelta(seconds=settings.dreamer_group_wait_seconds),
        quick_wait=timedelta(seconds=settings.dreamer_quick_wait_seconds),
        full_batch=settings.dreamer_full_batch,
    )


def pass_settings(settings: Settings) -> PassSettings:
    """What every pass of this process runs with."""
    return PassSettings(
        reader=dreamer_reader(settings),
        reader_name=settings.dreamer_reader,
        prices=dreamer_prices(settings),
        timing=batch_timing(settings),
    )
