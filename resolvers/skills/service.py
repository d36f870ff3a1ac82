"""Skills as the caller may read and write them (DESIGN §3): records of the native `skill`
object with a versioned body, frontmatter and drive."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from db import records, skills
from db.skills import ActivationRow, FileRow, SkillRow, VersionRow
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.skills.dormancy import is_dormant
from resolvers.skills.drive import drive_path, file_path_problems, is_script, readable_path
from resolvers.skills.fields import (
    SKILL_TEMPLATE,
    body_problems,
    description_problems,
    extra_frontmatter_problems,
    name_problems,
)
from resolvers.skills.form import FormCheck, form_check
from resolvers.skills.lessons import Lesson
from resolvers.skills.polish import polish, polish_problems

SKILL_OBJECT = "skill"
MAX_BODY_CHARS = 100_000
MAX_LESSON_CHARS = 2_000
EXECUTABLE, REGULAR = 0o755, 0o644
# Where an activated skill's folder is written (DESIGN §3).
SKILL_DIRECTORIES = {
    "sandbox": "/workspace/skills/{name}/",
    "harness": "$HOME/.standards/skills/{name}/",
}


@dataclass(frozen=True, slots=True)
class NewFile:
    """A file to store in a skill's drive."""

    path: str
    content: bytes
    mode: int = REGULAR

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


@dataclass(frozen=True, slots=True)
class Activation:
    name: str
    version: int
    body: str
    directory: str
    files: list[FileRow]
    sub_skills: list[str]


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    name: str
    description: str | None
    dormant: bool


def author(principal: Principal) -> tuple[str, UUID | None, str]:
    """Who a version is by: the principal's kind, id and name."""
    return principal.kind, principal.row.actor_id, principal.row.actor_name


async def require_skill_right(
    conn: asyncpg.Connection, principal: Principal, action: str = "update"
) -> None:
    """Refuse agents (skills are read-only to them, whatever their person's role), and callers
    whose role lacks the workspace right to create and update skills, or the ``action``
    (create, update, delete) on the skill object."""
    if principal.kind == "agent":
        raise DomainError(Code.FORBIDDEN, "Agents may not write skills; a person may.")
    if not principal.row.can_write_skills:
        raise DomainError(Code.FORBIDDEN, "You may not create or update skills.")
    object_id = await records.object_id(conn, SKILL_OBJECT)
    if object_id is None or not principal.may(action, object_id):
        raise DomainError(Code.FORBIDDEN, f"Your role may not {action} skills.")


def script_flag(file: FileRow) -> bool:
    """Whether a drive file is a script."""
    return is_script(file.path, file.mode)


# Reading ------------------------------------------------------------------------------------


async def skill(
    conn: asyncpg.Connection, principal: Principal, name: str, version: int | None = None
) -> SkillRow:
    """A skill the caller may read, at ``version`` (None: latest); NOT_FOUND otherwise."""
    if version is not None and version < 1:
        raise invalid([Problem("a version is 1 or more", field="version")])
    found = await skills.skill_by_name(
        conn, name, version, principal.readable_objects, principal.person_id
    )
    if found is None:
        raise not_found("skill")
    return found


async def activation(
    conn: asyncpg.Connection,
    principal: Principal,
    name: str,
    version: int | None = None,
    target: str = "sandbox",
) -> Activation:
    """The body, the folder it is written to and its file list (one statement)."""
    row: ActivationRow | None = await skills.skill_activation(
        conn, name, version, principal.readable_objects, principal.person_id
    )
    if row is None:
        raise not_found("skill")
    directory = SKILL_DIRECTORIES[target].format(name=row.name)
    shown = [f for f in row.files if readable_path(f.path)]
    return Activation(row.name, row.version, row.content, directory, shown, row.sub_skills)


async def catalog(conn: asyncpg.Connection, principal: Principal) -> list[CatalogEntry]:
    """What a model's prompt lists: names and descriptions, dormant skills without theirs."""
    today = clock.now()
    entries = []
    for row in await skills.skill_catalog(conn, principal.readable_objects, principal.person_id):
        dormant = is_dormant(row.use_count, row.updated_at, today)
        entries.append(CatalogEntry(row.name, None if dormant else row.description, dormant))
    return entries


async def skill_file(
    conn: asyncpg.Connection, principal: Principal, name: str, path: str, version: int | None
) -> tuple[FileRow, bytes]:
    """One file of a readable skill, by path."""
    found = await skill(conn, principal, name, version)
    file = await skills.skill_file(conn, found.id, found.version, path)
    if file is None or not readable_path(path):
        raise not_found("file")
    return file


