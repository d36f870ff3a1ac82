"""Readers of our own, loaded by ``package.module:attribute`` in test_loading.py."""

from __future__ import annotations

from resolvers.memory.dreamer.reader import Batch, ItemLearnings, ReaderAnswer, Usage


class QuietReader:
    """Learns nothing from any item and says it read ten tokens an item."""

    def __init__(self, tokens_per_item: int = 10) -> None:
        self.tokens_per_item = tokens_per_item

    async def read(self, batch: Batch) -> ReaderAnswer:
        learnings = tuple(ItemLearnings(item_id=item.id) for item in batch.items)
        usage = Usage(input_tokens=self.tokens_per_item * len(batch.items))
        return ReaderAnswer(learnings=learnings, usage=usage)


def quiet_reader() -> QuietReader:
    """A factory: the reader is made when the process starts."""
    return QuietReader(tokens_per_item=20)


# An object with a read, used as it is.
READER = QuietReader(tokens_per_item=30)


class Namespace:
    """A reader reached through a dotted attribute."""

    reader = READER


def reader_of(tokens_per_item: int) -> QuietReader:
    """A factory that needs an argument: it cannot be loaded by name."""
    return QuietReader(tokens_per_item)


class NotAReader:
    """Has no read."""

    def answer(self) -> None:
        return None


NOT_CALLABLE_READ = type("Broken", (), {"read": 3})()
