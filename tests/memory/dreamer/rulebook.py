"""Helpers of the tests of the Dreamer's rules through the pass (test_pass_rules_*): records
linked as a CRM links them, readers answering crafted learnings, a pass run at a time, and
what the pass left (verdicts, lines, a page's content as stored)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import asyncpg
import httpx

from db import memory
from db.pool import begin_workspace
from resolvers.common import clock
from resolvers.memory.dreamer.passes import PassReport, PassSettings
from resolvers.memory.dreamer.reader import (
    About,
    Batch,
    Candidate,
    Item,
    ItemLearnings,
    ReaderAnswer,
    Usage,
)
from resolvers.memory.reading import content_of
from resolvers.records.workspaces import create_object, grant_standard_roles
from tests.factories import Workspace, data, gql, load_records
from tests.memory.dreamer.dreaming import FixedReader, dream, items_of

# A Tuesday; its pass runs a few minutes later (a remember-request's quick wait).
T0 = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)
SOON = timedelta(minutes=6)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)

# What a crafted reader teaches from one item, seeing the whole batch (its lines' keys).
Learn = Callable[[Item, Batch], Sequence[Candidate]]


def mention(label: str, gid: str) -> str:
    """A record mentioned in a message, as the intake reads it."""
    return f"@[{label}](record:{gid})"


async def record(
    pool: asyncpg.Pool, ws: Workspace, obj: str, label: str, by: str = "admin", **links: str
) -> str:
    """A workspace record of ``obj`` made by ``by``, pointing through its single relations to
    ``links`` (attribute: global id); its global id."""
    line: dict[str, Any] = {"object": obj, "label": label}
    if links:
        line["relations"] = {attribute: {"id": gid} for attribute, gid in links.items()}
    [made] = await load_records(pool, ws.tokens[by], [line])
    return made


def on(gid: str) -> About:
    """About a record."""
    return About(kind="record", id=gid)


def learning(
    item: Item, text: str, type: str = "relation", about: About | None = None, **more: Any
) -> Candidate:
    """A candidate stated by the item's speaker unless ``stated_by`` says otherwise."""
    more.setdefault("stated_by", item.speaker)
    return Candidate(text=text, type=type, about=about or About(kind="nothing"), **more)


def reading(learn: Learn, usage: Usage | None = None) -> FixedReader:
    """A reader whose learnings of each item are ``learn(item, batch)``."""

    def make(batch: Batch) -> ReaderAnswer:
        found = tuple(
            ItemLearnings(item_id=item.id, candidates=tuple(learn(item, batch)))
            for item in batch.items
        )
        return ReaderAnswer(learnings=found, usage=Usage())

    return FixedReader(make=make, usage=usage)


def teaching(
    text: str, type: str = "relation", about: About | None = None, **more: Any
) -> FixedReader:
    """A reader that learns the same one thing from every item."""
    return reading(lambda item, _batch: [learning(item, text, type, about, **more)])


def by_text(learned: dict[str, Callable[[Item, Batch], Candidate]]) -> FixedReader:
    """A reader that learns from an item what ``learned`` gives for a key its text (or its
    context: a run's mission) holds (nothing when none)."""

    def learn(item: Item, batch: Batch) -> list[Candidate]:
        said = f"{item.context}\n{item.text}"
        return [make(item, batch) for key, make in learned.items() if key in said]

    return reading(learn)


def key_of(batch: Batch, text: str) -> str:
    """The key of the line of the batch that says ``text``."""
    [key] = [line.key for line in batch.lines if line.text == text]
    return key


async def dream_at(
    pool: asyncpg.Pool,
    ws: Workspace,
    at: datetime,
    reader: FixedReader | None = None,
    settings: PassSettings | None = None,
) -> list[PassReport]:
    """Every pass of the workspace due at ``at`` (the clock stood there), with ``reader``
    (the rules reader by default) or ``settings``."""
    clock.set_clock(lambda: at)
    if settings is None:
        settings = PassSettings(reader=reader) if reader is not None else PassSettings()
    return await dream(pool, ws, at, settings)


async def verdicts(pool: asyncpg.Pool, ws: Workspace, item: UUID | None) -> list[tuple[str, Any]]:
    """An item's verdicts as (verdict, reason), in order."""
    assert item is not None
    [row] = await items_of(pool, ws, [item])
    return [(v["verdict"], v["reason"]) for v in row["verdicts"]]


async def texts(
    pool: asyncpg.Pool, ws: Workspace, about_kind: str, about: UUID | None
) -> list[str]:
    """The texts of the souvenirs of the live page about something, in order."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        page = await memory.live_page_id(conn, about_kind, about)
        if page is None:
            return []
        row = await memory.page_shown(conn, page, [], None, stored_form=True)
    assert row is not None
    return [line.text for line in row.lines if line.kind == "souvenir"]


async def content(pool: asyncpg.Pool, ws: Workspace, about_kind: str, about: UUID | None) -> str:
    """The content of the live page about something, rendered as stored ("" when none)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        page = await memory.live_page_id(conn, about_kind, about)
        if page is None:
            return ""
        row = await memory.page_shown(conn, page, [], None, stored_form=True)
    assert row is not None
    return content_of(row.lines, ws.id, stored_form=True)


def souvenir(
    text: str,
    author: str,
    day: datetime,
    type: str = "relation",
    source: str | None = None,
    *,
    human: bool = False,
) -> str:
    """A souvenir line as a page holds it (as stored: ``source`` as ``kind:<global id>``)."""
    arrow = f" → {source}" if source else ""
    line = f"- {text}{arrow} — {author}, {day.date().isoformat()} [{type}]"
    if type == "contexte":
        line += f" (revoir {review_of(day)})"
    return line + (" ✍" if human else "")


def review_of(day: datetime) -> str:
    """A contexte's review date, six months after its day."""
    month = day.month + 6
    year = day.year + (month - 1) // 12
    return day.date().replace(year=year, month=(month - 1) % 12 + 1).isoformat()


async def calls_object(pool: asyncpg.Pool, ws: Workspace) -> None:
    """A ``calls`` object pointing to a company, a contact and a deal, that nothing points to:
    a satellite, like notes and tasks; the standard roles' rights on it."""
    attributes: list[tuple[str, str, str, str | None, int | None]] = [
        ("company", "Company", "relation", "companies", None),
        ("contact", "Contact", "relation", "contacts", None),
        ("deal", "Deal", "relation", "deals", None),
    ]
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        calls = await create_object(conn, "calls", "Call", "Calls", attributes)
        await grant_standard_roles(conn, ws.roles, calls)


EDIT = """mutation($id: ID!, $content: String!) {
  editMemoryPage(pageId: $id, content: $content) { content } }"""


async def by_hand(
    client: httpx.AsyncClient, ws: Workspace, who: str, page: str, content: str
) -> str:
    """``who`` writes a page's content in their own session (a line they write is theirs,
    ✍, of the clock's day); the content as stored."""
    found = data(await gql(client, ws.tokens[who], EDIT, {"id": page, "content": content}))
    written: str = found["editMemoryPage"]["content"]
    return written
