"""A dream's run (issue 14, item 5): the consolidation that tidies memory pages, on a memory
store, as a job of the worker (and of `skillmem dreamer run`), like a consolidation run
(``resolvers/memory/cleanup/consolidation.py``) in four steps:

1. in one transaction: the dream taken (pending, or running whose worker stopped: one run at a
   time anywhere, under a lock named after it), its payer checked (the workspace's AI credits,
   the payer's allowance this month: otherwise it fails, saying so), its input store read again
   (gone or archived: it fails), and for ``create_new`` a new store made with a copy of every
   memory; the dream is then ``running`` with its output store;
1b. with sessions (our conversations): what the people said in them read by the reader and
   written as memories of the output store (``dream_sessions``: gathered, read, written in
   transactions of their own); a reader that fails there fails the dream, nothing written;
2. in one transaction: the output store's memories read (at most ``MAX_MEMORIES``, in path
   order), each a page of lines (``dream_pages``); the dream's instructions are the mission
   the reader reads before every rule;
3. with no transaction open: the reader's consolidation asked in parts (``asking``);
4. in one transaction: unless the dream was canceled meanwhile, each memory the reader
   proposes changes for locked and tidied by code (``tidying``), a memory changed since it was
   read left as it is, each change a version by whoever asked for the dream; the dream
   ``completed`` (or ``failed`` when the reader failed: nothing applied) with its usage, and
   its cost charged to its payer (a canceled dream's reader is charged all the same).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import replace
from datetime import datetime
from typing import cast
from uuid import UUID, uuid4

import asyncpg

from db import dreamer_pass, dreams, memory_stores, records
from db.dreams import DreamEnd, DreamRow, DueDream
from db.memory_stores import StoreRow
from db.pool import begin_workspace
from resolvers.common import clock
from resolvers.memory.cleanup.asking import NOTHING_ASKED, Asked, ask
from resolvers.memory.cleanup.tidying import tidy
from resolvers.memory.dreamer import guard
from resolvers.memory.dreamer.consolidating import Audience, ConsolidationBatch, Consolidator
from resolvers.memory.dreamer.loading import consolidator_of
from resolvers.memory.dreamer.passes import PassSettings, allowance, month_of
from resolvers.memory.dreamer.spend import cost_usd
from resolvers.memory.reading import sha256
from resolvers.stores.dream_pages import (
    MemoryPage,
    consolidation_page,
    content_after,
    read_memory,
)
from resolvers.stores.dream_sessions import NOTHING_LEARNED, Learned, learn
from resolvers.stores.dreams import UPDATE_EXISTING
from resolvers.stores.rules import MAX_NAME_CHARS, content_problems
from resolvers.stores.stores import STORE_OBJECT

log = logging.getLogger("skillmem.dreams")

MAX_MEMORIES = 200
# The periodic job (gateway/worker/periodic.py) running every dream due, each minute; the
# workers also queue one job per dream (gateway/worker/queue.py) as soon as it is asked for.
DREAMS_JOB = "memory.dreams"
DREAMS_CRON = "* * * * *"
NO_CREDITS = "The workspace has no AI credits: the dream was not run."
OVER_ALLOWANCE = (
    "The {payer} is at its AI allowance for this month (${limit}): the dream was not run; raise"
    " the allowance or ask again next month."
)


class Failure(Exception):
    """Why a dream fails before its reader is asked: its error's type and message."""

    def __init__(self, type_: str, message: str) -> None:
        super().__init__(message)
        self.type = type_
        self.message = message


def dream_key(workspace_id: UUID, dream_id: UUID) -> str:
    """The name of a dream's lock (ids only)."""
    return f"dream:{workspace_id}:{dream_id}"


async def run_due(
    pool: asyncpg.Pool,
    now: datetime,
    settings: PassSettings,
    workspaces: Collection[UUID] | None = None,
) -> list[str]:
    """The periodic job: every dream due (only those of ``workspaces`` when given), one after
    the other; one line each it ran."""
    async with pool.acquire() as proxy:
        due = await dreams.dreams_due(cast(asyncpg.Connection, proxy))
    if workspaces is not None:
        due = [d for d in due if d.workspace_id in workspaces]
    lines = [await run_dream(pool, d, settings) for d in due]
    return [line for line in lines if line]


async def run_dream(pool: asyncpg.Pool, due: DueDream, settings: PassSettings) -> str:
    """One dream to its end under its lock ('' when it runs elsewhere or is not due any more);
    a failure of ours (the database, a bug) fails it, logged."""
    async with guard.named_lock(pool, dream_key(due.workspace_id, due.dream_id)) as taken:
        if not taken:
            return ""
        async with pool.acquire() as proxy:
            conn = cast(asyncpg.Connection, proxy)
            try:
                return await _run(conn, due, settings)
            except Exception as error:  # noqa: BLE001 - the dream fails, the others run
                log.exception("dream %s failed", due.dream_id)
                message = f"The dream failed ({type(error).__name__}): nothing was applied."
                end = DreamEnd("failed", error_type="internal_error", error_message=message)
                await _end(conn, due, end)
                return _line(due, end)


