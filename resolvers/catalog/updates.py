"""Updates of the skills a person added from a repository (issue 15, item 6; DESIGN §4).

Opening the catalogue checks the caller's own community skills (``check_updates``): each
source's ref is resolved again, "update available" when it names another commit than the one
installed (with a warning first when the skill was changed here since: a version made after
the one its commit made), "source not found" when the repository or the ref is gone,
"unavailable" when the source does not answer. Nothing changes without a request: updating
(``update``) installs exactly the commit the check answered as a new version, through the
import's all-or-nothing path, and the skill keeps the new commit as its source."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

import asyncpg

from db import skills
from db.skills import SkillRow
from resolvers.catalog.errors import CatalogError
from resolvers.catalog.install import BAD_COMMIT, community_source
from resolvers.catalog.preview import COMMUNITY_VISIBILITY, domain_error
from resolvers.catalog.refs import SHA, SourceRef, parse_source
from resolvers.catalog.settings import CatalogSettings
from resolvers.catalog.sources import fetch_commit, resolve_commit
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.principals import Principal
from resolvers.skills.archive.members import ArchiveFolder
from resolvers.skills.guard import require_skill_right
from resolvers.skills.reading import skill
from resolvers.skills.transfer import import_folders

UpdateStatus = Literal["current", "update_available", "source_not_found", "unavailable"]
# Sources asked at once when the catalogue opens.
MAX_CONCURRENT_CHECKS = 8
AGENT_REFUSED = "An agent may not update a skill: the person it works for must."
NOT_COMMUNITY = "was not added from a repository: it has no source to update from"
CHANGED_HERE = (
    "{name} was changed here since it was installed (version {latest}, installed as version "
    "{installed}): updating replaces those changes with the source's. Confirm to update."
)
RENAMED = "the source's skill at that commit is named {found}, not {name}"


@dataclass(frozen=True, slots=True)
class UpdateCheck:
    """One community skill and what its source offers now."""

    skill: SkillRow
    source: SourceRef
    installed_commit: str
    status: UpdateStatus
    latest_commit: str | None  # what the ref names now (None unless the source answered)
    changed_here: bool
    warning: str | None  # shown before an update that would lose local changes


def _kept(row: SkillRow) -> tuple[SourceRef, str, int] | None:
    """The reference, commit and installed version a community skill keeps; None when its
    source is not a repository's (or is not readable as one)."""
    kept: dict[str, Any] = row.source or {}
    if kept.get("kind") != "community":
        return None
    try:
        found = parse_source(f"{kept['repository']}/{kept.get('path') or ''}".rstrip("/"))
    except (CatalogError, KeyError, TypeError):
        return None
    ref = SourceRef(found.owner, found.repo, found.path or "", str(kept.get("ref") or "HEAD"))
    return ref, str(kept.get("commit", "")), int(kept.get("version") or 1)


def _warning(row: SkillRow, installed_version: int) -> str | None:
    if row.latest_version == installed_version:
        return None
    return CHANGED_HERE.format(
        name=row.name, latest=row.latest_version, installed=installed_version
    )


async def _latest(settings: CatalogSettings, ref: SourceRef) -> tuple[UpdateStatus, str | None]:
    try:
        return "current", await resolve_commit(settings, ref)
    except CatalogError as error:
        return ("source_not_found" if error.reason == "not_found" else "unavailable"), None


async def check_updates(
    conn: asyncpg.Connection, principal: Principal, settings: CatalogSettings
) -> list[UpdateCheck]:
    """The caller's own community skills, each with what its source offers now (one request
    per repository and ref, a few at a time); none for a caller acting for no person."""
    if principal.person_id is None:
        return []
    rows = await skills.community_skills(conn, principal.readable_objects, principal.person_id)
    kept = [(row, found) for row in rows if (found := _kept(row)) is not None]
    wanted = {(ref.repository, ref.ref): ref for _, (ref, _, _) in kept}
    gate = asyncio.Semaphore(MAX_CONCURRENT_CHECKS)

    async def ask(ref: SourceRef) -> tuple[UpdateStatus, str | None]:
        async with gate:
            return await _latest(settings, ref)

    answers = dict(zip(wanted, await asyncio.gather(*map(ask, wanted.values())), strict=True))
    checks: list[UpdateCheck] = []
    for row, (ref, commit, version) in kept:
        status, latest = answers[(ref.repository, ref.ref)]
        if status == "current" and latest != commit:
            status = "update_available"
        warning = _warning(row, version) if status == "update_available" else None
        changed = row.latest_version != version
        checks.append(UpdateCheck(row, ref, commit, status, latest, changed, warning))
    return checks


async def update(
    conn: asyncpg.Connection,
    principal: Principal,
    settings: CatalogSettings,
    name: str,
    commit: str,
    confirm: bool = False,
) -> SkillRow:
    """Install ``commit`` of the source ``name`` was added from, as its new version, and keep
    that commit as its source. FORBIDDEN for an agent or without the right to update skills;
    NOT_FOUND for a skill the caller cannot read; SCHEMA_VALIDATION_FAILED for a skill not
    added from a repository, a malformed commit, a refused archive or folder, a skill renamed
    at the source; MEMORY_PRECONDITION_FAILED (the warning) when the skill was changed here
    and ``confirm`` is not set."""
    if principal.kind == "agent":
        raise DomainError(Code.FORBIDDEN, AGENT_REFUSED)
    row = await skill(conn, principal, name)
    found = _kept(row)
    problems = [] if found else [Problem(NOT_COMMUNITY, "name")]
    if not SHA.fullmatch(commit):
        problems.append(Problem(BAD_COMMIT, "commit"))
    if found is None or problems:
        raise invalid(problems, "The update was refused: nothing was written.")
    ref, _, version = found
    warning = _warning(row, version)
    if warning and not confirm:
        raise DomainError(Code.MEMORY_PRECONDITION_FAILED, warning, [Problem(warning, "confirm")])
    await require_skill_right(conn, principal, "update")
    try:
        fetched = await fetch_commit(settings, ref, commit)
    except CatalogError as error:
        raise domain_error(error) from None
    if fetched.folder.name != row.name:
        message = RENAMED.format(found=fetched.folder.name, name=row.name)
        raise invalid([Problem(message, "commit")], "The update was refused: nothing was written.")
    folder = ArchiveFolder(fetched.folder.name, fetched.folder.files)
    [result] = await import_folders(conn, principal, [folder], visibility=COMMUNITY_VISIBILITY)
    await skills.set_skill_source(conn, row.id, community_source(ref, commit, result.version))
    return await skill(conn, principal, name)
