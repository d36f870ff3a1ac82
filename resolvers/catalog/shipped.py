"""The skills the product ships (DESIGN §4): listed and read from their folders (package data
under ``resolvers/catalog/skills/``, whose names ``fields.SHIPPED_SKILL_NAMES`` reserves), and
added to a workspace through the import of ``/skills/import``, visible to the workspace."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import asyncpg

from db import skills
from db.skills import SkillRow
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.principals import Principal
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.drive import is_script
from resolvers.skills.fields import BUILT_IN_NAMES, SHIPPED_SKILLS_DIR, show
from resolvers.skills.folder import check_folder
from resolvers.skills.reading import skill
from resolvers.skills.transfer import import_folders, require_import_right

SHIPPED_VISIBILITY = "workspace"


@dataclass(frozen=True, slots=True)
class ShippedFile:
    """One file of a shipped skill besides SKILL.md."""

    path: str
    size: int
    script: bool


@dataclass(frozen=True, slots=True)
class ShippedSkill:
    """A skill the product ships, as its folder states it."""

    name: str
    description: str
    body: str
    skill_md: str
    files: tuple[ShippedFile, ...]
    folder: ArchiveFolder


def _read_folder(root: Path) -> ArchiveFolder:
    files = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts:  # left by running a script from the checkout
            continue
        relative = path.relative_to(root).as_posix()
        mode = 0o755 if relative.startswith("scripts/") else 0o644
        files[relative] = ArchiveFile(relative, path.read_bytes(), mode)
    return ArchiveFolder(root.name, files)


def _shipped(root: Path) -> ShippedSkill:
    folder = _read_folder(root)
    contents = {path: file.content for path, file in folder.files.items()}
    draft, drive, problems = check_folder(folder.name, contents, reserved=BUILT_IN_NAMES)
    if draft is None:  # a packaging mistake: the tests check every folder
        raise ValueError(f"shipped skill {folder.name}: {problems}")
    files = tuple(
        ShippedFile(path, len(content), is_script(path, folder.files[path].mode))
        for path, content in sorted(drive.items())
    )
    skill_md = contents["SKILL.md"].decode()
    return ShippedSkill(draft.name, draft.description, draft.body, skill_md, files, folder)


@cache
def shipped_skills() -> tuple[ShippedSkill, ...]:
    """Every skill the product ships, in name order (read once per process)."""
    folders = sorted(p for p in SHIPPED_SKILLS_DIR.iterdir() if (p / "SKILL.md").is_file())
    return tuple(_shipped(folder) for folder in folders)


def shipped_skill(name: str) -> ShippedSkill:
    """The shipped skill of this name; NOT_FOUND when the product ships none."""
    for one in shipped_skills():
        if one.name == name:
            return one
    raise DomainError(Code.NOT_FOUND, f"The product ships no skill named '{show(name)}'.")


async def add_shipped_skill(conn: asyncpg.Connection, principal: Principal, name: str) -> SkillRow:
    """Add a shipped skill to the workspace, visible to it, through the all-or-nothing import
    (the right to create skills needed); refused when a skill already has its name."""
    await require_import_right(conn, principal)
    found = shipped_skill(name)
    taken = await skills.skill_names(
        conn, [found.name], principal.readable_objects, principal.person_id
    )
    if taken:
        message = (
            f"a skill named {found.name} is already in this workspace: "
            "the product's skill is added once"
        )
        raise invalid([Problem(message, field="name")])
    await import_folders(
        conn,
        principal,
        [found.folder],
        visibility=SHIPPED_VISIBILITY,
        new_only=True,
        shipped=found.name,
    )
    return await skill(conn, principal, found.name)
