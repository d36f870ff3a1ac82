"""The rules reader, answering after a pause: a pass that is still under way when the soak
signals its worker (`SKILLMEM_DREAMER_READER=bench.soak.slow_reader:SlowRules`)."""

from __future__ import annotations

import asyncio
import os

from resolvers.memory.dreamer.reader import Batch, ReaderAnswer
from resolvers.memory.dreamer.rules import answer

PAUSE_VARIABLE = "SOAK_READER_SECONDS"


class SlowRules:
    """Reads as the rules reader does, ``SOAK_READER_SECONDS`` (1.5 by default) later."""

    async def read(self, batch: Batch) -> ReaderAnswer:
        await asyncio.sleep(float(os.environ.get(PAUSE_VARIABLE, "1.5")))
        return answer(batch)