async def files(conn: asyncpg.Connection, found: SkillRow) -> list[FileRow]:
    """The files of a skill's version a reader is shown, never their content."""
    stored = await skills.skill_files(conn, found.id, found.version)
    return [f for f in stored if readable_path(f.path)]


async def versions(conn: asyncpg.Connection, found: SkillRow) -> list[VersionRow]:
    """Every version of a readable skill, newest first."""
    return await skills.skill_versions(conn, found.id)


async def sub_skills(conn: asyncpg.Connection, principal: Principal, found: SkillRow) -> list[str]:
    """The names of a skill's readable sub-skills."""
    return await skills.sub_skill_names(
        conn, found.id, principal.readable_objects, principal.person_id
    )


async def skills_page(
    conn: asyncpg.Connection,
    principal: Principal,
    *,
    first: int,
    after: str | None,
    name_contains: str | None,
    parent: str | None,
) -> tuple[list[SkillRow], bool]:
    """Readable skills in name order after the name ``after``; and whether more follow."""
    rows = await skills.skills_page(
        conn,
        principal.readable_objects,
        principal.person_id,
        after_name=after or "",
        limit=first + 1,
        name_contains=name_contains,
        parent_name=parent,
    )
    return rows[:first], len(rows) > first


async def skill_form_check(
    conn: asyncpg.Connection, principal: Principal, name: str
) -> list[FormCheck]:
    """The L1 form checks of a readable skill's latest body."""
    found = await skill(conn, principal, name)
    return form_check(found.name, found.content)


# Writing ------------------------------------------------------------------------------------


async def locked_skill(conn: asyncpg.Connection, principal: Principal, name: str) -> SkillRow:
    """Inside a transaction: the latest state of a readable skill, held until it ends."""
    await skill(conn, principal, name)  # NOT_FOUND before anything is locked
    await skills.lock_skill(conn, name)
    return await skill(conn, principal, name)


# The metadata key by which a sub-skill's folder names its parent: written by export only, read
# by import, refused from API input.
PARENT_KEY = "standards-parent"


def reserved_problems(extra: object) -> list[Problem]:
    """Frontmatter the API keeps for itself."""
    metadata = extra.get("metadata") if isinstance(extra, dict) else None
    if isinstance(metadata, dict) and PARENT_KEY in metadata:
        message = f"metadata.{PARENT_KEY} is written on export; file a sub-skill with parent"
        return [Problem(message, field=f"frontmatter.metadata.{PARENT_KEY}")]
    return []


def content_problems(content: object) -> list[Problem]:
    """Why a body cannot be stored (and exported as SKILL.md), if it cannot."""
    if isinstance(content, str) and len(content) > MAX_BODY_CHARS:
        return [Problem(f"must be at most {MAX_BODY_CHARS} characters", field="content")]
    return body_problems(content, field_name="content")


async def create_skill(
    conn: asyncpg.Connection,
    principal: Principal,
    *,
    name: str,
    description: str,
    content: str | None = None,
    extra_frontmatter: dict[str, Any] | None = None,
    visibility: str | None = None,
    parent: str | None = None,
    files: Sequence[NewFile] = (),
) -> SkillRow:
    """Create a skill (version 1); a body left out starts from the template. A sub-skill has
    its parent's visibility; any other skill the workspace's unless private is asked for."""
    await require_skill_right(conn, principal, "create")
    extra = extra_frontmatter or {}
    body = SKILL_TEMPLATE if content is None else content
    problems = [
        *name_problems(name),
        *description_problems(description),
        *extra_frontmatter_problems(extra),
        *reserved_problems(extra),
        *content_problems(body),
        *file_path_problems([f.path for f in files]),
    ]
    if visibility not in (None, "workspace", "private"):
        problems.append(Problem("must be workspace or private", field="visibility"))
    elif visibility == "private" and principal.person_id is None and parent is None:
        problems.append(Problem("a private skill belongs to a person", field="visibility"))
    if not problems and await skills.skill_names(
        conn, [name], principal.readable_objects, principal.person_id
    ):
        problems.append(Problem("a skill already has this name", field="name"))
    parent_row = None
    if parent is not None:
        parent_row = await skills.skill_by_name(
            conn, parent, None, principal.readable_objects, principal.person_id
        )
        if parent_row is None:
            problems.append(Problem("no such parent skill", field="parent"))
        elif visibility is not None and visibility != parent_row.visibility:
            message = f"a sub-skill has its parent's visibility ({parent_row.visibility})"
            problems.append(Problem(message, field="visibility"))
    if problems:
        raise invalid(problems)
    try:
        async with conn.transaction():
            skill_id = await insert_skill(
                conn, principal, name, visibility or "workspace", parent_row, source=None
            )
            await add_version(conn, principal, skill_id, 1, description, body, extra, files, None)
    except asyncpg.UniqueViolationError:
        # Another request took the name between the check and the insert.
        raise invalid([Problem("a skill already has this name", field="name")]) from None
    return await skill(conn, principal, name)


