"""A fetched skill folder held to the product's folder rules (pure): checked, or refused with
every problem."""

from __future__ import annotations

from dataclasses import dataclass

from resolvers.catalog.errors import refused
from resolvers.common.errors import Problem
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.folder import check_folder
from resolvers.skills.skill_md import SkillDraft


@dataclass(frozen=True, slots=True)
class CheckedFolder:
    """A skill folder the product's rules accept: its SKILL.md as a draft, and every file
    (SKILL.md included) with its bytes and mode (0o755: a script)."""

    name: str
    draft: SkillDraft
    files: dict[str, ArchiveFile]

    @property
    def skill_md(self) -> bytes:
        return next(f.content for p, f in self.files.items() if p.lower() == "skill.md")


def checked(folder: ArchiveFolder, what: str) -> CheckedFolder:
    """``folder`` checked by ``check_folder``; a refusal with every problem (each at
    ``folder/<field>``) when the product would not take it."""
    contents = {path: file.content for path, file in folder.files.items()}
    draft, _, problems = check_folder(folder.name, contents)
    if problems or draft is None:
        located = [
            Problem(p.message, f"{folder.name}/{p.field}" if p.field else folder.name, p.line)
            for p in problems
        ]
        raise refused(f"{what} is not a skill the product accepts", located)
    return CheckedFolder(folder.name, draft, dict(folder.files))
