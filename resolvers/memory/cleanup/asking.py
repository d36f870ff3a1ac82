"""Asking the reader to consolidate one audience (issue 11, item 4) in parts a chat model can
take: the pages a run rereads (at most 200, in their order) go to the reader in parts of at
most ``MAX_BATCH_CHARS`` characters, a Dreamer batch's (a page's characters: the page as the
reader gets it, its JSON; a longer page is a part alone), one call after the other, their
usage summed. Every part carries the audience, the mission and the day.

A part whose call fails ends the asking. What the parts before it answered is applied as any
answer is; everything the reader spent, the failed call's too, is charged; the run is recorded
as one whose reader failed (rules version 0, its note saying which part failed and how many
pages were answered), so it is due again six hours later, when its pages are reread. The parts
after it are not asked: a server that failed one call is likely to fail the next, each of which
may wait out its timeout and retries first.
"""

from __future__ import annotations

from dataclasses import dataclass

from resolvers.memory.dreamer.consolidating import (
    ConsolidationAnswer,
    ConsolidationBatch,
    ConsolidationPage,
    Consolidator,
    PageProposals,
)
from resolvers.memory.dreamer.passes import MAX_BATCH_CHARS
from resolvers.memory.dreamer.reader import ReaderError, Usage


@dataclass(frozen=True, slots=True)
class Asked:
    """What the reader answered: the proposals of every part answered with the usage of every
    call (a failed one's too); and, when a part failed, why (as the run says it) and the
    error."""

    answer: ConsolidationAnswer
    failure: str = ""
    error: Exception | None = None


NOTHING_ASKED = Asked(ConsolidationAnswer(pages=(), usage=Usage()))


def page_chars(page: ConsolidationPage) -> int:
    """A page's characters as the reader gets them (its JSON)."""
    return len(page.model_dump_json())


def parts(batch: ConsolidationBatch, limit: int = MAX_BATCH_CHARS) -> list[ConsolidationBatch]:
    """``batch`` as batches of its pages in order, each of at most ``limit`` characters of
    pages (a page longer than that alone); none for a batch of no page."""
    groups: list[list[ConsolidationPage]] = []
    length = 0
    for page in batch.pages:
        size = page_chars(page)
        if groups and length + size <= limit:
            groups[-1].append(page)
            length += size
        else:
            groups.append([page])
            length = size
    return [batch.model_copy(update={"pages": tuple(group)}) for group in groups]


async def ask(consolidator: Consolidator, batch: ConsolidationBatch) -> Asked:
    """The reader's proposals for ``batch``, asked part by part until one fails."""
    chunks = parts(batch)
    found: list[PageProposals] = []
    usage = Usage()
    answered = 0
    for number, part in enumerate(chunks, 1):
        try:
            answer = await consolidator.consolidate(part)
        except Exception as error:  # noqa: BLE001 - any reader failure is recorded, not raised
            spent, why = reader_failure(error)
            if len(chunks) > 1:
                rest = len(batch.pages) - answered
                why += (
                    f" (part {number} of {len(chunks)}: {answered} page(s) answered before it,"
                    f" the other {rest} left for the next run)"
                )
            return Asked(_answer(found, _plus(usage, spent)), why, error)
        found.extend(answer.pages)
        usage = _plus(usage, answer.usage)
        answered += len(part.pages)
    return Asked(_answer(found, usage))


def reader_failure(error: Exception) -> tuple[Usage, str]:
    """What a reader that failed spent (a malformed answer is paid for), and why it failed as
    a run says it: a ``ReaderError``'s message (ours), else only the error's type."""
    usage = error.usage if isinstance(error, ReaderError) else Usage()
    why = str(error) if isinstance(error, ReaderError) else type(error).__name__
    return usage, f"the reader failed: {why}"


def _answer(found: list[PageProposals], usage: Usage) -> ConsolidationAnswer:
    return ConsolidationAnswer(pages=tuple(found), usage=usage)


def _plus(one: Usage, other: Usage) -> Usage:
    return Usage(
        input_tokens=one.input_tokens + other.input_tokens,
        output_tokens=one.output_tokens + other.output_tokens,
    )
