"""What the Dreamer did, made visible (issue 10, item 8): the items it read, keeps waiting or
did not read, with the verdict and reason of each learning, the page and line written, the
payer and the cost; and each payer's spend a month. A person sees their own items, an admin
(the settings update right) the workspace's; nobody sees a source they cannot open: then
only its kind, its day and the verdicts show, never its text, page or line."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import date, datetime
from uuid import UUID

import asyncpg

from db import dreamer_items
from db.dreamer_items import ItemRow, SpendRow
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.pages import check_page_size
from resolvers.common.principals import Principal

ITEM_STATUSES = ("waiting", "read", "not_read")


@dataclass(frozen=True, slots=True)
class ItemsPage:
    items: list[ItemRow]
    end_cursor: str | None


def cursor_of(row: ItemRow) -> str:
    """An opaque cursor after ``row``."""
    raw = f"{row.arrived_at.isoformat()}|{row.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _after(cursor: str | None) -> tuple[datetime, UUID] | None:
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at, _, local = raw.partition("|")
        return datetime.fromisoformat(at), UUID(local)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise invalid([Problem("not a cursor of this list", "after")]) from None


async def memory_items(
    conn: asyncpg.Connection,
    principal: Principal,
    *,
    status: str | None = None,
    every: bool = False,
    first: int | None = None,
    after: str | None = None,
) -> ItemsPage:
    """The caller's own items (``every``: the workspace's, for an admin), newest first."""
    problems = []
    if status is not None and status not in ITEM_STATUSES:
        problems.append(Problem(f"one of {', '.join(ITEM_STATUSES)}", "status"))
    size = check_page_size(first)
    if problems:
        raise invalid(problems)
    if every and not principal.row.can_update_settings:
        raise DomainError(Code.FORBIDDEN, "Only an admin sees the workspace's memory items.")
    if not every and principal.person_id is None:
        raise DomainError(Code.FORBIDDEN, "The request acts for no member.")
    rows = await dreamer_items.items(
        conn,
        principal.person_id,
        every,
        status,
        size,
        _after(after),
        principal.readable_objects,
    )
    return ItemsPage(rows, cursor_of(rows[-1]) if len(rows) == size and rows else None)


async def memory_spend(
    conn: asyncpg.Connection, principal: Principal, month: str
) -> list[SpendRow]:
    """What each payer spent in ``month`` (YYYY-MM), for an admin."""
    if not principal.row.can_update_settings:
        raise DomainError(Code.FORBIDDEN, "Only an admin reads the workspace's memory spend.")
    try:
        first = date.fromisoformat(f"{month}-01")
    except ValueError:
        raise invalid([Problem("a month is YYYY-MM", "month")]) from None
    return await dreamer_items.spend(conn, first)
