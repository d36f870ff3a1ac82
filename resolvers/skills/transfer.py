"""Skills in and out as standard folders (DESIGN §3): import checks every folder before it
writes anything; export writes each readable skill as its own folder. A folder's ``.memory.md``
carries the skill's waiting lessons both ways (``memory_file``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

import asyncpg

from db import skills
from db.skills import NameRow, SkillRow
from resolvers.common import clock
from resolvers.common.errors import DomainError, Problem, invalid
from resolvers.common.principals import Principal
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.drive import readable_path
from resolvers.skills.fields import (
    BUILT_IN_NAMES,
    NAME_TAKEN,
    PARENT_KEY,
    content_problems,
    shipped_name_problems,
)
from resolvers.skills.folder import check_folder
from resolvers.skills.guard import locked_skill, require_skill_right
from resolvers.skills.lessons import Lesson
from resolvers.skills.memory_file import (
    MEMORY_FILE,
    new_lessons,
    parse_memory_file,
    render_memory_file,
)
from resolvers.skills.reading import skill
from resolvers.skills.skill_md import SkillDraft, render_skill_md
from resolvers.skills.versions import NewFile, NewVersion, add_version, insert_skill

EXPORT_PAGE = 500
MAX_NESTING = 64  # sub-skills of sub-skills: far more than any real tree


@dataclass(frozen=True, slots=True)
class ImportResult:
    name: str
    operation: Literal["create", "update", "unchanged"]
    version: int


@dataclass(frozen=True, slots=True)
class _Planned:
    name: str
    description: str
    body: str
    extra: dict[str, Any]
    files: list[NewFile]
    parent: str | None
    lessons: list[Lesson]


def _plan(folder: ArchiveFolder) -> tuple[_Planned | None, list[Problem]]:
    files = {path: file.content for path, file in folder.files.items()}
    memory = files.pop(MEMORY_FILE, None)
    lessons, problems = (
        parse_memory_file(memory, f"{folder.name}/{MEMORY_FILE}")
        if memory is not None
        else ([], [])
    )
    # The shipped skills' names are checked once the skills already there are known.
    draft, drive, found = check_folder(folder.name, files, reserved=BUILT_IN_NAMES)
    problems += [
        Problem(p.message, field=f"{folder.name}/{p.field}" if p.field else folder.name)
        for p in found
    ]
    if draft is None or problems:
        return None, problems
    problems += [
        Problem(p.message, field=f"{folder.name}/SKILL.md") for p in content_problems(draft.body)
    ]
    if problems:
        return None, problems
    extra = dict(draft.extra_frontmatter)
    metadata = dict(extra.get("metadata") or {})
    parent = metadata.pop(PARENT_KEY, None)
    if metadata:
        extra["metadata"] = metadata
    else:
        extra.pop("metadata", None)
    new = [
        NewFile(path, content, folder.files[path].mode) for path, content in sorted(drive.items())
    ]
    return _Planned(draft.name, draft.description, draft.body, extra, new, parent, lessons), []


def _parents_first(planned: list[_Planned]) -> tuple[list[_Planned], list[Problem]]:
    """The skills in an order that creates a parent before its sub-skills; cycles refused."""
    by_name = {p.name: p for p in planned}
    ordered: list[_Planned] = []
    state: dict[str, str] = {}
    problems: list[Problem] = []

    def visit(item: _Planned, trail: list[str]) -> None:
        if state.get(item.name) == "done":
            return
        if state.get(item.name) == "visiting":
            cycle = " -> ".join([*trail, item.name])
            problems.append(Problem(f"sub-skills form a cycle: {cycle}", field=item.name))
            return
        state[item.name] = "visiting"
        if item.parent in by_name:
            visit(by_name[item.parent], [*trail, item.name])
        state[item.name] = "done"
        ordered.append(item)

    for item in planned:
        visit(item, [])
    return ordered, problems


async def require_import_right(conn: asyncpg.Connection, principal: Principal) -> None:
    """Refuse a caller who may not import skills (an agent, a role without the right), before
    anything of the archive is unpacked."""
    await require_skill_right(conn, principal, "create")


async def import_folders(
    conn: asyncpg.Connection,
    principal: Principal,
    folders: list[ArchiveFolder],
    *,
    visibility: str = "workspace",
    new_only: bool = False,
    found_before: Sequence[Problem] = (),
    shipped: str | None = None,
    source: dict[str, Any] | None = None,
) -> list[ImportResult]:
    """Create or update one skill per folder, or nothing: every problem of every folder is
    reported at once, with those the caller found before (``found_before``). A taken name
    updates that skill only when the caller may update it, and never when ``new_only``. The
    name of a skill the product ships creates no skill but ``shipped``, the one being added
    from the catalogue (kept as its source, like ``source``), or updates one already added."""
    await require_import_right(conn, principal)
    problems = [*found_before, *_request_problems(principal, folders, visibility)]
    planned, found = await _plan_all(folders)
    problems += found
    existing = await _existing(conn, principal, planned)
    problems += await _update_right_problems(conn, principal, planned, existing)
    problems += _name_problems(planned, existing, new_only)
    problems += shipped_name_problems([p.name for p in planned if p.name not in existing], shipped)
    ordered, cycles = _parents_first(planned)
    problems += cycles
    if problems:
        raise invalid(problems, "The import was refused: nothing was written.")
    try:
        source = {"kind": "shipped", "name": shipped} if shipped else source
        return await _write_all(conn, principal, ordered, existing, visibility, source)
    except asyncpg.UniqueViolationError:
        # Another request took a name between the check and the insert.
        meanwhile = Problem("a skill took one of these names meanwhile", field="archive")
        raise invalid([meanwhile]) from None


def _request_problems(
    principal: Principal, folders: list[ArchiveFolder], visibility: str
) -> list[Problem]:
    """What is wrong with the import as a whole: no folder, a visibility the caller cannot have."""
    problems: list[Problem] = []
    if not folders:
        problems.append(Problem("the archive holds no skill folder", field="archive"))
    if visibility not in ("workspace", "private") or (
        visibility == "private" and principal.person_id is None
    ):
        problems.append(Problem("must be workspace, or private for a person", field="visibility"))
    return problems


async def _plan_all(folders: list[ArchiveFolder]) -> tuple[list[_Planned], list[Problem]]:
    """Every folder checked and planned, with every problem found."""
    planned: list[_Planned] = []
    problems: list[Problem] = []
    # Parsing frontmatter is CPU work on hostile input: off the event loop.
    for plan, found in await asyncio.to_thread(lambda: [_plan(f) for f in folders]):
        problems += found
        if plan is not None:
            planned.append(plan)
    return planned, problems


async def _existing(
    conn: asyncpg.Connection, principal: Principal, planned: list[_Planned]
) -> dict[str, NameRow]:
    """The skills already bearing the names imported or named as parents, by name."""
    wanted = sorted({p.name for p in planned} | {p.parent for p in planned if p.parent})
    rows = await skills.skill_names(conn, wanted, principal.readable_objects, principal.person_id)
    return {row.name: row for row in rows}


async def _update_right_problems(
    conn: asyncpg.Connection,
    principal: Principal,
    planned: list[_Planned],
    existing: dict[str, NameRow],
) -> list[Problem]:
    """A folder that updates a skill needs the right to update skills."""
    updating = [p.name for p in planned if p.name in existing]
    if not updating:
        return []
    try:
        await require_skill_right(conn, principal, "update")
    except DomainError as error:
        return [Problem(error.message, field=updating[0])]
    return []


def _name_problems(
    planned: list[_Planned], existing: dict[str, NameRow], new_only: bool
) -> list[Problem]:
    """Names taken by skills the caller cannot read (by any, ``new_only``); parents that name
    no skill."""
    importing = {p.name for p in planned}
    problems: list[Problem] = []
    for item in planned:
        row = existing.get(item.name)
        if row is not None and (new_only or not row.readable):
            problems.append(Problem(NAME_TAKEN, field=f"{item.name}/SKILL.md"))
        if item.parent is not None:
            parent_row = existing.get(item.parent)
            known = item.parent in importing or (parent_row is not None and parent_row.readable)
            if item.parent == item.name or not known:
                message = f"metadata.{PARENT_KEY} names no skill: {item.parent}"
                problems.append(Problem(message, field=f"{item.name}/SKILL.md"))
    return problems


async def _write_all(
    conn: asyncpg.Connection,
    principal: Principal,
    ordered: list[_Planned],
    existing: dict[str, NameRow],
    visibility: str,
    source: dict[str, Any] | None,
) -> list[ImportResult]:
    results: list[ImportResult] = []
    # A savepoint: a name taken meanwhile rolls back the whole import, then is reported.
    async with conn.transaction():
        # Per skill written: its new contents in one statement, its file list in one more.
        for item in ordered:
            if item.name in existing:
                results.append(await _update(conn, principal, item))
            else:
                results.append(await _create(conn, principal, item, visibility, source))
    return results


async def _create(
    conn: asyncpg.Connection,
    principal: Principal,
    item: _Planned,
    visibility: str,
    source: dict[str, Any] | None,
) -> ImportResult:
    parent = await skill(conn, principal, item.parent) if item.parent else None
    skill_id = await insert_skill(conn, principal, item.name, visibility, parent, source=source)
    await skills.insert_blobs(conn, {f.sha256: f.content for f in item.files})
    first = NewVersion(
        skill_id, 1, item.description, item.body, item.extra, files=item.files, blobs_stored=True
    )
    await add_version(conn, principal, first)
    await keep_new_lessons(conn, skill_id, item.lessons)
    return ImportResult(item.name, "create", 1)


async def _update(conn: asyncpg.Connection, principal: Principal, item: _Planned) -> ImportResult:
    found = await locked_skill(conn, principal, item.name)
    await keep_new_lessons(conn, found.id, item.lessons)
    moved = item.parent != found.parent_name
    if moved:
        await _refile(conn, principal, found, item.parent)
    current = {
        (f.path, f.sha256, f.mode) for f in await skills.skill_files(conn, found.id, found.version)
    }
    incoming = {(f.path, f.sha256, f.mode) for f in item.files}
    same_text = (item.description, item.body, item.extra) == (
        found.description,
        found.content,
        found.extra_frontmatter,
    )
    if same_text and current == incoming:
        return ImportResult(item.name, "update" if moved else "unchanged", found.version)
    stored = {sha256 for _, sha256, _ in current}
    await skills.insert_blobs(
        conn, {f.sha256: f.content for f in item.files if f.sha256 not in stored}
    )
    version = NewVersion.after(
        found,
        description=item.description,
        body=item.body,
        extra=item.extra,
        files=item.files,
        drop=[path for path, _, _ in current],
        blobs_stored=True,
    )
    await add_version(conn, principal, version)
    return ImportResult(item.name, "update", version.number)


async def _refile(
    conn: asyncpg.Connection, principal: Principal, found: SkillRow, parent_name: str | None
) -> None:
    """File an existing skill under the parent its folder now names (or under none)."""
    parent = await skill(conn, principal, parent_name) if parent_name else None
    ancestor = parent
    for _ in range(MAX_NESTING):
        if ancestor is None:
            break
        if ancestor.id == found.id:
            message = f"metadata.{PARENT_KEY} would file {found.name} under itself"
            raise invalid([Problem(message, field=f"{found.name}/SKILL.md")])
        ancestor = (
            await skill(conn, principal, ancestor.parent_name) if ancestor.parent_name else None
        )
    await skills.set_skill_parent(conn, found.id, parent.id if parent else None, clock.now())


async def export_folders(
    conn: asyncpg.Connection, principal: Principal, names: list[str] | None
) -> list[ArchiveFolder]:
    """Each named skill (or every readable one) as a standard folder: SKILL.md and its drive;
    a sub-skill names its parent in `metadata.standards-parent`."""
    if names is not None:
        rows = [await skill(conn, principal, name) for name in dict.fromkeys(names)]
    else:
        rows = await _every_readable(conn, principal)
    return await _folders_of(conn, rows)


async def export_version(
    conn: asyncpg.Connection, principal: Principal, name: str, version: int
) -> ArchiveFolder:
    """One readable skill at one of its versions, as export writes it."""
    (folder,) = await _folders_of(conn, [await skill(conn, principal, name, version)])
    return folder


async def _folders_of(conn: asyncpg.Connection, rows: list[SkillRow]) -> list[ArchiveFolder]:
    """Each skill at its row's version as a folder (two statements)."""
    contents = await skills.skill_file_contents(conn, [(r.id, r.version) for r in rows])
    waiting = await skills.waiting_lessons_of_skills(conn, [r.id for r in rows])
    folders = []
    for row in rows:
        files = {"SKILL.md": ArchiveFile("SKILL.md", render_skill_md(_draft(row)).encode(), 0o644)}
        for path, mode, content in contents.get(row.id, []):
            # A .memory.md stored as a file before lessons had one is the lessons' place now.
            if readable_path(path) and path != MEMORY_FILE:
                files[path] = ArchiveFile(path, content, mode)
        if row.id in waiting:
            lessons = [Lesson(day, text) for day, text in waiting[row.id]]
            text = render_memory_file(row.name, lessons)
            files[MEMORY_FILE] = ArchiveFile(MEMORY_FILE, text.encode(), 0o644)
        folders.append(ArchiveFolder(row.name, files))
    return folders


