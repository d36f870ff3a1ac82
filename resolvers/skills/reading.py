"""Skills as the caller may read them (DESIGN §3): a skill at a version, its activation, the
catalog a prompt lists, its files, versions, sub-skills and lessons, pages of skills."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from db import skill_polish, skills
from db.skill_polish import PolishRow
from db.skills import ActivationRow, CatalogEntryRow, FileRow, SkillRow, VersionRow
from resolvers.agents.agents import caller_agent
from resolvers.common import clock
from resolvers.common.errors import Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.skills.dormancy import dormant_since
from resolvers.skills.drive import is_script, readable_path
from resolvers.skills.form import FormCheck, form_check
from resolvers.skills.lessons import Lesson

# Where an activated skill's folder is written (DESIGN §3).
SKILL_DIRECTORIES = {
    "sandbox": "/workspace/skills/{name}/",
    "harness": "$HOME/.standards/skills/{name}/",
}


@dataclass(frozen=True, slots=True)
class Activation:
    name: str
    version: int
    body: str
    directory: str
    files: list[FileRow]
    sub_skills: list[str]


def skill_directory(name: str, target: str) -> str:
    """Where a skill's folder is written for a ``sandbox`` or a ``harness`` agent."""
    return SKILL_DIRECTORIES[target].format(name=name)


def script_flag(file: FileRow) -> bool:
    """Whether a drive file is a script."""
    return is_script(file.path, file.mode)


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
    """The body, the folder it is written to and its file list (one statement); no version:
    an agent's attached version, else the latest."""
    row: ActivationRow | None = await skills.skill_activation(
        conn,
        name,
        version,
        principal.readable_objects,
        principal.person_id,
        caller_agent(principal),
    )
    if row is None:
        raise not_found("skill")
    directory = skill_directory(row.name, target)
    shown = [f for f in row.files if readable_path(f.path)]
    return Activation(row.name, row.version, row.content, directory, shown, row.sub_skills)


async def catalog(conn: asyncpg.Connection, principal: Principal) -> list[CatalogEntryRow]:
    """What a model's prompt lists: names and descriptions, dormant skills without theirs
    (dormancy decided by the statement, against the one clock)."""
    return await skills.skill_catalog_entries(
        conn,
        principal.readable_objects,
        principal.person_id,
        caller_agent(principal),
        dormant_since(clock.now()),
    )


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


async def polishes(conn: asyncpg.Connection, found: SkillRow) -> list[PolishRow]:
    """The automatic polish's looks at a readable skill, newest first (what came of each, and
    why)."""
    return await skill_polish.polishes(conn, found.id)


async def lessons(conn: asyncpg.Connection, found: SkillRow) -> list[Lesson]:
    """The lessons waiting to be folded into a skill's body."""
    return [Lesson(row.day, row.text) for row in await skills.waiting_lessons(conn, found.id)]


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
