"""A pass of the Dreamer over one page owner's waiting items (issue 10): load the batch, let
the reader propose, decide every verdict by code, write the pages, charge the payer."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

import asyncpg

from db.dreamer_schedule import DueOwner
from resolvers.memory.dreamer.batching import BatchTiming
from resolvers.memory.dreamer.reader import Reader
from resolvers.memory.dreamer.rules import RulesReader


@dataclass(frozen=True, slots=True)
class Prices:
    """USD per million tokens read and written (the ``rules`` reader costs nothing)."""

    input_per_mtok: Decimal = Decimal(0)
    output_per_mtok: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True)
class PassSettings:
    """What every pass runs with: the reader and its name, its prices, the batching."""

    reader: Reader = field(default_factory=RulesReader)
    reader_name: str = "rules"
    prices: Prices = Prices()
    timing: BatchTiming = BatchTiming()


@dataclass(frozen=True, slots=True)
class PassReport:
    """What one pass did: items read, items left waiting (over the allowance, or the reader
    failed), verdicts by kind, and its cost."""

    owner: DueOwner
    read: int = 0
    waiting: int = 0
    written: int = 0
    refreshed: int = 0
    refused: int = 0
    cost_usd: Decimal = Decimal(0)
    note: str = ""


async def run_pass(pool: asyncpg.Pool, owner: DueOwner, settings: PassSettings) -> PassReport:
    """Run one page owner's pass to completion; safe to re-run (idempotent per item)."""
    raise NotImplementedError("the pass is being built (issue 10)")


async def run_due(pool: asyncpg.Pool, now: datetime, settings: PassSettings) -> list[PassReport]:
    """Run every pass due at ``now`` to completion, soonest due first."""
    raise NotImplementedError("the pass is being built (issue 10)")