async def keep_new_lessons(conn: asyncpg.Connection, skill_id: UUID, lessons: list[Lesson]) -> None:
    """Keep the lessons of a ``.memory.md`` the skill does not keep yet, oldest day first (two
    statements)."""
    if lessons:
        fresh = new_lessons(lessons, await skills.lessons_of_skill(conn, skill_id))
        if fresh:
            by_day = sorted(fresh, key=lambda one: one.day.toordinal())
            await skills.insert_lessons(conn, skill_id, [(one.day, one.text) for one in by_day])


def _draft(row: SkillRow) -> SkillDraft:
    extra = dict(row.extra_frontmatter)
    if row.parent_name:
        extra["metadata"] = {**(extra.get("metadata") or {}), PARENT_KEY: row.parent_name}
    return SkillDraft(row.name, row.description, row.content, extra)


async def _every_readable(conn: asyncpg.Connection, principal: Principal) -> list[SkillRow]:
    rows: list[SkillRow] = []
    after = ""
    while True:
        page = await skills.skills_page(
            conn,
            principal.readable_objects,
            principal.person_id,
            after_name=after,
            limit=EXPORT_PAGE,
            name_contains=None,
            parent_name=None,
        )
        rows += page
        if len(page) < EXPORT_PAGE:
            return rows
        after = page[-1].name
