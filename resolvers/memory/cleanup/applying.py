"""Writing what a consolidation decided (issue 11, item 4), in the workspace's transaction: the
pages the reader proposed changes for locked and read again (a page changed since it was read,
trashed, or no longer one that is consolidated, is left for the next time), each page changed
stored as one version by ``CONSOLIDATION_ACTOR``, the run recorded with every change, and its
cost charged to its payer. A run whose reader failed is recorded too (with rules version 0: not
every page was consolidated under the rules), with what the parts answered before the failure
applied, charged what the reader spent; so is a run whose writes failed after the reader
answered (nothing applied; what the reader was paid is charged all the same)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from uuid import UUID, uuid4

import asyncpg

from db import cleanups, consolidation, dreamer_pass, memory
from db.cleanups import ChangeRow, CleanupRow
from db.consolidation import PageToConsolidate
from resolvers.common import clock
from resolvers.memory.cleanup import CONSOLIDATION_ACTOR
from resolvers.memory.cleanup.rereading import Reading
from resolvers.memory.cleanup.tidying import Tidied, tidy
from resolvers.memory.dreamer.consolidating import ConsolidationAnswer, PageProposals
from resolvers.memory.dreamer.passes import PassSettings, month_of
from resolvers.memory.dreamer.reader import Usage
from resolvers.memory.dreamer.spend import cost_usd
from resolvers.memory.writing import store

# The rules version a run whose reader failed records: it applied none.
NO_RULES = 0


async def write(
    conn: asyncpg.Connection,
    reading: Reading,
    settings: PassSettings,
    answer: ConsolidationAnswer,
    started: datetime,
    rules_version: int,
    failure: str = "",
) -> CleanupRow:
    """Apply ``answer`` to the pages as they are now, record the run and charge it;
    ``failure``: why the reader stopped before answering every page (the run's note)."""
    proposals = proposals_by_page(reading, answer)
    versions = await consolidation.lock_pages(conn, sorted(proposals)) if proposals else {}
    changes: list[ChangeRow] = []
    moved = refused = mixed = 0
    for page_id, (page, proposal) in proposals.items():
        if versions.get(page_id) != page.version:
            moved += 1
            continue
        made, tidied = await _tidy_page(conn, reading, page_id, proposal)
        changes.extend(made)
        refused += len(tidied.refused)
        mixed += tidied.mixed_sources
    note = "; ".join(part for part in (failure, _note(moved, refused, mixed)) if part)
    row = _row(reading, settings, started, answer.usage, rules_version, changes, note)
    await cleanups.insert_cleanup(conn, row)
    await cleanups.insert_changes(conn, row.id, changes, row.finished_at)
    if reading.changeable:
        await _charge(conn, reading, started, row.cost_usd)
    return row


def proposals_by_page(
    reading: Reading, answer: ConsolidationAnswer
) -> dict[UUID, tuple[PageToConsolidate, PageProposals]]:
    """The answer's proposals for pages of the batch, with the pages as read, by page id (a
    page answered twice: its first answer); pages not in the batch are ignored."""
    found: dict[UUID, tuple[PageToConsolidate, PageProposals]] = {}
    for proposal in answer.pages:
        page = reading.pages.get(proposal.page_id)
        if page is not None and (proposal.lines or proposal.groups):
            found.setdefault(page.id, (page, proposal))
    return found


async def _tidy_page(
    conn: asyncpg.Connection, reading: Reading, page_id: UUID, proposal: PageProposals
) -> tuple[list[ChangeRow], Tidied]:
    """One locked page tidied and stored when anything changed; its changes (the page's
    deletion too), and what was decided (what was not applied, and why)."""
    workspace_id = reading.audience.workspace_id
    row = await memory.page_shown(conn, page_id, [], None, stored_form=True)
    assert row is not None  # locked, live
    tidied = tidy(row, proposal, workspace_id)
    if not tidied.changes:
        return [], tidied
    await store(conn, workspace_id, row, tidied.lines, CONSOLIDATION_ACTOR, "modified")
    made = list(tidied.changes)
    if tidied.emptied:
        made.append(ChangeRow(page_id, "page_deleted", "page_empty"))
    return made, tidied


def _note(moved: int, refused: int, mixed: int) -> str:
    parts = []
    if moved:
        parts.append(f"{moved} page(s) changed meanwhile, left for the next time")
    if refused:
        mixing = f" ({mixed} grouping lines of different sources)" if mixed else ""
        parts.append(f"{refused} proposal(s) not applied{mixing}")
    return "; ".join(parts)


def _row(
    reading: Reading,
    settings: PassSettings,
    started: datetime,
    usage: Usage,
    rules_version: int,
    changes: list[ChangeRow],
    note: str,
) -> CleanupRow:
    audience = reading.audience
    return CleanupRow(
        id=uuid4(),
        kind="consolidation",
        audience_kind=audience.audience_kind,
        audience_id=audience.audience_id,
        trigger=audience.trigger,
        reader=settings.reader_name,
        started_at=started,
        finished_at=clock.now(),
        rules_version=rules_version,
        payer_kind=reading.payer_kind,
        payer_id=reading.payer_id,
        pages_read=len(reading.batch.pages),
        lines_changed=sum(change.change != "page_deleted" for change in changes),
        pages_deleted=sum(change.change == "page_deleted" for change in changes),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=cost_usd(usage, settings.prices),
        note=note,
    )


async def _charge(
    conn: asyncpg.Connection, reading: Reading, started: datetime, cost: Decimal
) -> None:
    await dreamer_pass.charge(conn, reading.payer_kind, reading.payer_id, month_of(started), cost)


async def failed(
    conn: asyncpg.Connection,
    reading: Reading,
    settings: PassSettings,
    started: datetime,
    usage: Usage,
    why: str,
) -> CleanupRow:
    """Record a run that applied nothing (its reader failed, or writing what it answered
    did), under no rules, charged what the reader spent."""
    row = _row(reading, settings, started, usage, NO_RULES, [], why)
    await cleanups.insert_cleanup(conn, row)
    await _charge(conn, reading, started, row.cost_usd)
    return row
