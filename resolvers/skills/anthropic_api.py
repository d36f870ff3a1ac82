"""Skills as the official Anthropic SDK reads and writes them (issue 14, item 2), over the same
skills GraphQL, ``/skills/export`` and the CLI see.

- An upload (``create``, ``versions.create``) is a folder of files that goes through the import
  path (``transfer.import_folders``): all or nothing, every problem listed. Its SKILL.md name is
  the skill's name, fixed at creation: a version whose folder names another is refused.
- A version is one of the skill's immutable versions. An upload identical to the latest adds
  none: the latest is answered.
- Deleting a skill deletes it with every version (as GraphQL's ``deleteSkill``; a skill with
  sub-skills is refused). Deleting a version withdraws it from these routes only: it stays in the
  skill's history. The latest version is never deleted (a skill always holds one version, and
  the latest is what GraphQL, export and agents read): upload a new version first, or delete the
  skill.
- Every skill here is ``custom``: none is Anthropic's, so ``source=anthropic`` lists nothing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from db import skill_sdk, skills
from db.skill_sdk import SdkSkillRow, SdkVersionRow
from resolvers.common import clock
from resolvers.common.errors import DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.skills import writing
from resolvers.skills.archive.members import ArchiveFolder
from resolvers.skills.archive.parts import FIELD, Part, read_parts
from resolvers.skills.archive.write import write_zip
from resolvers.skills.guard import locked_skill, require_skill_right
from resolvers.skills.transfer import export_version, import_folders, require_import_right

MAX_DISPLAY_NAME_CHARS = 255
SOURCES = ("custom", "anthropic")


@dataclass(frozen=True, slots=True)
class SdkVersion:
    """A version as the SDK reads it: the skill's name is every version's name."""

    skill_id: UUID
    public_id: UUID
    number: int
    name: str
    description: str
    created_at: datetime


def display_name_problems(label: str | None) -> list[Problem]:
    """A label is one line of 1 to 255 characters, without control characters."""
    if label is None:
        return []
    if not 1 <= len(label) <= MAX_DISPLAY_NAME_CHARS or any(
        ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029" for c in label
    ):
        message = f"one line of 1 to {MAX_DISPLAY_NAME_CHARS} characters, no control character"
        return [Problem(message, field="display_name")]
    return []


async def _folder(parts: list[Part], found: list[Problem]) -> ArchiveFolder:
    """The uploaded folder; every problem of the upload and ``found`` when there is any."""
    try:
        # Checking paths and sizes is CPU work on hostile input: off the event loop.
        return await asyncio.to_thread(read_parts, parts)
    except DomainError as error:
        message = "The upload was refused: nothing was written."
        raise invalid([*error.problems, *found], message) from None


async def create_skill(
    conn: asyncpg.Connection, principal: Principal, parts: list[Part], label: str | None
) -> SdkSkillRow:
    """A new skill from an uploaded folder (version 1), visible to the workspace."""
    await require_import_right(conn, principal)
    found = display_name_problems(label)
    folder = await _folder(parts, found)
    await import_folders(conn, principal, [folder], new_only=True, found_before=found)
    (row,) = await skills.skill_names(
        conn, [folder.name], principal.readable_objects, principal.person_id
    )
    if label is not None:
        await skill_sdk.set_display_name(conn, row.id, label)
    return await skill(conn, principal, row.id)


async def create_version(
    conn: asyncpg.Connection, principal: Principal, skill_id: UUID, parts: list[Part]
) -> SdkVersion:
    """A new version of a readable skill from an uploaded folder named like the skill."""
    found = await skill(conn, principal, skill_id)
    await require_skill_right(conn, principal, "update")
    folder = await _folder(parts, [])
    renamed = []
    if folder.name != found.name:
        message = (
            f"the skill's name is fixed at creation ({found.name}): this upload's folder and "
            f"SKILL.md name {folder.name}"
        )
        renamed.append(Problem(message, field=FIELD))
    await import_folders(conn, principal, [folder], found_before=renamed)
    return await version(conn, principal, skill_id, None)


async def skill(conn: asyncpg.Connection, principal: Principal, skill_id: UUID) -> SdkSkillRow:
    """A skill the caller may read; NOT_FOUND otherwise, as for a missing one."""
    row = await skill_sdk.sdk_skill(conn, skill_id, principal.readable_objects, principal.person_id)
    if row is None:
        raise not_found("skill")
    return row


async def skills_page(
    conn: asyncpg.Connection, principal: Principal, *, after: str, limit: int, source: str | None
) -> tuple[list[SdkSkillRow], bool]:
    """Readable skills in name order after the name ``after``; and whether more follow."""
    if source == "anthropic":
        return [], False
    rows = await skill_sdk.sdk_skills_page(
        conn, principal.readable_objects, principal.person_id, after_name=after, limit=limit + 1
    )
    return rows[:limit], len(rows) > limit


def _version(found: SdkSkillRow, row: SdkVersionRow) -> SdkVersion:
    return SdkVersion(
        found.id, row.public_id, row.version, found.name, row.description, row.created_at
    )


async def versions_page(
    conn: asyncpg.Connection, principal: Principal, skill_id: UUID, *, after: int, limit: int
) -> tuple[list[SdkVersion], bool]:
    """A readable skill's versions not deleted, oldest first, after the number ``after``."""
    found = await skill(conn, principal, skill_id)
    rows = await skill_sdk.sdk_versions_page(conn, skill_id, after_version=after, limit=limit + 1)
    return [_version(found, row) for row in rows[:limit]], len(rows) > limit


async def version(
    conn: asyncpg.Connection, principal: Principal, skill_id: UUID, public_id: UUID | None
) -> SdkVersion:
    """One version of a readable skill (None: the latest); NOT_FOUND for a deleted one."""
    found = await skill(conn, principal, skill_id)
    row = await skill_sdk.sdk_version(conn, skill_id, public_id)
    if row is None:
        raise not_found("skill version")
    return _version(found, row)


async def download(
    conn: asyncpg.Connection, principal: Principal, skill_id: UUID, public_id: UUID | None
) -> tuple[str, bytes]:
    """A version's folder as the zip ``/skills/export`` writes, and the skill's name."""
    found = await version(conn, principal, skill_id, public_id)
    folder = await export_version(conn, principal, found.name, found.number)
    return found.name, write_zip([folder])


async def delete_skill(conn: asyncpg.Connection, principal: Principal, skill_id: UUID) -> None:
    """Delete a readable skill with every version (refused while it has sub-skills)."""
    found = await skill(conn, principal, skill_id)
    await writing.delete_skill(conn, principal, found.name)


async def delete_version(
    conn: asyncpg.Connection, principal: Principal, skill_id: UUID, public_id: UUID | None
) -> SdkVersion:
    """Withdraw a version from these routes (it stays in the skill's history); the latest
    (``public_id`` None, or named by its id) is refused."""
    found = await version(conn, principal, skill_id, public_id)
    await require_skill_right(conn, principal, "delete")
    held = await locked_skill(conn, principal, found.name)
    if found.number == held.latest_version:
        message = (
            "the latest version is the skill's current content and a skill keeps at least one "
            "version: upload a new version first, or delete the skill"
        )
        raise invalid([Problem(message, field="version")])
    await skill_sdk.withdraw_version(conn, skill_id, found.number, clock.now())
    return found
