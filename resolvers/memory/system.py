"""The workspace's own writes of memory (the Dreamer; the demo, the tests and the benchmarks
until it exists): creating a page and rewriting one in the stored form. A ✍ line is never
removed by them, the mission is never rewritten, the caps and the satellite rule hold."""

from __future__ import annotations

from uuid import UUID, uuid4

import asyncpg

from db import memory, records
from db.memory import Actor, LineRow, PageRow
from resolvers.common import clock, ids
from resolvers.common.errors import DomainError, Problem, invalid, not_found
from resolvers.memory.content import (
    MISSION_HEADING,
    PAGE_CONTENT_MAX_CHARS,
    PageLine,
    mission_section,
    parse_content,
)
from resolvers.memory.grammar import LineError
from resolvers.memory.reading import content_of, line_text
from resolvers.memory.writing import cap_change_problems, new_key, rebuild, store

SYSTEM_ACTOR = Actor("system", None, "memory")
ABOUT_KINDS = ("member", "agent", "routine", "workspace", "record")
PAGE_NAME_MAX_CHARS = 100
PAGE_DESCRIPTION_MAX_CHARS = 160
NOT_VALID = "The content is not valid: nothing was changed."


async def create_page(
    conn: asyncpg.Connection,
    workspace_id: UUID,
    about_kind: str,
    about_id: UUID | None,
    *,
    name: str,
    description: str = "",
    content: str,
    actor: Actor = SYSTEM_ACTOR,
) -> UUID:
    """Create a page with its first content. One live page per record or actor: a second
    answers SCHEMA_VALIDATION_FAILED and changes nothing."""
    if problems := await _creation_problems(conn, about_kind, about_id, name, description):
        raise invalid(problems)
    page_id = uuid4()
    try:
        # Its own savepoint: a refused creation leaves the caller's transaction usable.
        async with conn.transaction():
            await memory.insert_page(
                conn,
                page_id,
                about_kind,
                member_id=about_id if about_kind == "member" else None,
                agent_id=about_id if about_kind == "agent" else None,
                routine_id=about_id if about_kind == "routine" else None,
                subject_id=about_id if about_kind == "record" else None,
                name=name,
                description=description,
                at=clock.now(),
            )
            await write_page(conn, workspace_id, page_id, content, actor=actor, created=True)
    except asyncpg.UniqueViolationError:
        raise invalid(
            [Problem("a live page about this record or actor exists already", "id")]
        ) from None
    return page_id


async def _creation_problems(
    conn: asyncpg.Connection, about_kind: str, about_id: UUID | None, name: str, description: str
) -> list[Problem]:
    """Why a page cannot be created about this, with this name and description."""
    problems = []
    if about_kind not in ABOUT_KINDS:
        problems.append(Problem(f"a page is about one of {', '.join(ABOUT_KINDS)}", "aboutKind"))
    if (about_kind == "workspace") != (about_id is None):
        problems.append(Problem("the workspace profile names no id; every other page one", "id"))
    if not 1 <= len(name) <= PAGE_NAME_MAX_CHARS:
        problems.append(Problem(f"a page's name is 1 to {PAGE_NAME_MAX_CHARS} characters", "name"))
    if len(description) > PAGE_DESCRIPTION_MAX_CHARS:
        message = f"a page's description is at most {PAGE_DESCRIPTION_MAX_CHARS} characters"
        problems.append(Problem(message, "description"))
    if about_kind == "record" and about_id is not None:
        carries = await records.carries_pages(conn, about_id)
        if carries is None:
            problems.append(Problem("no such record", "id"))
        elif not carries:
            message = "no page on a satellite, a framework document, a skill or a memory record"
            problems.append(Problem(message, "id"))
    return problems


