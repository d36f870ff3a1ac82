"""Memory pages as a caller may read and write them (DESIGN §5): who reads which page, what a
person's edit keeps, the source-link rule, history, rollback, redaction and the trash.

People edit through ``edit_page``/``delete_souvenir``; the Dreamer (and the demo, the tests
and the benchmarks until it exists) writes through ``create_page``/``write_page``.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from uuid import UUID, uuid4

import asyncpg

from db import memory
from db.memory import Actor, LineRow, PageRow, VersionRow
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.grammar import (
    MISSION_HEADING,
    PAGE_CONTENT_MAX_CHARS,
    PAGE_DESCRIPTION_MAX_CHARS,
    PAGE_NAME_MAX_CHARS,
    LineError,
    PageKind,
    PageLine,
    Reference,
    Souvenir,
    cap_problems,
    counted,
    kept_keys,
    mission_section,
    parse_content,
    render,
    render_content,
)

SYSTEM_ACTOR = Actor("system", None, "memory")
ABOUT_KINDS = ("member", "agent", "routine", "workspace", "record")
_SEPARATORS = re.compile(r"[\u2014\u2192\x00-\x1f\x7f-\x9f]")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class ShownSouvenir:
    """A souvenir as one reader sees it."""

    key: str
    line: str
    souvenir: Souvenir
    source_record_id: UUID | None
    source_member_id: UUID | None
    about_record_id: UUID | None


@dataclass(frozen=True, slots=True)
class Page:
    """A page as one reader sees it."""

    row: PageRow
    content: str
    souvenirs: list[ShownSouvenir]
    can_edit: bool

    @property
    def content_sha256(self) -> str:
        return sha256(self.content)

    @property
    def lines_only_deletable(self) -> bool:
        """A page on a satellite (or on a record that may carry none): its lines can only be
        deleted."""
        return self.row.about_kind == "record" and not self.row.carries_pages

    @property
    def mission(self) -> str | None:
        return mission_section(self.content) if self.row.about_kind == "workspace" else None


def sha256(text: str) -> str:
    """The hex sha256 of a text (what an edit's baseSha256 names)."""
    return hashlib.sha256(text.encode()).hexdigest()


def new_key() -> str:
    """A fresh opaque souvenir key."""
    return "s" + secrets.token_urlsafe(9)


def plain_name(name: str) -> str:
    """A name fit for a souvenir's author or source: no dash, arrow or control character."""
    return _SEPARATORS.sub("-", name).strip() or "someone"


# Showing lines ------------------------------------------------------------------------------


def _source_token(line: LineRow, workspace_id: UUID) -> str | None:
    if line.source_kind is None or line.source_id is None:
        return None
    if line.source_kind == "record":
        return "record:" + ids.encode("Record", workspace_id, line.source_id)
    return "conversation:" + ids.encode("Member", workspace_id, line.source_id)


def _closed_source(line: LineRow) -> str:
    """What a reader who cannot open a source sees: its kind, its owner, its day."""
    day = line.day.isoformat() if line.day else ""
    if not line.source_exists:
        return f"a source now gone, {day}"
    kind = (
        "conversation" if line.source_kind == "conversation" else (line.source_object or "record")
    )
    kind = plain_name(kind.lower())
    if line.source_owner:
        return f"{kind} from {plain_name(line.source_owner)}, {day}"
    return f"{kind}, {day}"


def souvenir_of(line: LineRow, workspace_id: UUID, *, stored_form: bool = False) -> Souvenir:
    """The souvenir a stored line states, its source and reference as the reader sees them
    (``stored_form``: as stored, every source open)."""
    source: str | None = None
    if line.source_kind is not None:
        opened = stored_form or line.source_open
        source = _source_token(line, workspace_id) if opened else _closed_source(line)
    about = None
    if line.about_id is not None and line.about_label and (stored_form or line.about_open):
        label = _SEPARATORS.sub("-", line.about_label).replace("[", "(").replace("]", ")")
        label = label.replace("(", "").replace(")", "").strip() or "record"
        about = Reference(label, "record:" + ids.encode("Record", workspace_id, line.about_id))
    assert line.type is not None
    return Souvenir(
        text=line.text,
        type=line.type,
        author=line.author,
        day=line.day,
        source=source,
        about=about,
        until=line.until,
        human=line.human,
    )


def line_text(line: LineRow, workspace_id: UUID, *, stored_form: bool = False) -> str:
    """One line of content as the reader sees it."""
    if line.kind != "souvenir":
        return line.text
    return render(souvenir_of(line, workspace_id, stored_form=stored_form))


def content_of(lines: Sequence[LineRow], workspace_id: UUID, *, stored_form: bool = False) -> str:
    """A page's content from its lines, as the reader sees it (or as stored)."""
    return render_content(line_text(line, workspace_id, stored_form=stored_form) for line in lines)


def shown_souvenirs(lines: Sequence[LineRow], workspace_id: UUID) -> list[ShownSouvenir]:
    """The souvenirs among a page's lines, each as the reader sees it."""
    found = []
    for line in lines:
        if line.kind != "souvenir" or line.key is None:
            continue
        souvenir = souvenir_of(line, workspace_id)
        found.append(
            ShownSouvenir(
                key=line.key,
                line=render(souvenir),
                souvenir=souvenir,
                source_record_id=line.source_id
                if line.source_kind == "record" and line.source_open
                else None,
                source_member_id=line.source_id
                if line.source_kind == "conversation" and line.source_open
                else None,
                about_record_id=line.about_id if souvenir.about is not None else None,
            )
        )
    return found


# Who reads, who writes ----------------------------------------------------------------------


def may_read(principal: Principal, row: PageRow) -> bool:
    """A record page by whoever reads its record; a member's profile by that member only; an
    agent's, a routine's or the workspace's profile by every caller whose role reads memory."""
    if not principal.may("read", row.memory_object_id):
        return False
    if row.about_kind == "record":
        return row.subject_readable
    if row.about_kind == "member":
        return principal.person_id is not None and principal.person_id == row.member_id
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
    shown = iter(souvenirs)
    content = render_content(
        next(shown).line if line.kind == "souvenir" and line.key is not None else line.text
        for line in row.lines
    )
    return Page(row=row, content=content, souvenirs=souvenirs, can_edit=may_edit(principal, row))


# Reading -----------------------------------------------------------------------------------


async def _load(
    conn: asyncpg.Connection,
    principal: Principal,
    page_id: UUID,
    *,
    for_update: bool = False,
    trashed: bool = False,
) -> PageRow:
    """A page the caller may read (a trashed one only when ``trashed`` and they may edit it);
    NOT_FOUND otherwise."""
    row = await memory.page_shown(
        conn,
        page_id,
        principal.readable_objects,
        principal.person_id,
        for_update=for_update,
    )
    if row is None or not may_read(principal, row):
        raise not_found("memory page")
    if row.trashed_at is not None and not (trashed and may_edit(principal, row)):
        raise not_found("memory page")
    return row


async def page(conn: asyncpg.Connection, principal: Principal, page_id: UUID) -> Page:
    """A live page the caller may read; NOT_FOUND otherwise."""
    return view(principal, await _load(conn, principal, page_id))


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


async def versions(
    conn: asyncpg.Connection,
    principal: Principal,
    page_id: UUID,
    first: int,
    before: int | None = None,
) -> list[VersionRow]:
    """A page's versions, newest first, their lines as the caller sees them."""
    await _load(conn, principal, page_id, trashed=True)
    return await memory.versions_of_page(
        conn, page_id, before, first, principal.readable_objects, principal.person_id
    )


# Writing by a person ---------------------------------------------------------------------


def _actor(principal: Principal) -> Actor:
    return Actor(
        principal.kind, principal.row.actor_id, principal.row.actor_name, principal.row.token_id
    )


def _page_kind(row: PageRow) -> PageKind:
    return "record" if row.about_kind == "record" else "profile"


def _counts(lines: Sequence[LineRow]) -> dict[object, int]:
    return counted((line.human, line.about_id) for line in lines if line.kind == "souvenir")


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
    if base_sha256 is not None and not _SHA256.fullmatch(base_sha256):
        raise invalid([Problem("a sha256 is 64 lowercase hexadecimal digits", "baseSha256")])
    if not principal.is_own_session:
        raise why_not_editable(principal)
    async with conn.transaction():
        row = await _load(conn, principal, page_id, for_update=True)
        if not may_edit(principal, row):
            raise why_not_editable(principal)
        shown = view(principal, row)
        if base_sha256 is not None and base_sha256 != shown.content_sha256:
            raise DomainError(
                Code.MEMORY_PRECONDITION_FAILED,
                "The page changed since the content this edit is based on: read it again.",
            )
        lines = await _person_lines(conn, principal, row, shown, content)
        return await _person_write(conn, principal, row, lines)


async def _person_lines(
    conn: asyncpg.Connection, principal: Principal, row: PageRow, shown: Page, content: str
) -> list[LineRow]:
    """The lines a person's content stands for, or a validation error listing every problem."""
    parsed, problems = parse_content(content, mission=row.about_kind == "workspace", by_person=True)
    if problems:
        raise invalid(problems, "The content is not valid: nothing was changed.")
    today = clock.now().date()
    author = plain_name(principal.row.member_name or principal.row.actor_name)
    submitted = [p for p in parsed if p.kind == "souvenir"]
    references = await _readable_references(conn, principal, submitted)

    def new_line(item: PageLine) -> tuple[LineRow | None, list[str]]:
        line, why = _new_person_line(row, item, references, author, today)
        return line, [why] if why else []

    shown_lines = [(s.key, s.line) for s in shown.souvenirs]
    lines, problems = _rebuild(row, parsed, shown_lines, new_line)
    workspace_id = principal.workspace_id
    if problems:
        raise invalid(problems, "The content is not valid: nothing was changed.")
    length = len(content_of(lines, workspace_id))
    if length > PAGE_CONTENT_MAX_CHARS:
        problems.append(
            Problem(
                f"with authors and days filled in the page would hold {length} characters,"
                f" more than {PAGE_CONTENT_MAX_CHARS}",
                "content",
            )
        )
    else:
        problems.extend(_length_problems(lines, workspace_id, "content"))
    problems.extend(cap_problems(_page_kind(row), _counts(row.lines), _counts(lines)))
    if problems:
        raise invalid(problems, "The content is not valid: nothing was changed.")
    return lines


def _rebuild(
    row: PageRow,
    parsed: list[PageLine],
    shown: list[tuple[str, str]],
    new_line: Callable[[PageLine], tuple[LineRow | None, list[str]]],
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


def _new_person_line(
    row: PageRow,
    item: PageLine,
    references: dict[str, tuple[UUID, str]],
    author: str,
    today: date,
) -> tuple[LineRow | None, str | None]:
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
    return (
        LineRow(
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
        ),
        None,
    )


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
    labels = await memory.readable_records(
        conn, list(wanted.values()), principal.readable_objects, principal.person_id
    )
    return {t: (i, labels[i]) for t, i in wanted.items() if i in labels}


async def _write(
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
    try:
        async with conn.transaction():
            number = await memory.add_version(
                conn,
                row.id,
                uuid4(),
                operation=operation,
                actor=actor,
                lines=lines,
                content=content_of(lines, workspace_id, stored_form=True),
                trashed=emptied,
                at=now,
                rolled_back_from=rolled_back_from,
            )
    except asyncpg.UniqueViolationError:
        raise invalid(
            [Problem("a live page about the same record or actor exists already", "pageId")],
            "This page cannot leave the trash while another page holds its place.",
        ) from None
    return replace(
        row, version=number, updated_at=now, trashed_at=now if emptied else None, lines=lines
    )


async def _person_write(
    conn: asyncpg.Connection,
    principal: Principal,
    row: PageRow,
    lines: list[LineRow],
    operation: str = "modified",
    rolled_back_from: int | None = None,
) -> Page:
    written = await _write(
        conn,
        principal.workspace_id,
        row,
        lines,
        _actor(principal),
        operation,
        rolled_back_from=rolled_back_from,
    )
    return view(principal, written)


async def delete_souvenir(
    conn: asyncpg.Connection, principal: Principal, page_id: UUID, key: str
) -> Page:
    """A person deletes one souvenir (✍ or not) by its page and key."""
    if not principal.is_own_session:
        raise why_not_editable(principal)
    async with conn.transaction():
        row = await _load(conn, principal, page_id, for_update=True)
        if not may_edit(principal, row):
            raise why_not_editable(principal)
        kept = [line for line in row.lines if line.key != key]
        if len(kept) == len(row.lines):
            raise DomainError(Code.NOT_FOUND, "No souvenir with this key on this page.")
        return await _person_write(conn, principal, row, kept)


async def restore_page(conn: asyncpg.Connection, principal: Principal, page_id: UUID) -> Page:
    """Take a trashed page out of the trash with the lines it last held."""
    if not principal.is_own_session:
        raise why_not_editable(principal)
    async with conn.transaction():
        row = await _load(conn, principal, page_id, for_update=True, trashed=True)
        if not may_edit(principal, row):
            raise why_not_editable(principal)
        if row.trashed_at is None:
            raise invalid([Problem("the page is not in the trash", "pageId")])
        lines = await memory.last_lines_before_trash(conn, page_id)
        if not lines:
            raise invalid([Problem("no version of this page holds content to restore", "pageId")])
        lines = await _reshown(conn, principal, lines)
        if problems := _rewrite_problems(row, lines, principal.workspace_id, "pageId"):
            raise invalid(problems)
        return await _person_write(conn, principal, row, lines, "restored")


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
    problems.extend(cap_problems(_page_kind(row), _counts(row.lines), _counts(lines)))
    problems.extend(_length_problems(lines, workspace_id, field))
    return problems


def _length_problems(lines: Sequence[LineRow], workspace_id: UUID, field: str) -> list[Problem]:
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


async def _reshown(
    conn: asyncpg.Connection, principal: Principal, lines: list[LineRow]
) -> list[LineRow]:
    """Stored lines (a version's) with what the caller may see of their sources."""
    return await memory.lines_shown(
        conn, [line.stored() for line in lines], principal.readable_objects, principal.person_id
    )


async def rollback(conn: asyncpg.Connection, principal: Principal, version_id: UUID) -> Page:
    """Write an earlier version's content back, as a new version."""
    if not principal.is_own_session:
        raise why_not_editable(principal)
    async with conn.transaction():
        version, row = await _version_page(conn, principal, version_id, for_update=True)
        if not may_edit(principal, row):
            raise why_not_editable(principal)
        if row.trashed_at is not None:
            raise invalid([Problem("the page is in the trash: restore it first", "versionId")])
        if version.lines is None:
            raise invalid([Problem("this version was redacted: it has no content", "versionId")])
        lines = await _reshown(conn, principal, version.lines)
        if problems := _rewrite_problems(row, lines, principal.workspace_id, "versionId"):
            raise invalid(problems)
        return await _person_write(conn, principal, row, lines, rolled_back_from=version.number)


async def redact(conn: asyncpg.Connection, principal: Principal, version_id: UUID) -> VersionRow:
    """Scrub a version's content, keeping who made it and when."""
    if not principal.is_own_session:
        raise why_not_editable(principal)
    async with conn.transaction():
        # Under the page's lock: a rollback or restore of this version waits, then reads it
        # redacted.
        _, row = await _version_page(conn, principal, version_id, for_update=True)
        if not may_edit(principal, row):
            raise why_not_editable(principal)
        await memory.redact_version(conn, version_id, clock.now(), principal.row.actor_name)
        found = await memory.version_by_id(conn, version_id)
        assert found is not None
        return found


async def version(conn: asyncpg.Connection, principal: Principal, version_id: UUID) -> VersionRow:
    """One version of a page the caller may read, its lines as the caller sees them."""
    found, _ = await _version_page(conn, principal, version_id)
    rows = await versions(conn, principal, found.page_id, 1, found.number + 1)
    return rows[0]


async def _version_page(
    conn: asyncpg.Connection,
    principal: Principal,
    version_id: UUID,
    *,
    for_update: bool = False,
) -> tuple[VersionRow, PageRow]:
    """A version (stored form) and its page, which the caller may read (trashed, when they may
    edit it); a version of a page they may not read is answered like a missing version."""
    version = await memory.version_by_id(conn, version_id)
    if version is None:
        raise not_found("memory version")
    try:
        row = await _load(conn, principal, version.page_id, for_update=for_update, trashed=True)
    except DomainError:
        raise not_found("memory version") from None
    if for_update:
        # Read again under the page's lock: a redaction may have committed meanwhile.
        again = await memory.version_by_id(conn, version_id)
        assert again is not None  # versions are never deleted
        version = again
    return version, row


# Writing by the workspace (the Dreamer) ------------------------------------------------------


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
    problems = []
    if about_kind not in ABOUT_KINDS:
        problems.append(Problem(f"a page is about one of {', '.join(ABOUT_KINDS)}", "aboutKind"))
    if (about_kind == "workspace") != (about_id is None):
        problems.append(Problem("the workspace profile names no id; every other page one", "id"))
    if not 1 <= len(name) <= PAGE_NAME_MAX_CHARS:
        problems.append(Problem(f"a page's name is 1 to {PAGE_NAME_MAX_CHARS} characters", "name"))
    if len(description) > PAGE_DESCRIPTION_MAX_CHARS:
        problems.append(
            Problem(
                f"a page's description is at most {PAGE_DESCRIPTION_MAX_CHARS} characters",
                "description",
            )
        )
    if about_kind == "record" and about_id is not None:
        carries = await memory.carries_pages(conn, about_id)
        if carries is None:
            problems.append(Problem("no such record", "id"))
        elif not carries:
            problems.append(
                Problem(
                    "no page on a satellite, a framework document, a skill or a memory record",
                    "id",
                )
            )
    if problems:
        raise invalid(problems)
    page_id = uuid4()
    try:
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
    async with conn.transaction():
        row = await memory.page_shown(conn, page_id, [], None, stored_form=True, for_update=True)
        if row is None:
            raise not_found("memory page")
        if row.trashed_at is not None and not created:
            raise invalid([Problem("the page is in the trash: nothing is written to it", "id")])
        parsed, problems = parse_content(content, mission=row.about_kind == "workspace")
        before = content_of(row.lines, workspace_id, stored_form=True)
        mission_changed = mission_section(content) != mission_section(before)
        if row.about_kind == "workspace" and not created and mission_changed:
            problems.append(
                Problem(
                    f"the {MISSION_HEADING} section is the workspace's own: memory never"
                    " rewrites it",
                    "content",
                )
            )
        stored = [(line, line_text(line, workspace_id, stored_form=True)) for line in row.lines]
        shown = [(line.key, text) for line, text in stored if line.key is not None]

        def new_line(item: PageLine) -> tuple[LineRow | None, list[str]]:
            try:
                return _system_line(row, item, workspace_id), []
            except LineError as error:
                return None, error.reasons

        lines, rebuilt = _rebuild(row, parsed, shown, new_line)
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
        problems.extend(cap_problems(_page_kind(row), _counts(row.lines), _counts(lines)))
        if problems:
            raise invalid(problems, "The content is not valid: nothing was changed.")
        if created and not any(line.kind == "souvenir" for line in lines):
            raise invalid([Problem("a page is created with its first souvenir", "content")])
        await _write(conn, workspace_id, row, lines, actor, "created" if created else "modified")


def _system_line(row: PageRow, item: PageLine, workspace_id: UUID) -> LineRow:
    souvenir = item.souvenir
    assert souvenir is not None and souvenir.day is not None
    reasons = []
    if row.about_kind == "record" and not row.carries_pages:
        reasons.append("this page's record carries no memory page: nothing is added to it")
    if souvenir.human:
        reasons.append("only a person writes a ✍ line")
    source_kind, source_id = None, None
    if souvenir.source is not None:
        kind, _, gid = souvenir.source.partition(":")
        type_name = {"record": "Record", "conversation": "Member"}.get(kind)
        try:
            if type_name is None:
                raise invalid([])
            source_kind, source_id = kind, ids.decode(gid, type_name, workspace_id)
        except DomainError:
            reasons.append("a source is record:<record id> or conversation:<member id>")
    about_id = None
    if souvenir.about is not None:
        if row.about_kind != "member":
            reasons.append("only a member's own profile holds references to records")
        try:
            about_id = ids.decode(
                souvenir.about.target.removeprefix("record:"), "Record", workspace_id
            )
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
