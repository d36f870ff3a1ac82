"""A person's edits of a page (DESIGN §5): a rewrite of its content (lines kept word for word
keep their keys, new ones become ✍ lines by the person, of today, without source) and the
deletion of one souvenir, by page or through its record."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from uuid import UUID

import asyncpg

from db import records
from db.memory import LineRow, PageRow
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.access import editing, load, view
from resolvers.memory.content import PAGE_CONTENT_MAX_CHARS, PageLine, parse_content
from resolvers.memory.reading import (
    Page,
    check_precondition,
    content_of,
    plain_name,
    sha256_problems,
)
from resolvers.memory.writing import (
    actor_of,
    cap_change_problems,
    length_problems,
    new_key,
    rebuild,
    store,
)

_OBJECT_SLUG = re.compile(r"[a-z][a-z0-9_]{0,62}")
NOT_VALID = "The content is not valid: nothing was changed."


async def person_write(
    conn: asyncpg.Connection,
    principal: Principal,
    row: PageRow,
    lines: list[LineRow],
    operation: str = "modified",
    rolled_back_from: int | None = None,
) -> Page:
    """Store a person's new lines of a page and show them the page."""
    written = await store(
        conn,
        principal.workspace_id,
        row,
        lines,
        actor_of(principal),
        operation,
        rolled_back_from=rolled_back_from,
    )
    return view(principal, written)


async def edit_page(
    conn: asyncpg.Connection,
    principal: Principal,
    page_id: UUID,
    content: str,
    base_sha256: str | None = None,
) -> Page:
    """A person rewrites a page's content. Lines kept word for word keep their keys; new or
    reworded lines become ✍ lines by the person, of today, without source. With
    ``base_sha256``, the content must still be the one it names."""
    if problems := sha256_problems(base_sha256, "baseSha256"):
        raise invalid(problems)
    async with editing(conn, principal, page_id) as row:
        shown = view(principal, row)
        check_precondition(
            base_sha256,
            shown.content_sha256,
            "The page changed since the content this edit is based on: read it again.",
        )
        lines = await _person_lines(conn, principal, row, shown, content)
        return await person_write(conn, principal, row, lines)


async def _person_lines(
    conn: asyncpg.Connection, principal: Principal, row: PageRow, shown: Page, content: str
) -> list[LineRow]:
    """The lines a person's content stands for, or a validation error listing every problem."""
    parsed, problems = parse_content(content, mission=row.about_kind == "workspace", by_person=True)
    if problems:
        raise invalid(problems, NOT_VALID)
    today = clock.now().date()
    author = plain_name(principal.row.member_name or principal.row.actor_name)
    submitted = [p for p in parsed if p.kind == "souvenir"]
    references = await _readable_references(conn, principal, submitted)

    def new_line(item: PageLine) -> tuple[LineRow | None, list[str]]:
        line, why = _new_person_line(row, item, references, author, today)
        return line, [why] if why else []

    shown_lines = [(s.key, s.line) for s in shown.souvenirs]
    lines, problems = rebuild(row, parsed, shown_lines, new_line)
    if problems:
        raise invalid(problems, NOT_VALID)
    length = len(content_of(lines, principal.workspace_id))
    if length > PAGE_CONTENT_MAX_CHARS:
        problems.append(
            Problem(
                f"with authors and days filled in the page would hold {length} characters,"
                f" more than {PAGE_CONTENT_MAX_CHARS}",
                "content",
            )
        )
    else:
        problems.extend(length_problems(lines, principal.workspace_id, "content"))
    problems.extend(cap_change_problems(row, lines))
    if problems:
        raise invalid(problems, NOT_VALID)
    return lines


def _new_person_line(
    row: PageRow,
    item: PageLine,
    references: dict[str, tuple[UUID, str]],
    author: str,
    today: date,
) -> tuple[LineRow | None, str | None]:
    """A new ✍ line of the person's, or why it cannot be written."""
    if row.about_kind == "record" and not row.carries_pages:
        return None, (
            "this page's record carries no memory page any more (a satellite or a document):"
            " its lines can only be deleted"
        )
    souvenir = item.souvenir
    assert souvenir is not None
    if souvenir.until is not None and souvenir.until < today:
        return None, f"its end date (jusqu'au {souvenir.until}) is before today ({today})"
    about_id, about_label = None, None
    if souvenir.about is not None:
        if row.about_kind != "member":
            return None, "only a member's own profile holds references to records"
        found = references.get(souvenir.about.target)
        if found is None:
            return None, "the reference names no record you can read"
        about_id, about_label = found
    line = LineRow(
        kind="souvenir",
        text=souvenir.text,
        key=new_key(),
        type=souvenir.type,
        author=author,
        day=today,
        until=souvenir.until,
        human=True,
        about_id=about_id,
        about_label=about_label,
        about_open=about_id is not None,
    )
    return line, None


async def _readable_references(
    conn: asyncpg.Connection, principal: Principal, submitted: Sequence[PageLine]
) -> dict[str, tuple[UUID, str]]:
    """The record references the submitted lines make that name a record the caller reads."""
    wanted: dict[str, UUID] = {}
    for item in submitted:
        if item.souvenir is not None and item.souvenir.about is not None:
            target = item.souvenir.about.target
            try:
                wanted[target] = ids.decode(
                    target.removeprefix("record:"), "Record", principal.workspace_id
                )
            except DomainError:
                continue
    if not wanted:
        return {}
    labels = await records.readable_records(
        conn, list(wanted.values()), principal.readable_objects, principal.person_id
    )
    return {t: (i, labels[i]) for t, i in wanted.items() if i in labels}


async def delete_souvenir(
    conn: asyncpg.Connection, principal: Principal, page_id: UUID, key: str
) -> Page:
    """A person deletes one souvenir (✍ or not) by its page and key."""
    async with editing(conn, principal, page_id) as row:
        kept = [line for line in row.lines if line.key != key]
        if len(kept) == len(row.lines):
            raise DomainError(Code.NOT_FOUND, "No souvenir with this key on this page.")
        return await person_write(conn, principal, row, kept)


async def delete_record_souvenir(
    conn: asyncpg.Connection,
    principal: Principal,
    object_slug: str,
    record_id: UUID,
    page_id: UUID,
    key: str,
) -> Page:
    """A person deletes one souvenir of a record's page, named through the record: the page
    must be the one about that record of that object (NOT_FOUND otherwise)."""
    if not _OBJECT_SLUG.fullmatch(object_slug):
        raise not_found("object")
    object_id = await records.object_id(conn, object_slug)
    current = await load(conn, principal, page_id)
    if current.subject_id != record_id or current.subject_object_id != object_id:
        raise not_found("memory page of this record")
    return await delete_souvenir(conn, principal, page_id, key)
