"""Gathering one pass's batch (issue 10, item 5) and what code decides from (``context``): the
items with their sources, the records they are linked to and those they point to, the
members, agents and routines involved, and the pages the pass may touch as stored."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from uuid import UUID

import asyncpg

from db import dreamer_pass, memory
from db.dreamer_pass import ActorFacts, MemberFacts, RecordFacts
from db.memory import PageRow
from resolvers.common import ids
from resolvers.memory.content import mission_section
from resolvers.memory.dreamer.context import (
    ItemContext,
    MailLine,
    PageKey,
    PassContext,
    Permissions,
)
from resolvers.memory.dreamer.items import Source, source_of
from resolvers.memory.dreamer.reader import (
    Batch,
    Item,
    LinkedRecord,
    PageInfo,
    PageLine,
    PageOwner,
    ReaderAnswer,
    RecordValue,
    Voice,
)
from resolvers.memory.dreamer.routing import local_id
from resolvers.memory.reading import content_of

# How far the records a linked record points to are followed (a note → its deal → its
# contact → its company).
LINK_DEPTH = 3
PRINCIPAL_VALUES = 8
VALUE_MAX_CHARS = 120
_ID_TYPES = {"member": "Member", "agent": "Agent", "routine": "Routine", "record": "Record"}
_OWNER_KINDS = {"member": "person", "agent": "agent", "routine": "routine"}
_ACTOR_ABOUT = {"agent": "Agent", "routine": "Routine"}


@dataclass
class Facts:
    """What the pass knows of the workspace's members, actors and records."""

    workspace_id: UUID
    workspace_name: str
    members: dict[UUID, MemberFacts] = field(default_factory=dict)
    actors: dict[UUID, ActorFacts] = field(default_factory=dict)
    records: dict[UUID, RecordFacts] = field(default_factory=dict)
    member_names: set[str] = field(default_factory=set)
    # The members whose profiles the pass may touch (its sources' people and speakers, its
    # owner): never an agent's owner, whose private profile is none of this pass's business.
    profiles: set[UUID] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Gathered:
    """A pass's batch, its context, and the items' local ids by their batch ids."""

    batch: Batch
    context: PassContext
    item_ids: dict[str, UUID]
    names: dict[PageKey, str]
    sources: dict[str, Source]


def gid(kind: str, workspace_id: UUID, local: UUID) -> str:
    return ids.encode(_ID_TYPES[kind], workspace_id, local)


async def gather(
    conn: asyncpg.Connection,
    workspace_id: UUID,
    workspace_name: str,
    owner: tuple[str, UUID | None],
    rows: Sequence[asyncpg.Record],
    today: date,
    *,
    lock_pages: bool = False,
    named: Collection[tuple[str, UUID]] = (),
) -> Gathered:
    """The batch of ``rows`` (an owner's waiting items) and its context; ``named``: agents
    and routines a reader's answer is about, loaded with the items' own (their profiles, and
    who may shape them)."""
    facts = Facts(workspace_id, workspace_name)
    sources = [source_of(dict(row), workspace_id) for row in rows]
    await _load_people(conn, facts, sources, owner, named)
    linked = await _load_records(conn, facts, sources)
    pages = await _load_pages(conn, facts, lock_pages)
    item_ids = {ids.encode("MemoryItem", workspace_id, row["id"]): row["id"] for row in rows}
    items = tuple(
        _item(facts, row, source, linked[i])
        for i, (row, source) in enumerate(zip(rows, sources, strict=True))
    )
    batch = Batch(
        owner=_owner(facts, owner),
        items=items,
        records=tuple(_linked(facts, r) for r in facts.records.values() if r.readable),
        pages=tuple(_page_info(facts, page) for page in pages.values()),
        lines=tuple(_lines(facts, pages.values())),
        mission=_mission(facts, pages),
        today=today,
    )
    context = PassContext(
        workspace_id=workspace_id,
        items={
            item.id: _item_context(item.id, row, src)
            for item, row, src in zip(items, rows, sources, strict=True)
        },
        permissions=await _permissions(conn, facts),
        pages=pages,
        carries_pages=frozenset(r.id for r in facts.records.values() if r.carries),
    )
    names = _names(facts)
    return Gathered(batch, context, item_ids, names, dict(zip(item_ids, sources, strict=True)))


