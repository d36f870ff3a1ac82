"""A page's history (DESIGN §5): its versions as a reader sees them, a rollback to an earlier
one, the redaction of one, and taking a page out of the trash."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from db import memory
from db.memory import LineRow, PageRow, VersionRow
from resolvers.common import clock
from resolvers.common.errors import Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.access import editing, load
from resolvers.memory.edits import person_write
from resolvers.memory.reading import Page
from resolvers.memory.writing import cap_change_problems, length_problems

MISSING_VERSION = "memory version"


async def versions(
    conn: asyncpg.Connection,
    principal: Principal,
    page_id: UUID,
    first: int,
    before: int | None = None,
) -> list[VersionRow]:
    """A page's versions, newest first, their lines as the caller sees them."""
    await load(conn, principal, page_id, trashed=True)
    return await memory.versions_of_page(
        conn, page_id, before, first, principal.readable_objects, principal.person_id
    )


async def version(conn: asyncpg.Connection, principal: Principal, version_id: UUID) -> VersionRow:
    """One version of a page the caller may read, its lines as the caller sees them; a version
    of a page they may not read is answered like a missing version."""
    found = await memory.version_by_id(conn, version_id)
    if found is None:
        raise not_found(MISSING_VERSION)
    await load(conn, principal, found.page_id, trashed=True, missing=MISSING_VERSION)
    rows = await versions(conn, principal, found.page_id, 1, found.number + 1)
    return rows[0]


async def _locked_version(conn: asyncpg.Connection, version_id: UUID) -> VersionRow:
    """A version read again under its page's lock: a redaction may have committed meanwhile."""
    again = await memory.version_by_id(conn, version_id)
    assert again is not None  # versions are never deleted
    return again


async def _page_id_of(conn: asyncpg.Connection, version_id: UUID) -> UUID | None:
    found = await memory.version_by_id(conn, version_id)
    return found.page_id if found else None


async def rollback(conn: asyncpg.Connection, principal: Principal, version_id: UUID) -> Page:
    """Write an earlier version's content back, as a new version."""
    page_id = await _page_id_of(conn, version_id)
    async with editing(conn, principal, page_id, trashed=True, missing=MISSING_VERSION) as row:
        version = await _locked_version(conn, version_id)
        if row.trashed_at is not None:
            raise invalid([Problem("the page is in the trash: restore it first", "versionId")])
        if version.lines is None:
            raise invalid([Problem("this version was redacted: it has no content", "versionId")])
        return await _write_back(
            conn, principal, row, version.lines, "versionId", rolled_back_from=version.number
        )


async def redact(conn: asyncpg.Connection, principal: Principal, version_id: UUID) -> VersionRow:
    """Scrub a version's content, keeping who made it and when."""
    page_id = await _page_id_of(conn, version_id)
    # Under the page's lock: a rollback or restore of this version waits, then reads it redacted.
    async with editing(conn, principal, page_id, trashed=True, missing=MISSING_VERSION):
        await memory.redact_version(conn, version_id, clock.now(), principal.row.actor_name)
        return await _locked_version(conn, version_id)


async def restore_page(conn: asyncpg.Connection, principal: Principal, page_id: UUID) -> Page:
    """Take a trashed page out of the trash with the lines it last held."""
    async with editing(conn, principal, page_id, trashed=True) as row:
        if row.trashed_at is None:
            raise invalid([Problem("the page is not in the trash", "pageId")])
        lines = await memory.last_lines_before_trash(conn, page_id)
        if not lines:
            raise invalid([Problem("no version of this page holds content to restore", "pageId")])
        return await _write_back(conn, principal, row, lines, "pageId", operation="restored")


async def _write_back(
    conn: asyncpg.Connection,
    principal: Principal,
    row: PageRow,
    stored: list[LineRow],
    field: str,
    *,
    operation: str = "modified",
    rolled_back_from: int | None = None,
) -> Page:
    """Write earlier lines (a version's) back, with what the caller may see of their sources,
    unless a rule forbids it (every problem listed)."""
    lines = await memory.lines_shown(
        conn, [line.stored() for line in stored], principal.readable_objects, principal.person_id
    )
    if problems := _rewrite_problems(row, lines, principal.workspace_id, field):
        raise invalid(problems)
    return await person_write(conn, principal, row, lines, operation, rolled_back_from)


def _rewrite_problems(
    row: PageRow, lines: list[LineRow], workspace_id: UUID, field: str
) -> list[Problem]:
    """What forbids writing earlier lines back (a rollback, a restore): a page on a satellite
    only loses lines, the caps, and the 4,000 characters as stored."""
    problems = []
    if row.about_kind == "record" and not row.carries_pages:
        current = {line.key for line in row.lines}
        if any(line.key not in current for line in lines if line.kind == "souvenir"):
            problems.append(
                Problem(
                    "this page's record carries no memory page any more: its lines can only be"
                    " deleted",
                    field,
                )
            )
    problems.extend(cap_change_problems(row, lines))
    problems.extend(length_problems(lines, workspace_id, field))
    return problems