async def _run(conn: asyncpg.Connection, due: DueDream, settings: PassSettings) -> str:
    async with conn.transaction():
        await begin_workspace(conn, due.workspace_id)
        try:
            started = await _start(conn, due.dream_id, settings)
        except Failure as failure:
            end = DreamEnd("failed", error_type=failure.type, error_message=failure.message)
            await dreams.end_dream(conn, due.dream_id, end, clock.now())
            return _line(due, end)
    if started is None:
        return ""
    dream, output = started
    learned = NOTHING_LEARNED
    if dream.session_ids:
        learned = await learn(conn, dream, output, settings.reader)
    pages: dict[str, MemoryPage] = {}
    if learned.failure:
        asked = Asked(NOTHING_ASKED.answer, failure=learned.failure)
    elif learned.canceled:
        asked = NOTHING_ASKED
    else:
        pages, asked = await _consolidation(conn, due, dream, output, settings)
    async with conn.transaction():
        await begin_workspace(conn, due.workspace_id)
        end = await _finish(conn, dream, output, pages, asked, settings, learned)
    return _line(due, end)


async def _consolidation(
    conn: asyncpg.Connection,
    due: DueDream,
    dream: DreamRow,
    output: StoreRow,
    settings: PassSettings,
) -> tuple[dict[str, MemoryPage], Asked]:
    """Steps 2 and 3: the output store's memories read as pages, the reader asked."""
    async with conn.transaction():
        await begin_workspace(conn, due.workspace_id)
        memories = await dreams.store_memories(conn, output.id, MAX_MEMORIES)
    pages = {str(m.id): read_memory(m) for m in memories}
    batch = ConsolidationBatch(
        audience=Audience(kind="workspace", id=None, name=output.name),
        pages=tuple(consolidation_page(page) for page in pages.values()),
        mission=dream.instructions or "",
        today=clock.utc_day(clock.now()),
    )
    consolidator = consolidator_of(settings.reader)
    assert consolidator is not None  # _start fails a dream whose reader cannot consolidate
    return pages, await _asked(consolidator, batch)


async def _asked(consolidator: Consolidator, batch: ConsolidationBatch) -> Asked:
    """The reader's proposals; not asked when no line could change (none, or only ✍)."""
    if not any(not line.human for page in batch.pages for line in page.lines):
        return NOTHING_ASKED
    return await ask(consolidator, batch)


async def _start(
    conn: asyncpg.Connection, dream_id: UUID, settings: PassSettings
) -> tuple[DreamRow, StoreRow] | None:
    """Step 1: the dream running with its output store (None: not to run any more)."""
    dream = await dreams.dream_for_update(conn, dream_id)
    if dream is None or dream.status not in ("pending", "running"):
        return None
    await _payer_checked(conn, dream)
    if consolidator_of(settings.reader) is None:
        raise Failure("invalid_request_error", f"The reader {settings.reader_name!r} cannot"
                      " consolidate: the dream was not run.")  # fmt: skip
    source = await _store_of(conn, dream, dream.input_store_id)
    in_place = dream.behavior == UPDATE_EXISTING
    if source is None:
        raise Failure("invalid_request_error", "The input memory store is gone.")
    # A store archived since the dream was asked for is not written (a copy once made is).
    if source.archived_at is not None and (dream.started_at is None or in_place):
        raise Failure("invalid_request_error", "The input memory store is archived.")
    output_id = dream.output_store_id or await _copy(conn, dream, source)
    running = await dreams.start_dream(conn, dream_id, clock.now(), output_id)
    output = await _store_of(conn, dream, output_id)
    if running is None or output is None:
        raise Failure("invalid_request_error", "The output memory store is gone.")
    return running, output


async def _payer_checked(conn: asyncpg.Connection, dream: DreamRow) -> None:
    """A dream runs only while its payer is under its allowance and with AI credits."""
    workspace = await dreamer_pass.workspace_facts(conn)
    if not workspace.ai_credits:
        raise Failure("billing_error", NO_CREDITS)
    limit = allowance(workspace, dream.payer_kind)
    spent = await dreamer_pass.spent(conn, dream.payer_kind, dream.payer_id, month_of(clock.now()))
    if spent >= limit:
        payer = "person who asked for it" if dream.payer_kind == "member" else "workspace"
        raise Failure("billing_error", OVER_ALLOWANCE.format(payer=payer, limit=limit))


async def _store_of(conn: asyncpg.Connection, dream: DreamRow, store_id: UUID) -> StoreRow | None:
    """A store as the person who asked for the dream reads it (any store of a workspace-wide
    visibility, a private one of theirs)."""
    object_id = await records.object_id(conn, STORE_OBJECT)
    readable = [object_id] if object_id is not None else []
    return await memory_stores.store_readable(conn, store_id, readable, dream.person_id)