async def update_skill(
    conn: asyncpg.Connection,
    principal: Principal,
    name: str,
    *,
    description: str | None = None,
    content: str | None = None,
    extra_frontmatter: dict[str, Any] | None = None,
) -> SkillRow:
    """A new version with what changed; the files are carried over."""
    await require_skill_right(conn, principal)
    async with conn.transaction():
        return await _update(conn, principal, name, description, content, extra_frontmatter)


async def _update(
    conn: asyncpg.Connection,
    principal: Principal,
    name: str,
    description: str | None,
    content: str | None,
    extra_frontmatter: dict[str, Any] | None,
) -> SkillRow:
    found = await locked_skill(conn, principal, name)
    new_description = found.description if description is None else description
    new_body = found.content if content is None else content
    new_extra = found.extra_frontmatter if extra_frontmatter is None else extra_frontmatter
    problems = [
        *description_problems(new_description),
        *extra_frontmatter_problems(new_extra),
        *reserved_problems(new_extra),
        *content_problems(new_body),
    ]
    if problems:
        raise invalid(problems)
    unchanged = (new_description, new_body, new_extra) == (
        found.description,
        found.content,
        found.extra_frontmatter,
    )
    if unchanged:
        return found
    await add_version(
        conn,
        principal,
        found.id,
        found.latest_version + 1,
        new_description,
        new_body,
        new_extra,
        (),
        found,
    )
    return await skill(conn, principal, name)


async def put_skill_file(
    conn: asyncpg.Connection, principal: Principal, name: str, file: NewFile
) -> SkillRow:
    """A new version with ``file`` added or replaced (SKILL.md at the root becomes SKILL-2.md)."""
    await require_skill_right(conn, principal)
    async with conn.transaction():
        found = await locked_skill(conn, principal, name)
        stored = NewFile(drive_path(file.path), file.content, file.mode)
        files = await skills.skill_files(conn, found.id, found.version)
        if any(
            (f.path, f.sha256, f.mode) == (stored.path, stored.sha256, stored.mode) for f in files
        ):
            return found  # the same file already: no new version
        current = [f.path for f in files]
        paths = [p for p in current if p != stored.path] + [stored.path]
        # The stored paths passed these rules already: whatever is refused now is the new file's.
        problems = file_path_problems(paths)
        if problems:
            raise invalid(problems)
        async with conn.transaction():
            await add_version(
                conn,
                principal,
                found.id,
                found.latest_version + 1,
                found.description,
                found.content,
                found.extra_frontmatter,
                [stored],
                found,
            )
        return await skill(conn, principal, name)


async def delete_skill_file(
    conn: asyncpg.Connection, principal: Principal, name: str, path: str
) -> SkillRow:
    """A new version without the file at ``path``."""
    await require_skill_right(conn, principal)
    async with conn.transaction():
        found = await locked_skill(conn, principal, name)
        if await skills.skill_file(conn, found.id, found.version, path) is None:
            raise not_found("file")
        async with conn.transaction():
            await add_version(
                conn,
                principal,
                found.id,
                found.latest_version + 1,
                found.description,
                found.content,
                found.extra_frontmatter,
                (),
                found,
                drop=[path],
            )
        return await skill(conn, principal, name)


async def delete_skill(conn: asyncpg.Connection, principal: Principal, name: str) -> None:
    """Delete a skill with its versions; a skill with sub-skills is refused."""
    await require_skill_right(conn, principal, "delete")
    async with conn.transaction():
        found = await locked_skill(conn, principal, name)
        if await skills.has_sub_skills(conn, found.id):
            raise invalid([Problem("delete its sub-skills first", field="name")])
        async with conn.transaction():
            await skills.delete_skill_record(conn, found.id)


