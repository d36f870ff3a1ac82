"""Skills as a person writes them (DESIGN §3): create, update, put and delete a file, delete,
record a use with its lesson, polish the lessons into the body. Each change is a new version."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import asyncpg

from db import skills
from db.skills import SkillRow
from resolvers.common import clock
from resolvers.common.errors import Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.skills.drive import drive_path, file_path_problems
from resolvers.skills.fields import (
    NAME_TAKEN,
    SKILL_TEMPLATE,
    body_problems,
    content_problems,
    description_problems,
    extra_frontmatter_problems,
    name_problems,
    reserved_problems,
)
from resolvers.skills.guard import locked_skill, require_skill_right
from resolvers.skills.lessons import Lesson
from resolvers.skills.polish import polish, polish_problems
from resolvers.skills.reading import skill
from resolvers.skills.versions import NewFile, NewVersion, add_version, insert_skill

MAX_LESSON_CHARS = 2_000
VISIBILITIES = ("workspace", "private")


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
        *_visibility_problems(principal, visibility, parent),
    ]
    if not problems and await skills.skill_names(
        conn, [name], principal.readable_objects, principal.person_id
    ):
        problems.append(Problem(NAME_TAKEN, field="name"))
    parent_row = None
    if parent is not None:
        parent_row, found = await _parent(conn, principal, parent, visibility)
        problems += found
    if problems:
        raise invalid(problems)
    try:
        # A savepoint: a name taken meanwhile rolls back this skill alone, then is reported.
        async with conn.transaction():
            skill_id = await insert_skill(
                conn, principal, name, visibility or "workspace", parent_row, source=None
            )
            first = NewVersion(skill_id, 1, description, body, extra, files=files)
            await add_version(conn, principal, first)
    except asyncpg.UniqueViolationError:
        raise invalid([Problem(NAME_TAKEN, field="name")]) from None
    return await skill(conn, principal, name)


def _visibility_problems(
    principal: Principal, visibility: str | None, parent: str | None
) -> list[Problem]:
    if visibility not in (None, *VISIBILITIES):
        return [Problem("must be workspace or private", field="visibility")]
    if visibility == "private" and principal.person_id is None and parent is None:
        return [Problem("a private skill belongs to a person", field="visibility")]
    return []


async def _parent(
    conn: asyncpg.Connection, principal: Principal, parent: str, visibility: str | None
) -> tuple[SkillRow | None, list[Problem]]:
    """The readable parent a new sub-skill is filed under, and what is wrong with it."""
    row = await skills.skill_by_name(
        conn, parent, None, principal.readable_objects, principal.person_id
    )
    if row is None:
        return None, [Problem("no such parent skill", field="parent")]
    if visibility is not None and visibility != row.visibility:
        message = f"a sub-skill has its parent's visibility ({row.visibility})"
        return row, [Problem(message, field="visibility")]
    return row, []


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
        found = await locked_skill(conn, principal, name)
        version = NewVersion.after(
            found, description=description, body=content, extra=extra_frontmatter
        )
        problems = [
            *description_problems(version.description),
            *extra_frontmatter_problems(version.extra),
            *reserved_problems(version.extra),
            *content_problems(version.body),
        ]
        if problems:
            raise invalid(problems)
        unchanged = (version.description, version.body, version.extra) == (
            found.description,
            found.content,
            found.extra_frontmatter,
        )
        if unchanged:
            return found
        await add_version(conn, principal, version)
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
        await add_version(conn, principal, NewVersion.after(found, files=[stored]))
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
        await add_version(conn, principal, NewVersion.after(found, drop=[path]))
        return await skill(conn, principal, name)


async def delete_skill(conn: asyncpg.Connection, principal: Principal, name: str) -> None:
    """Delete a skill with its versions; a skill with sub-skills is refused."""
    await require_skill_right(conn, principal, "delete")
    async with conn.transaction():
        found = await locked_skill(conn, principal, name)
        if await skills.has_sub_skills(conn, found.id):
            raise invalid([Problem("delete its sub-skills first", field="name")])
        await skills.delete_skill_record(conn, found.id)


def lesson_problems(text: str) -> list[Problem]:
    """Why a lesson (stripped) cannot be kept, if it cannot."""
    problems = body_problems(text, field_name="lesson")
    if not text or len(text) > MAX_LESSON_CHARS or "\n" in text:
        message = f"a lesson is one line of 1 to {MAX_LESSON_CHARS} characters"
        problems.append(Problem(message, field="lesson"))
    return problems


async def record_skill_use(
    conn: asyncpg.Connection, principal: Principal, name: str, lesson: str | None = None
) -> SkillRow:
    """Count a use of a readable skill (waking it if dormant), with an optional dated lesson."""
    async with conn.transaction():
        found = await locked_skill(conn, principal, name)
        text = None if lesson is None else lesson.strip()
        if text is not None:
            problems = lesson_problems(text)
            if problems:
                raise invalid(problems)
        await skills.record_use(conn, found.id, clock.now())
        if text is not None:
            await skills.insert_lesson(conn, found.id, clock.now().date(), text)
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
        version = NewVersion.after(found, body=draft)
        await add_version(conn, principal, version)
        await skills.fold_lessons(conn, found.id, version.number, [row.id for row in waiting])
        return await skill(conn, principal, name)
