"""What every write of a page shares, a person's or the workspace's: rebuilding its lines from a
content (kept lines keep their keys), the caps and the 4,000 characters as stored, and storing
the lines with a new version (an emptied page goes to the trash)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from db import memory
from db.memory import Actor, LineRow, NewVersion, PageRow
from resolvers.common import clock
from resolvers.common.errors import Problem, invalid
from resolvers.common.principals import Principal
from resolvers.memory.caps import PageKind, cap_problems, counted
from resolvers.memory.content import PAGE_CONTENT_MAX_CHARS, PageLine, kept_keys
from resolvers.memory.reading import content_of

# What a new line becomes, or why it cannot be written.
NewLine = Callable[[PageLine], tuple[LineRow | None, list[str]]]


def actor_of(principal: Principal) -> Actor:
    """Who a change or a proposal by the caller is recorded as made by: the person, agent, API
    key or MCP client, and the session it came from."""
    return Actor(
        principal.kind, principal.row.actor_id, principal.row.actor_name, principal.row.token_id
    )


def new_key() -> str:
    """A fresh opaque souvenir key."""
    return "s" + secrets.token_urlsafe(9)


def page_kind(row: PageRow) -> PageKind:
    """Which caps hold for a page: a record page's or a profile's."""
    return "record" if row.about_kind == "record" else "profile"


def _counts(lines: Sequence[LineRow]) -> dict[object, int]:
    return counted((line.human, line.about_id) for line in lines if line.kind == "souvenir")


def cap_change_problems(row: PageRow, lines: Sequence[LineRow]) -> list[Problem]:
    """A problem for every cap the page's new lines pass (past a cap, only fewer)."""
    return cap_problems(page_kind(row), _counts(row.lines), _counts(lines))


def rebuild(
    row: PageRow, parsed: list[PageLine], shown: list[tuple[str, str]], new_line: NewLine
) -> tuple[list[LineRow], list[Problem]]:
    """The lines a content stands for: a souvenir repeating a shown line word for word is that
    stored line (its key kept); any other souvenir goes through ``new_line`` (the new line, or
    why not); other lines are kept as written."""
    by_key = {line.key: line for line in row.lines if line.key is not None}
    submitted = [p.text for p in parsed if p.kind == "souvenir"]
    keys = iter(kept_keys(shown, submitted))
    lines: list[LineRow] = []
    problems: list[Problem] = []
    for number, item in enumerate(parsed, start=1):
        if item.kind != "souvenir":
            lines.append(LineRow(kind=item.kind, text=item.text))
            continue
        key = next(keys)
        if key is not None:
            lines.append(by_key[key])
            continue
        line, reasons = new_line(item)
        problems.extend(Problem(why, "content", number) for why in reasons)
        if line is not None:
            lines.append(line)
    return lines, problems


def length_problems(lines: Sequence[LineRow], workspace_id: UUID, field: str) -> list[Problem]:
    """The 4,000 characters hold for the page as stored (a closed source is shorter to the eye
    than the id it stands for)."""
    length = len(content_of(lines, workspace_id, stored_form=True))
    if length <= PAGE_CONTENT_MAX_CHARS:
        return []
    return [
        Problem(
            f"as stored (sources as ids) the page would hold {length} characters, more than"
            f" {PAGE_CONTENT_MAX_CHARS}",
            field,
        )
    ]


async def store(
    conn: asyncpg.Connection,
    workspace_id: UUID,
    row: PageRow,
    lines: list[LineRow],
    actor: Actor,
    operation: str,
    *,
    rolled_back_from: int | None = None,
) -> PageRow:
    """Store a page's new lines and a version of them; an emptied page goes to the trash.
    A plain edit that changes nothing writes nothing."""
    unchanged = [line.stored() for line in lines] == [line.stored() for line in row.lines]
    if unchanged and operation == "modified" and rolled_back_from is None:
        return row
    emptied = not any(line.kind != "blank" for line in lines)
    if emptied:
        lines, operation = [], "deleted"
    now = clock.now()
    await memory.replace_lines(conn, row.id, lines)
    version = next_version(
        workspace_id,
        row.id,
        lines,
        actor,
        operation,
        now,
        trashed=emptied,
        rolled_back_from=rolled_back_from,
    )
    try:
        number = await memory.add_version(conn, version)
    except asyncpg.UniqueViolationError:
        raise invalid(
            [Problem("a live page about the same record or actor exists already", "pageId")],
            "This page cannot leave the trash while another page holds its place.",
        ) from None
    return replace(
        row, version=number, updated_at=now, trashed_at=now if emptied else None, lines=lines
    )


def next_version(
    workspace_id: UUID,
    page_id: UUID,
    lines: Sequence[LineRow],
    actor: Actor,
    operation: str,
    at: datetime,
    *,
    trashed: bool = False,
    rolled_back_from: int | None = None,
) -> NewVersion:
    """A page's next version holding ``lines``, with the stored content its hash is taken of
    (``trashed``: it leaves the page in the trash)."""
    return NewVersion(
        page_id=page_id,
        version_id=uuid4(),
        operation=operation,
        actor=actor,
        lines=lines,
        content=content_of(lines, workspace_id, stored_form=True),
        trashed=trashed,
        at=at,
        rolled_back_from=rolled_back_from,
    )
