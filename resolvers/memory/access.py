"""Who reads and who edits a page (DESIGN §5), and the one guard every person's edit passes:
their own session, the page's lock, the edit right."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from uuid import UUID

import asyncpg

from db import memory
from db.memory import PageRow
from resolvers.common.errors import Code, DomainError, not_found
from resolvers.common.principals import Principal
from resolvers.memory.reading import Page, page_content, shown_souvenirs


def may_read(principal: Principal, row: PageRow) -> bool:
    """A record page by whoever reads its record; a member's profile by that member only; an
    agent's, a routine's or the workspace's profile by every caller whose role reads memory."""
    return may_read_page(
        principal, row.memory_object_id, row.about_kind, row.subject_readable, row.member_id
    )


def may_read_page(
    principal: Principal,
    memory_object_id: UUID,
    about_kind: str,
    subject_readable: bool,
    member_id: UUID | None,
) -> bool:
    """``may_read`` from the facts it needs: the page's memory object, what it is about,
    whether the caller reads its record, and whose profile it is."""
    if not principal.may("read", memory_object_id):
        return False
    if about_kind == "record":
        return subject_readable
    if about_kind == "member":
        return principal.person_id is not None and principal.person_id == member_id
    return True


def may_edit(principal: Principal, row: PageRow) -> bool:
    """Only a person's own session edits, with the memory update right, and only a page about
    what that person may shape: a record they may update, their own profile, an agent or
    routine they own (or, with the settings right, any), the workspace with the settings
    right."""
    person = principal.person_id
    if not principal.is_own_session or person is None:
        return False
    if not principal.may("update", row.memory_object_id) or not may_read(principal, row):
        return False
    if row.about_kind == "record":
        return row.subject_object_id is not None and principal.may("update", row.subject_object_id)
    if row.about_kind == "member":
        return row.member_id == person
    if row.about_kind in ("agent", "routine"):
        return row.actor_owner_id == person or principal.row.can_update_settings
    return principal.row.can_update_settings


def why_not_editable(principal: Principal) -> DomainError:
    """The refusal for a caller who may not edit a page."""
    if not principal.is_own_session:
        return DomainError(
            Code.FORBIDDEN,
            "Only a person's own session edits memory; agents, API keys and MCP clients"
            " propose with proposeMemory.",
        )
    return DomainError(Code.FORBIDDEN, "You may not edit this page.")


def view(principal: Principal, row: PageRow) -> Page:
    """The page as the caller sees it (each souvenir rendered once)."""
    souvenirs = shown_souvenirs(row.lines, principal.workspace_id)
    content = page_content(row.lines, souvenirs)
    return Page(row=row, content=content, souvenirs=souvenirs, can_edit=may_edit(principal, row))


async def load(
    conn: asyncpg.Connection,
    principal: Principal,
    page_id: UUID,
    *,
    for_update: bool = False,
    trashed: bool = False,
    missing: str = "memory page",
) -> PageRow:
    """A page the caller may read (a trashed one only when ``trashed`` and they may edit it);
    NOT_FOUND (of ``missing``) otherwise."""
    row = await memory.page_shown(
        conn,
        page_id,
        principal.readable_objects,
        principal.person_id,
        for_update=for_update,
    )
    if row is None or not may_read(principal, row):
        raise not_found(missing)
    if row.trashed_at is not None and not (trashed and may_edit(principal, row)):
        raise not_found(missing)
    return row


@asynccontextmanager
async def editing(
    conn: asyncpg.Connection,
    principal: Principal,
    page_id: UUID | None,
    *,
    trashed: bool = False,
    missing: str = "memory page",
) -> AsyncIterator[PageRow]:
    """The page a person edits, in a transaction holding its lock: FORBIDDEN unless it is
    their own session and they may edit it, NOT_FOUND (of ``missing``; ``page_id`` None: there
    is no such page) when they may not read it."""
    if not principal.is_own_session:
        raise why_not_editable(principal)
    # A savepoint: a refused edit leaves nothing behind though the request's transaction commits.
    async with conn.transaction():
        if page_id is None:
            raise not_found(missing)
        row = await load(
            conn, principal, page_id, for_update=True, trashed=trashed, missing=missing
        )
        if not may_edit(principal, row):
            raise why_not_editable(principal)
        yield row