async def _load_people(
    conn: asyncpg.Connection,
    facts: Facts,
    sources: Sequence[Source],
    owner: tuple[str, UUID | None],
    named: Collection[tuple[str, UUID]],
) -> None:
    named_members = {local for kind, local in named if kind == "member"}
    named_actor_ids = {local for kind, local in named if kind != "member"}
    actor_ids = {s.agent for s in sources} | {s.routine for s in sources} | named_actor_ids
    actor_ids |= {s.speaker.id for s in sources if s.speaker.kind in ("agent", "routine")}
    if owner[0] in ("agent", "routine"):
        actor_ids.add(owner[1])
    found = await dreamer_pass.actors(conn, [a for a in actor_ids if a is not None])
    facts.actors = {actor.id: actor for actor in found}
    profiles = {s.person for s in sources} | named_members
    profiles |= {s.speaker.id for s in sources if s.speaker.kind == "member"}
    if owner[0] == "member":
        profiles.add(owner[1])
    facts.profiles = {m for m in profiles if m is not None}
    member_ids = facts.profiles | {actor.owner_member_id for actor in found}
    people = await dreamer_pass.members(conn, list(member_ids))
    facts.members = {member.id: member for member in people}
    facts.member_names = await dreamer_pass.member_names(conn)


async def _load_records(
    conn: asyncpg.Connection, facts: Facts, sources: Sequence[Source]
) -> list[tuple[UUID, ...]]:
    """Each source's linked records its person may read; the records they point to (for
    routing) are loaded into ``facts.records`` too."""
    by_person: dict[UUID | None, set[UUID]] = {}
    for source in sources:
        by_person.setdefault(source.person, set()).update(source.records)
    readable: dict[UUID | None, set[UUID]] = {}
    for person, wanted in by_person.items():
        member = facts.members.get(person) if person else None
        objects = member.readable if member else []
        seen: set[UUID] = set()
        for _ in range(LINK_DEPTH + 1):
            wanted -= seen
            if not wanted:
                break
            found = await dreamer_pass.records(conn, list(wanted), objects, person)
            seen |= wanted
            for record in found:
                if record.readable:
                    facts.records.setdefault(record.id, record)
                    readable.setdefault(person, set()).add(record.id)
            wanted = {t for record in found if record.readable for t in record.points_to}
    return [
        tuple(r for r in source.records if r in readable.get(source.person, set()))
        for source in sources
    ]


async def _load_pages(conn: asyncpg.Connection, facts: Facts, lock: bool) -> dict[PageKey, PageRow]:
    about = [*facts.profiles, *facts.actors, *facts.records]
    pages: dict[PageKey, PageRow] = {}
    for page_id, kind, about_id in sorted(await dreamer_pass.live_pages(conn, about)):
        row = await memory.page_shown(conn, page_id, [], None, stored_form=True, for_update=lock)
        if row is not None:
            pages[(kind, about_id)] = row
    return pages


async def _permissions(conn: asyncpg.Connection, facts: Facts) -> dict[UUID, Permissions]:
    record_ids = list(facts.records)
    found = {}
    for member in facts.members.values():
        records = await dreamer_pass.updatable(conn, member, record_ids) if record_ids else set()
        agents = {
            a.id
            for a in facts.actors.values()
            if a.kind == "agent" and (a.owner_member_id == member.id or member.can_update_settings)
        }
        found[member.id] = Permissions(
            frozenset(records), frozenset(agents), member.can_update_settings
        )
    return found


def named_actors(answer: ReaderAnswer, workspace_id: UUID) -> set[tuple[str, UUID]]:
    """The agents and routines ``answer``'s learnings are about, and the members it says
    stated them (a meeting's speakers), by kind and local id: the write step loads their
    pages (never sent to a reader)."""
    found: set[tuple[str, UUID]] = set()
    for learnings in answer.learnings:
        for candidate in learnings.candidates:
            about = candidate.about
            if about.kind in _ACTOR_ABOUT:
                local = local_id(about.id, _ACTOR_ABOUT[about.kind], workspace_id)
                if local is not None:
                    found.add((about.kind, local))
            said = candidate.stated_by
            if said is not None and said.kind == "person":
                member = local_id(said.id, "Member", workspace_id)
                if member is not None:
                    found.add(("member", member))
    return found


