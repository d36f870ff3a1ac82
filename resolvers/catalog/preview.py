"""A preview of what adding a skill from the catalogue would land (issue 15, item 4; DESIGN §4):
its SKILL.md as plain text, every file with its size and whether it is a script (and by which
rule), its source pinned to the commit the reference resolves to now, who will see it once
added, whether a skill already has its name, and every problem the product's folder rules find.
Nothing is written; the only things read are the shipped folders and ``source_base_url``.

A source is ``shipped:<name>`` (a skill the product ships) or a repository reference
``owner/repo[/path][@ref]`` (``refs.parse_source`` refuses anything else before any request)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import asyncpg

from db import skills
from resolvers.catalog import shipped
from resolvers.catalog.errors import CatalogError
from resolvers.catalog.refs import parse_source
from resolvers.catalog.settings import CatalogSettings
from resolvers.catalog.sources import fetch_folder, resolve_commit
from resolvers.common.errors import Code, DomainError, Problem
from resolvers.common.principals import Principal
from resolvers.skills.archive.members import ArchiveFolder
from resolvers.skills.drive import SCRIPT_FOLDER, SCRIPT_SUFFIXES
from resolvers.skills.fields import BUILT_IN_NAMES, RESERVED_NAMES
from resolvers.skills.folder import check_folder

SHIPPED_PREFIX = "shipped:"
# Who sees a skill once added (issue 15, item 5): the product's own skills the workspace, a
# community skill only the person who added it.
COMMUNITY_VISIBILITY = "private"

# Why a file is a script, the first rule that holds (``resolvers.skills.drive.is_script``):
# its mode is executable (0755 in the archive), it is under scripts/, or its extension is one
# of ``SCRIPT_SUFFIXES`` (.sh .bash .py .js .ts .rb .pl).
ScriptRule = Literal["executable", "scripts_folder", "extension"]


def script_rule(path: str, mode: int) -> ScriptRule | None:
    """The rule that makes ``path`` a script, or None: the same test as ``is_script``."""
    if mode & 0o111:
        return "executable"
    if path.startswith(SCRIPT_FOLDER):
        return "scripts_folder"
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot > 0 and name[dot:].lower() in SCRIPT_SUFFIXES:
        return "extension"
    return None


@dataclass(frozen=True, slots=True)
class PreviewFile:
    """One file that would land (SKILL.md included)."""

    path: str
    size: int
    script: ScriptRule | None


@dataclass(frozen=True, slots=True)
class Preview:
    """What adding ``source`` would land. ``repository``, ``path`` and ``commit`` are None for
    a shipped skill; ``commit`` is the full sha an install names to get exactly this."""

    source: str
    shipped: bool
    name: str
    description: str | None
    skill_md: str | None
    files: list[PreviewFile]
    visibility: str
    name_taken: bool
    problems: list[Problem] = field(default_factory=list)
    repository: str | None = None
    path: str | None = None
    ref: str | None = None
    commit: str | None = None

    @property
    def acceptable(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class _Folder:
    name: str
    description: str | None
    skill_md: str | None
    files: list[PreviewFile]
    problems: list[Problem]


def _read(folder: ArchiveFolder, reserved: frozenset[str]) -> _Folder:
    """``folder`` held to the product's folder rules: every problem (each at
    ``folder/<field>``), and what can be shown whatever they are."""
    contents = {path: file.content for path, file in folder.files.items()}
    draft, _, found = check_folder(folder.name, contents, reserved=reserved)
    body = next((contents[n] for n in ("SKILL.md", "skill.md") if n in contents), None)
    files = [
        PreviewFile(path, len(file.content), script_rule(path, file.mode))
        for path, file in sorted(folder.files.items())
    ]
    problems = [
        Problem(p.message, f"{folder.name}/{p.field}" if p.field else folder.name, p.line)
        for p in found
    ]
    return _Folder(
        draft.name if draft else folder.name,
        draft.description if draft else None,
        body.decode("utf-8", errors="replace") if body is not None else None,
        files,
        problems,
    )


async def _taken(conn: asyncpg.Connection, principal: Principal, name: str) -> bool:
    """A skill of this name is in the workspace, readable by the caller or not (an install
    would be refused)."""
    found = await skills.skill_names(conn, [name], principal.readable_objects, principal.person_id)
    return bool(found)


async def preview(
    conn: asyncpg.Connection,
    principal: Principal,
    settings: CatalogSettings,
    source: str,
    commit: str | None = None,
) -> Preview:
    """The preview of ``source``; SCHEMA_VALIDATION_FAILED for a malformed reference or an
    archive refused as hostile or too big or a folder the archive does not hold (every
    problem), NOT_FOUND for a shipped name, a repository or a ref that is not there, INTERNAL
    (its message kept) when the source does not answer. With ``commit``, that commit of the
    repository rather than the one its ref names now."""
    text = source.strip()
    if text.startswith(SHIPPED_PREFIX):
        return await _shipped(conn, principal, text.removeprefix(SHIPPED_PREFIX))
    try:
        return await _community(conn, principal, settings, text, commit)
    except CatalogError as error:
        raise domain_error(error) from None


async def _shipped(conn: asyncpg.Connection, principal: Principal, name: str) -> Preview:
    found = shipped.shipped_skill(name)
    folder = _read(found.folder, BUILT_IN_NAMES)
    return Preview(
        source=f"{SHIPPED_PREFIX}{found.name}",
        shipped=True,
        name=found.name,
        description=folder.description,
        skill_md=folder.skill_md,
        files=folder.files,
        visibility=shipped.SHIPPED_VISIBILITY,
        name_taken=await _taken(conn, principal, found.name),
        problems=folder.problems,
    )


async def _community(
    conn: asyncpg.Connection,
    principal: Principal,
    settings: CatalogSettings,
    text: str,
    commit: str | None,
) -> Preview:
    ref = parse_source(text)  # before any request: nothing else ever names a URL
    commit = commit or await resolve_commit(settings, ref)
    folder = _read(await fetch_folder(settings, ref, commit), RESERVED_NAMES)
    return Preview(
        source=str(ref),
        shipped=False,
        name=folder.name,
        description=folder.description,
        skill_md=folder.skill_md,
        files=folder.files,
        visibility=COMMUNITY_VISIBILITY,
        name_taken=await _taken(conn, principal, folder.name),
        problems=folder.problems,
        repository=ref.repository,
        path=ref.path or "",
        ref=ref.ref,
        commit=commit,
    )


def domain_error(error: CatalogError) -> DomainError:
    """A catalogue failure as the client sees it. A source that does not answer has no code of
    its own in DESIGN §8 (DB_UNAVAILABLE is the database's): INTERNAL, its message kept, with
    a problem at ``source``."""
    if error.reason == "unavailable":
        return DomainError(Code.INTERNAL, error.message, [Problem(error.message, "source")])
    return error.domain_error()
