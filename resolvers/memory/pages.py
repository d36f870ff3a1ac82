"""Reading memory pages (DESIGN §5): one page by id, the page about a record, an actor or the
workspace, and the profile of the person a request acts for."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from db import memory
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import Principal
from resolvers.memory.access import load, view
from resolvers.memory.reading import Page


async def page(conn: asyncpg.Connection, principal: Principal, page_id: UUID) -> Page:
    """A live page the caller may read; NOT_FOUND otherwise."""
    return view(principal, await load(conn, principal, page_id))


async def page_about(
    conn: asyncpg.Connection, principal: Principal, about_kind: str, about_id: UUID | None
) -> Page | None:
    """The live page about a record, member, agent, routine or the workspace, if the caller may
    read it (None when there is none or they may not)."""
    page_id = await memory.live_page_id(conn, about_kind, about_id)
    if page_id is None:
        return None
    try:
        return await page(conn, principal, page_id)
    except DomainError:
        return None


async def my_memories(conn: asyncpg.Connection, principal: Principal) -> Page | None:
    """The profile of the person the request acts for, with its record references."""
    if principal.person_id is None:
        raise DomainError(Code.FORBIDDEN, "An API key acts for no person and has no profile.")
    return await page_about(conn, principal, "member", principal.person_id)