def _voice(facts: Facts, source: Source) -> Voice:
    speaker = source.speaker
    ws = facts.workspace_id
    if speaker.kind == "member" and speaker.id in facts.members:
        return Voice(
            kind="person", id=gid("member", ws, speaker.id), name=facts.members[speaker.id].name
        )
    if speaker.kind in ("agent", "routine") and speaker.id in facts.actors:
        actor = facts.actors[speaker.id]
        return Voice(kind="agent", id=gid(actor.kind, ws, actor.id), name=actor.name)
    if speaker.kind in ("agent", "routine"):
        return Voice(kind="agent", id=None, name=speaker.name or "an agent")
    return Voice(kind="person", id=None, name=speaker.name or "someone")


def _item(facts: Facts, row: asyncpg.Record, source: Source, linked: tuple[UUID, ...]) -> Item:
    ws = facts.workspace_id
    return Item(
        id=ids.encode("MemoryItem", ws, row["id"]),
        kind=row["kind"],
        at=row["said_at"],
        speaker=_voice(facts, source),
        text=source.text,
        context=source.context,
        record_ids=tuple(gid("record", ws, r) for r in linked),
    )


def _item_context(item_id: str, row: asyncpg.Record, source: Source) -> ItemContext:
    private_to = row["private_to"]
    mail_lines = None
    if source.writers is not None:
        speaker = source.speaker.id if source.speaker.kind == "member" else None
        mail_lines = tuple(
            MailLine(own=speaker is not None and w.member == speaker, label=w.label)
            for w in source.writers
        )
    return ItemContext(
        item_id=item_id,
        day=row["said_at"].date(),
        private=private_to is not None,
        owner_member_id=private_to or source.person,
        share_with_team=row["share_with_team"],
        source_kind=source.source_kind,
        source_id=source.source_id,
        mail_lines=mail_lines,
    )


def _linked(facts: Facts, record: RecordFacts) -> LinkedRecord:
    ws = facts.workspace_id
    return LinkedRecord(
        id=gid("record", ws, record.id),
        object=record.object,
        label=record.label,
        values=tuple(_values(record.values)),
        satellite=record.satellite,
        points_to=tuple(gid("record", ws, t) for t in record.points_to if t in facts.records),
    )


def _values(values: dict[str, Any]) -> Iterable[RecordValue]:
    for attribute, value in list(values.items())[:PRINCIPAL_VALUES]:
        if value is None or isinstance(value, dict | list):
            continue
        yield RecordValue(attribute=attribute, value=str(value)[:VALUE_MAX_CHARS])


def _owner(facts: Facts, owner: tuple[str, UUID | None]) -> PageOwner:
    kind, local = owner
    if kind == "workspace" or local is None:
        return PageOwner(kind="workspace", id=None, name=facts.workspace_name)
    name = facts.members[local].name if kind == "member" else facts.actors[local].name
    return PageOwner(kind=_OWNER_KINDS[kind], id=gid(kind, facts.workspace_id, local), name=name)  # type: ignore[arg-type]


def _page_info(facts: Facts, page: PageRow) -> PageInfo:
    ws = facts.workspace_id
    about = page.member_id or page.agent_id or page.routine_id or page.subject_id
    return PageInfo(
        id=ids.encode("MemoryPage", ws, page.id),
        kind=page.about_kind,  # type: ignore[arg-type]
        about_id=gid(page.about_kind, ws, about) if about else None,
        name=page.name,
    )


def _lines(facts: Facts, pages: Iterable[PageRow]) -> Iterable[PageLine]:
    for page in pages:
        page_gid = ids.encode("MemoryPage", facts.workspace_id, page.id)
        for line in page.lines:
            if line.kind != "souvenir" or line.key is None or line.day is None:
                continue
            yield PageLine(
                page_id=page_gid,
                key=line.key,
                day=line.day,
                type=line.type or "contexte",
                human=line.human,
                stated_by_person=line.human or line.author in facts.member_names,
                text=line.text,
            )


def _mission(facts: Facts, pages: dict[PageKey, PageRow]) -> str:
    page = pages.get(("workspace", None))
    if page is None:
        return ""
    content = content_of(page.lines, facts.workspace_id, stored_form=True)
    return mission_section(content) or ""


def _names(facts: Facts) -> dict[PageKey, str]:
    names: dict[PageKey, str] = {("workspace", None): facts.workspace_name}
    names.update({("member", m.id): m.name for m in facts.members.values()})
    names.update({(a.kind, a.id): a.name for a in facts.actors.values()})
    names.update({("record", r.id): r.label[:100] for r in facts.records.values()})
    return names
