"""A dream's sessions read (issue 14, item 5): what the people said in the dream's
conversations becomes memories of its output store, before the consolidation runs over it.

The messages are those a Dreamer pass reads (``resolvers/memory/dreamer/messages.py``,
``sources``): each person's message of a conversation that is read (two of the person's
messages, or one asking to remember), never one of a conversation whose agent read another
conversation nor through an agent whose memory tool group is off (``item_memory_on``), only of
conversations the person who asked for the dream may read. They are gathered as a pass gathers
its items (``gather``), read by the configured reader's ``read`` (the ``rules`` reader: by its
cue words, "Remember: ..."), and every learning is decided by the pass's rules
(``verdicts.decide``: the reader's flags, the routing, the durability, the caps), with two
differences: the output store is written, never a memory page of the workspace (nor is any page
sent to the reader: the dream's instructions are its mission), and the store's own rights hold
(whoever asked for the dream writes it), not who may shape a shared page. What a private
conversation says, written to a store that is not private, follows the pass's sharing rule as
for a person who shares with the team: a record's memory takes a relation, a contexte or a
décision (anything else about the record goes to the person's own profile, naming the record),
and nothing the reader flags ``sensitive`` is written; to a private store (the person's own),
everything goes where it is about.

Where a learning goes, mirroring the workspace's memory store (``workspace.page_path``): a
record's under ``/records/<object>/<label>.md``, a person's under ``/profiles/members/<name>.md``,
an agent's or a routine's under ``/profiles/agents/`` or ``/profiles/routines/``, the
workspace's in ``/profiles/workspace.md``; each learning one line in the souvenir grammar
appended to that memory (created when there is none), a version by whoever asked for the
dream. Lines are written, under the dream's lock, only while it is running; a dream canceled
later keeps them (its consolidation is not applied).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from uuid import UUID, uuid4

import asyncpg

from db import dreamer_pass, dreams, memory_stores
from db.dreams import DreamRow
from db.memory import LineRow
from db.memory_stores import MemoryRow, StoreRow
from db.pool import begin_workspace
from resolvers.common import clock
from resolvers.memory.dreamer.context import PageKey, PassContext, Permissions
from resolvers.memory.dreamer.gather import Gathered, gather, gid
from resolvers.memory.dreamer.passes import MAX_BATCH_CHARS, MAX_BATCH_ITEMS
from resolvers.memory.dreamer.reader import (
    Batch,
    Item,
    ItemLearnings,
    Reader,
    ReaderAnswer,
    ReaderError,
    Usage,
)
from resolvers.memory.dreamer.sources import ConversationSource, conversation_is_read
from resolvers.memory.dreamer.verdicts import Decisions, decide
from resolvers.memory.reading import line_text, sha256
from resolvers.stores.rules import content_problems
from resolvers.stores.workspace import file_name

# At most this many messages a dream reads, oldest first.
MAX_MESSAGES = 500
_PROFILE_FOLDERS = {"member": "members", "agent": "agents", "routine": "routines"}


@dataclass(frozen=True, slots=True)
class Learned:
    """What reading a dream's sessions did: the reader's usage, one line said, and why it
    failed (the reader's error: nothing written)."""

    usage: Usage = Usage()
    note: str = ""
    failure: str | None = None
    canceled: bool = False


NOTHING_LEARNED = Learned()


async def learn(
    conn: asyncpg.Connection, dream: DreamRow, output: StoreRow, reader: Reader
) -> Learned:
    """The dream's sessions read into ``output``: gathered (one transaction), read by the
    reader (none open), decided and written (one transaction, the dream locked)."""
    async with conn.transaction():
        await begin_workspace(conn, dream.workspace_id)
        gathered = await _gathered(conn, dream)
    if gathered is None:
        return Learned(note="sessions: no message read")
    batch = _batch(gathered.batch, dream)
    answer = await _read(reader, batch)
    if isinstance(answer, Learned):
        return answer
    decisions = decide(batch, answer, _context(gathered, output))
    read = f"session messages read {len(batch.items)}"
    async with conn.transaction():
        await begin_workspace(conn, dream.workspace_id)
        locked = await dreams.dream_for_update(conn, dream.id)
        if locked is None or locked.status != "running":
            return Learned(answer.usage, note=read, canceled=True)
        note = await _write(conn, dream, output, gathered, decisions)
    return Learned(answer.usage, note=f"{read}; {note}")


async def _read(reader: Reader, batch: Batch) -> ReaderAnswer | Learned:
    """The reader's learnings of every item, asked in parts as a pass's batches are cut (at
    most MAX_BATCH_ITEMS items and about MAX_BATCH_CHARS characters each), their usage summed;
    a part that fails fails the reading (what was spent counted)."""
    learnings: list[ItemLearnings] = []
    spent = Usage()
    for part in reading_parts(batch.items):
        try:
            answer = await reader.read(batch.model_copy(update={"items": part}))
        except Exception as error:  # noqa: BLE001 - the dream fails, saying why
            more = error.usage if isinstance(error, ReaderError) else Usage()
            usage = _sum(spent, more)
            return Learned(usage, failure=f"The reader could not read the sessions ({error})")
        learnings.extend(answer.learnings)
        spent = _sum(spent, answer.usage)
    return ReaderAnswer(learnings=tuple(learnings), usage=spent)


def reading_parts(items: Sequence[Item]) -> list[tuple[Item, ...]]:
    """The items cut as a pass cuts its batches (a longer item read alone)."""
    parts: list[list[Item]] = []
    length = 0
    for item in items:
        length += len(item.text)
        if not parts or len(parts[-1]) >= MAX_BATCH_ITEMS or length > MAX_BATCH_CHARS:
            parts.append([])
            length = len(item.text)
        parts[-1].append(item)
    return [tuple(part) for part in parts]


def _sum(one: Usage, other: Usage) -> Usage:
    return Usage(
        input_tokens=one.input_tokens + other.input_tokens,
        output_tokens=one.output_tokens + other.output_tokens,
    )


async def _gathered(conn: asyncpg.Connection, dream: DreamRow) -> Gathered | None:
    """The batch of what was said in the dream's sessions, as a pass gathers its items; None
    when nothing is read."""
    rows = await dreams.session_messages(conn, dream.session_ids, dream.person_id, MAX_MESSAGES)
    said: dict[UUID, list[str]] = {}
    for row in rows:
        said.setdefault(row["conversation_id"], []).append(row["message_text"])
    read = {c for c, texts in said.items() if conversation_is_read(ConversationSource(texts))}
    rows = [row for row in rows if row["conversation_id"] in read]
    if not rows:
        return None
    workspace = await dreamer_pass.workspace_facts(conn)
    owner = ("member", dream.person_id) if dream.person_id else ("workspace", None)
    today = clock.utc_day(clock.now())
    return await gather(conn, dream.workspace_id, workspace.name, owner, rows, today)


def _batch(batch: Batch, dream: DreamRow) -> Batch:
    """What the reader gets: no memory page of the workspace, the dream's instructions as
    its mission."""
    return batch.model_copy(update={"pages": (), "lines": (), "mission": dream.instructions or ""})


def _context(gathered: Gathered, output: StoreRow) -> PassContext:
    """The pass's context for a store: no page of the workspace (every learning a new line of
    the store); what was said shared with whoever reads the store, but nothing sensitive of a
    private conversation in a store that is not private; every member speaking may shape what
    it is about (the store's rights hold)."""
    context = gathered.context
    private = output.visibility != "private"
    agents = frozenset(about for kind, about in gathered.names if kind == "agent" and about)
    may = Permissions(records=context.carries_pages, agents=agents, workspace=True)
    return PassContext(
        workspace_id=context.workspace_id,
        items={
            key: replace(item, private=item.private and private)
            for key, item in context.items.items()
        },
        permissions=dict.fromkeys(context.permissions, may),
        pages={},
        carries_pages=context.carries_pages,
    )


def learned_path(key: PageKey, gathered: Gathered) -> str:
    """Where a page's learnings go in the store (as the workspace's store shows pages)."""
    kind, about = key
    if kind == "workspace":
        return "/profiles/workspace.md"
    name = file_name(gathered.names.get(key, kind))
    if kind in _PROFILE_FOLDERS:
        return f"/profiles/{_PROFILE_FOLDERS[kind]}/{name}"
    objects = {record.id: record.object for record in gathered.batch.records}
    ws = gathered.context.workspace_id
    found = objects.get(gid("record", ws, about)) if about is not None else None
    return f"/records/{found or 'record'}/{name}"


async def _write(
    conn: asyncpg.Connection,
    dream: DreamRow,
    output: StoreRow,
    gathered: Gathered,
    decisions: Decisions,
) -> str:
    """Each page's new lines appended to its memory of the store; what was done, in a line."""
    written = refused = 0
    memories: set[str] = set()
    for key, lines in decisions.pages.items():
        path = learned_path(key, gathered)
        texts = _texts(lines, dream.workspace_id)
        if await _append(conn, dream, output, path, texts):
            written += len(texts)
            memories.add(path)
        else:
            refused += len(texts)
    note = f"learnings written {written} to {len(memories)} memory(ies)"
    return note + (f", {refused} over a memory's size not written" if refused else "")


def _texts(lines: Sequence[LineRow], workspace_id: UUID) -> list[str]:
    return [
        line_text(line, workspace_id, stored_form=True) for line in lines if line.kind == "souvenir"
    ]


async def _append(
    conn: asyncpg.Connection, dream: DreamRow, output: StoreRow, path: str, texts: list[str]
) -> bool:
    """``texts`` appended to the memory at ``path`` (created when there is none); False when
    the memory would be too large (nothing written)."""
    now = clock.now()
    memory_id = await memory_stores.memory_id_at(conn, output.id, path)
    if memory_id is not None:
        await dreams.lock_memories(conn, output.id, [memory_id])
    current = await memory_stores.memory_by_id(conn, output.id, memory_id) if memory_id else None
    before = (current.content or "") if current is not None else ""
    content = "\n".join([before.rstrip("\n"), *texts] if before.strip() else texts)
    if content_problems(content):
        return False
    size = len(content.encode())
    if current is None:
        row = MemoryRow(uuid4(), output.id, path, content, sha256(content), size, uuid4(), now, now)
        if not await memory_stores.insert_memory(conn, row):
            return False
        await memory_stores.insert_version(conn, row.version_id, row, "created", dream.actor, now)
        return True
    row = replace(current, content=content, content_sha256=sha256(content),
                  content_size_bytes=size, version_id=uuid4(), updated_at=now)  # fmt: skip
    await memory_stores.insert_version(conn, row.version_id, row, "modified", dream.actor, now)
    await memory_stores.update_memory(conn, row)
    return True
