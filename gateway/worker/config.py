"""The settings turned into what a worker and its passes run with."""

from __future__ import annotations

from datetime import timedelta

from gateway import dreamer_reader
from gateway.settings import Settings
from gateway.worker.runner import WorkerOptions
from resolvers.memory.dreamer.passes import PassSettings


def worker_options(settings: Settings, concurrency: int | None = None) -> WorkerOptions:
    """A worker's options from the settings (``concurrency`` overrides theirs)."""
    return WorkerOptions(
        concurrency=concurrency or settings.worker_concurrency,
        poll=timedelta(seconds=settings.worker_poll_seconds),
        heartbeat=timedelta(seconds=settings.worker_heartbeat_seconds),
    )


def pass_settings(settings: Settings) -> PassSettings:
    """What every pass runs with, from the settings (gateway/dreamer_reader.py)."""
    return dreamer_reader.pass_settings(settings)