async def _copy(conn: asyncpg.Connection, dream: DreamRow, source: StoreRow) -> UUID:
    """``create_new``: a new store beside the input, seen by whoever sees it (a private one:
    by the person who asked), holding a copy of every memory."""
    now = clock.now()
    store_id = uuid4()
    name = f"{source.name} (dream)"
    if len(name) > MAX_NAME_CHARS:
        name = source.name[: MAX_NAME_CHARS - 8] + " (dream)"
    private = source.visibility == "private"
    owner = (dream.person_id or source.owner_member_id) if private else None
    await memory_stores.insert_store(
        conn, store_id, name, source.description, source.metadata, source.visibility, owner, now
    )
    await dreams.copy_memories(conn, source.id, store_id, dream.actor, now)
    return store_id


async def _finish(
    conn: asyncpg.Connection,
    dream: DreamRow,
    output: StoreRow,
    pages: dict[str, MemoryPage],
    asked: Asked,
    settings: PassSettings,
    learned: Learned = NOTHING_LEARNED,
) -> DreamEnd:
    """Step 4: what the reader proposed applied (unless the dream was canceled or its reader
    failed), the dream ended, its cost charged (the sessions' reading too)."""
    usage, more = asked.answer.usage, learned.usage
    cost = cost_usd(usage, settings.prices) + cost_usd(more, settings.prices)
    tokens = (usage.input_tokens + more.input_tokens, usage.output_tokens + more.output_tokens)
    locked = await dreams.dream_for_update(conn, dream.id)
    read = "; ".join(filter(None, (learned.note, f"memories read {len(pages)}")))
    if locked is None or locked.status != "running":
        end = DreamEnd("canceled", *tokens, cost_usd=cost, note=f"canceled while running; {read}")
        await dreams.spend_of_canceled(conn, dream.id, end)
    elif asked.failure:
        message = f"{asked.failure}: nothing was applied."
        end = DreamEnd("failed", *tokens, cost_usd=cost, error_type="api_error",
                       error_message=message, note=read)  # fmt: skip
        await dreams.end_dream(conn, dream.id, end, clock.now())
    else:
        note = await _apply(conn, dream, output, pages, asked)
        end = DreamEnd("completed", *tokens, cost_usd=cost, note=f"{read}; {note}")
        await dreams.end_dream(conn, dream.id, end, clock.now())
    await dreamer_pass.charge(conn, dream.payer_kind, dream.payer_id, month_of(clock.now()), cost)
    return end


async def _apply(
    conn: asyncpg.Connection,
    dream: DreamRow,
    output: StoreRow,
    pages: dict[str, MemoryPage],
    asked: Asked,
) -> str:
    """Each memory the reader proposed changes for, tidied and written when it is still the
    one read; what was done, said in one line."""
    proposals = {p.page_id: p for p in reversed(asked.answer.pages) if p.page_id in pages}
    ids = [pages[page_id].memory.id for page_id in proposals]
    versions = await dreams.lock_memories(conn, output.id, ids) if ids else {}
    changed = moved = refused = deleted = 0
    for page_id, proposal in proposals.items():
        page = pages[page_id]
        if versions.get(page.memory.id) != page.memory.version_id:
            moved += 1
            continue
        tidied = tidy(page.row, proposal, dream.workspace_id, page_limits=False)
        refused += len(tidied.refused)
        if not tidied.changes:
            continue
        content = content_after(page, tidied)
        if content is not None and content_problems(content):
            refused += len(tidied.changes)
            continue
        await _write(conn, dream, page, content)
        changed += len(tidied.changes)
        deleted += content is None
    note = f"lines changed {changed}, memories deleted {deleted}"
    if moved:
        note += f", {moved} memory(ies) changed meanwhile left as they are"
    return note + (f", {refused} proposal(s) not applied" if refused else "")


async def _write(
    conn: asyncpg.Connection, dream: DreamRow, page: MemoryPage, content: str | None
) -> None:
    """A memory's new content (None: the memory deleted), a version by the dream's asker."""
    now = clock.now()
    current = page.memory
    if content is None:
        await memory_stores.insert_version(conn, uuid4(), current, "deleted", dream.actor, now)
        await memory_stores.delete_memory(conn, current.store_id, current.id)
        return
    row = replace(
        current,
        content=content,
        content_sha256=sha256(content),
        content_size_bytes=len(content.encode()),
        version_id=uuid4(),
        updated_at=now,
    )
    await memory_stores.insert_version(conn, row.version_id, row, "modified", dream.actor, now)
    await memory_stores.update_memory(conn, row)


async def _end(conn: asyncpg.Connection, due: DueDream, end: DreamEnd) -> None:
    async with conn.transaction():
        await begin_workspace(conn, due.workspace_id)
        await dreams.end_dream(conn, due.dream_id, end, clock.now())


def _line(due: DueDream, end: DreamEnd) -> str:
    """How a dream's run is told on the command line and in the log."""
    line = f"dream {due.dream_id} of workspace {due.workspace_id}: {end.status}"
    if end.error_message:
        line += f" ({end.error_message})"
    return f"{line}; {end.note}; cost ${end.cost_usd}" if end.note else line