async def record_skill_use(
    conn: asyncpg.Connection, principal: Principal, name: str, lesson: str | None = None
) -> SkillRow:
    """Count a use of a readable skill (waking it if dormant), with an optional dated lesson."""
    async with conn.transaction():
        found = await locked_skill(conn, principal, name)
        if lesson is not None:
            text = lesson.strip()
            problems = body_problems(text, field_name="lesson")
            if not text or len(text) > MAX_LESSON_CHARS or "\n" in text:
                message = f"a lesson is one line of 1 to {MAX_LESSON_CHARS} characters"
                problems.append(Problem(message, field="lesson"))
            if problems:
                raise invalid(problems)
        async with conn.transaction():
            await skills.record_use(conn, found.id, clock.now())
            if lesson is not None:
                await skills.insert_lesson(conn, found.id, clock.now().date(), lesson.strip())
        return await skill(conn, principal, name)


async def polish_skill(conn: asyncpg.Connection, principal: Principal, name: str) -> SkillRow:
    """Fold the waiting lessons into a new body, unless a guard refuses the draft."""
    await require_skill_right(conn, principal)
    async with conn.transaction():
        found = await locked_skill(conn, principal, name)
        waiting = await skills.waiting_lessons(conn, found.id)
        lessons = [Lesson(row.day, row.text) for row in waiting]
        draft = polish(found.content, lessons)
        problems = polish_problems(found.content, draft, lessons) + content_problems(draft)
        if problems:
            raise invalid(problems, "The polished draft was refused; the body is unchanged.")
        version = found.latest_version + 1
        async with conn.transaction():
            await add_version(
                conn,
                principal,
                found.id,
                version,
                found.description,
                draft,
                found.extra_frontmatter,
                (),
                found,
            )
            await skills.fold_lessons(conn, found.id, version, [row.id for row in waiting])
        return await skill(conn, principal, name)


async def lessons(conn: asyncpg.Connection, found: SkillRow) -> list[Lesson]:
    """The lessons waiting to be folded into a skill's body."""
    return [Lesson(row.day, row.text) for row in await skills.waiting_lessons(conn, found.id)]


# Shared by creation, updates and imports (resolvers.skill_transfer) ----------------------


async def insert_skill(
    conn: asyncpg.Connection,
    principal: Principal,
    name: str,
    visibility: str,
    parent: SkillRow | None,
    *,
    source: dict[str, Any] | None,
) -> UUID:
    """The skill's record and skill row; a sub-skill takes its parent's access."""
    object_id = await records.object_id(conn, SKILL_OBJECT)
    assert object_id is not None  # every workspace has the native skill object
    skill_id = uuid4()
    owner = principal.person_id if visibility == "private" else None
    shared: list[UUID] = []
    if parent is not None:
        visibility, owner = parent.visibility, parent.owner_member_id
        shared = await records.record_shared_with(conn, parent.id)
    await records.insert_record(conn, skill_id, object_id, None, name, {}, visibility, owner)
    if shared:
        await records.replace_shares(conn, skill_id, shared)
    await skills.insert_skill(
        conn, skill_id, name, parent.id if parent else None, source, clock.now()
    )
    kind, actor_id, actor_name = author(principal)
    await records.insert_change(
        conn, skill_id, kind, actor_id, actor_name, "create", ["name", "description", "content"]
    )
    return skill_id


async def add_version(
    conn: asyncpg.Connection,
    principal: Principal,
    skill_id: UUID,
    version: int,
    description: str,
    body: str,
    extra: dict[str, Any],
    new_files: Sequence[NewFile],
    previous: SkillRow | None,
    *,
    drop: Sequence[str] = (),
    blobs_stored: bool = False,
) -> None:
    """Write version ``version``: its text, the previous version's files but for ``drop`` and
    those replaced, and ``new_files`` (contents stored once, each batch in one statement;
    ``blobs_stored`` when the caller stored the contents already)."""
    await skills.insert_version(
        conn, skill_id, version, description, body, extra, author(principal), clock.now()
    )
    if previous is not None:
        replaced = [*drop, *(f.path for f in new_files)]
        await skills.copy_files(conn, skill_id, previous.version, version, replaced)
    if not blobs_stored:
        await skills.insert_blobs(conn, {f.sha256: f.content for f in new_files})
    await skills.insert_files(
        conn,
        skill_id,
        version,
        [FileRow(f.path, f.sha256, len(f.content), f.mode) for f in new_files],
    )
    if previous is not None:
        kind, actor_id, actor_name = author(principal)
        changed = [
            field
            for field, old, new in (
                ("description", previous.description, description),
                ("content", previous.content, body),
                ("frontmatter", previous.extra_frontmatter, extra),
            )
            if old != new
        ]
        if new_files or drop:
            changed.append("files")
        await records.insert_change(conn, skill_id, kind, actor_id, actor_name, "update", changed)