async def write_page(
    conn: asyncpg.Connection,
    workspace_id: UUID,
    page_id: UUID,
    content: str,
    *,
    actor: Actor = SYSTEM_ACTOR,
    created: bool = False,
) -> None:
    """The workspace rewrites a page in the stored form (sources as record:<id> or
    conversation:<member id>). Lines kept word for word keep their keys; a ✍ line it drops is
    put back; caps and the satellite rule hold; references only on a member's profile."""
    # Its own transaction holds the page's lock when called alone (create_page's savepoint
    # otherwise).
    async with conn.transaction():
        row = await memory.page_shown(conn, page_id, [], None, stored_form=True, for_update=True)
        if row is None:
            raise not_found("memory page")
        if row.trashed_at is not None and not created:
            raise invalid([Problem("the page is in the trash: nothing is written to it", "id")])
        lines, problems = _system_lines(row, workspace_id, content, created)
        if problems:
            raise invalid(problems, NOT_VALID)
        if created and not any(line.kind == "souvenir" for line in lines):
            raise invalid([Problem("a page is created with its first souvenir", "content")])
        await store(conn, workspace_id, row, lines, actor, "created" if created else "modified")


def _system_lines(
    row: PageRow, workspace_id: UUID, content: str, created: bool
) -> tuple[list[LineRow], list[Problem]]:
    """The lines the workspace's content stands for, its dropped ✍ lines put back, and every
    problem with them."""
    parsed, problems = parse_content(content, mission=row.about_kind == "workspace")
    before = content_of(row.lines, workspace_id, stored_form=True)
    if row.about_kind == "workspace" and not created:
        if mission_section(content) != mission_section(before):
            message = (
                f"the {MISSION_HEADING} section is the workspace's own: memory never rewrites it"
            )
            problems.append(Problem(message, "content"))
    stored = [(line, line_text(line, workspace_id, stored_form=True)) for line in row.lines]
    shown = [(line.key, text) for line, text in stored if line.key is not None]

    def new_line(item: PageLine) -> tuple[LineRow | None, list[str]]:
        try:
            return _system_line(row, item, workspace_id), []
        except LineError as error:
            return None, error.reasons

    lines, rebuilt = rebuild(row, parsed, shown, new_line)
    problems.extend(rebuilt)
    # A ✍ line is never removed by anything but a person: put back where it stood.
    present = {line.key for line in lines}
    for index, (line, _) in enumerate(stored):
        if line.human and line.key not in present:
            lines.insert(min(index, len(lines)), line)
    length = len(content_of(lines, workspace_id, stored_form=True))
    if length > PAGE_CONTENT_MAX_CHARS:
        problems.append(
            Problem(
                f"with its ✍ lines put back the page would hold {length} characters,"
                f" more than {PAGE_CONTENT_MAX_CHARS}",
                "content",
            )
        )
    problems.extend(cap_change_problems(row, lines))
    return lines, problems


def _source(
    source: str | None, workspace_id: UUID, reasons: list[str]
) -> tuple[str | None, UUID | None]:
    """A stored source's kind and id (record:<record id> or conversation:<member id>)."""
    if source is None:
        return None, None
    kind, _, gid = source.partition(":")
    type_name = {"record": "Record", "conversation": "Member"}.get(kind)
    try:
        if type_name is not None:
            return kind, ids.decode(gid, type_name, workspace_id)
    except DomainError:
        pass
    reasons.append("a source is record:<record id> or conversation:<member id>")
    return None, None


def _system_line(row: PageRow, item: PageLine, workspace_id: UUID) -> LineRow:
    """A new line of the workspace's; raises LineError with every reason it cannot be one."""
    souvenir = item.souvenir
    assert souvenir is not None and souvenir.day is not None
    reasons = []
    if row.about_kind == "record" and not row.carries_pages:
        reasons.append("this page's record carries no memory page: nothing is added to it")
    if souvenir.human:
        reasons.append("only a person writes a ✍ line")
    source_kind, source_id = _source(souvenir.source, workspace_id, reasons)
    about_id = None
    if souvenir.about is not None:
        if row.about_kind != "member":
            reasons.append("only a member's own profile holds references to records")
        try:
            target = souvenir.about.target.removeprefix("record:")
            about_id = ids.decode(target, "Record", workspace_id)
        except DomainError:
            reasons.append("the reference names no record")
    if reasons:
        raise LineError(reasons)
    return LineRow(
        kind="souvenir",
        text=souvenir.text,
        key=new_key(),
        type=souvenir.type,
        author=souvenir.author,
        day=souvenir.day,
        until=souvenir.until,
        human=souvenir.human,
        source_kind=source_kind,
        source_id=source_id,
        about_id=about_id,
        about_label=souvenir.about.label if souvenir.about else None,
    )
