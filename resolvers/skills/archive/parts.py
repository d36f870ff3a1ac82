"""Reading a skill folder uploaded as files (pure: no database, nothing written to disk).

The Anthropic SDK uploads a skill as one multipart part per file, named ``files[]``, each with
its path in the folder as its file name (``my-skill/SKILL.md``, ``my-skill/scripts/run.py``).
``read_parts`` holds those paths to the archive's rules (the shared path validator, the layout:
no duplicate, no case collision, no file named like a folder) and limits, and answers the one
folder they make, or every problem found."""

from __future__ import annotations

from dataclasses import dataclass

from resolvers.common.errors import Code, DomainError, Problem
from resolvers.skills.archive import limits
from resolvers.skills.archive.layout import layout_problems, path_problem
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder, Member, normal_mode
from resolvers.skills.archive.problems import shown

FIELD = "files[]"
EXPECTED = "one folder holding SKILL.md, each file named by its path, like my-skill/SKILL.md"


@dataclass(frozen=True, slots=True)
class Part:
    """One uploaded file: the file name the client sent (None: none) and its bytes."""

    filename: str | None
    content: bytes


def read_parts(parts: list[Part]) -> ArchiveFolder:
    """The skill folder the parts make, or DomainError listing every problem."""
    problems: list[Problem] = []
    if not parts:
        problems.append(Problem(f"no file was uploaded: expected {EXPECTED}", field=FIELD))
    members: list[Member] = []
    for index, part in enumerate(parts):
        if not part.filename:
            message = f"part {index + 1} has no file name: expected {EXPECTED}"
            problems.append(Problem(message, field=FIELD))
            continue
        reason = path_problem(part.filename)
        if reason is not None:
            problems.append(_problem(part.filename, reason))
        if len(part.content) > limits.MAX_FILE_BYTES:
            message = (
                f"is {len(part.content)} bytes, more than the limit of {limits.MAX_FILE_BYTES}"
            )
            problems.append(_problem(part.filename, message))
        members.append(Member(part.filename, part.filename, "file", len(part.content), 0o644))
    problems += [_from_layout(p) for p in layout_problems(members)]
    problems += _whole_problems(parts, members)
    if problems:
        raise refused(problems)
    top = members[0].path.split("/", 1)[0]
    files = {
        member.path.split("/", 1)[1]: ArchiveFile(
            member.path.split("/", 1)[1], part.content, normal_mode(member.mode)
        )
        for member, part in zip(members, parts, strict=True)
    }
    return ArchiveFolder(top, {path: files[path] for path in sorted(files)})


def _whole_problems(parts: list[Part], members: list[Member]) -> list[Problem]:
    """More than one top-level folder, too many files, too many bytes."""
    problems: list[Problem] = []
    tops = sorted(
        {m.path.split("/", 1)[0] for m in members if "/" in m.path and not path_problem(m.path)}
    )
    if len(tops) > 1:
        names = ", ".join(shown(top) for top in tops)
        message = f"every file sits in one top-level folder, these sit in {len(tops)}: {names}"
        problems.append(Problem(message, field=FIELD))
    if len(parts) > limits.MAX_ENTRIES:
        message = f"{len(parts)} files, more than the limit of {limits.MAX_ENTRIES}"
        problems.append(Problem(message, field=FIELD))
    total = sum(len(part.content) for part in parts)
    if total > limits.MAX_TOTAL_BYTES:
        message = f"{total} bytes of files, more than the limit of {limits.MAX_TOTAL_BYTES}"
        problems.append(Problem(message, field=FIELD))
    return problems


def _from_layout(problem: Problem) -> Problem:
    """An archive's layout problem worded for uploaded files."""
    message = problem.message
    if message.startswith("is at the archive root"):
        message = f"is in no folder: expected {EXPECTED}"
    message = message.replace("in the archive", "in the upload")
    return Problem(message, field=FIELD + (problem.field or "").removeprefix("archive"))


def _problem(name: str, message: str) -> Problem:
    return Problem(message, field=f"{FIELD}/{shown(name)}")


def refused(problems: list[Problem]) -> DomainError:
    """The upload refused, its first problem in the message and every one listed."""
    first = problems[0]
    more = len(problems) - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return DomainError(
        Code.SCHEMA_VALIDATION_FAILED,
        f"The upload was refused: {first.field}: {first.message}{tail}.",
        problems,
    )
