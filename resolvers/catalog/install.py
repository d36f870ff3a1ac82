"""Adding a skill from the catalogue (issue 15, item 5; DESIGN §4): exactly the commit a preview
answered, never what the reference names by then, through the all-or-nothing import of
``/skills/import``. A skill the product ships is visible to the workspace
(``shipped.add_shipped_skill``); a community skill stays private to the person who added it and
keeps its source (``community_source``).

Everything the request names is checked before any request leaves: the reference
(``refs.parse_source``), the commit (40 hex), the caller's right to create and update skills."""

from __future__ import annotations

from typing import Any

import asyncpg

from db.skills import SkillRow
from resolvers.catalog import shipped
from resolvers.catalog.errors import CatalogError
from resolvers.catalog.preview import COMMUNITY_VISIBILITY, SHIPPED_PREFIX, domain_error
from resolvers.catalog.refs import SHA, SourceRef, parse_source
from resolvers.catalog.settings import CatalogSettings
from resolvers.catalog.sources import fetch_commit
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.principals import Principal
from resolvers.skills.archive.members import ArchiveFolder
from resolvers.skills.guard import require_skill_right
from resolvers.skills.reading import skill
from resolvers.skills.transfer import import_folders

AGENT_REFUSED = (
    "An agent does not add a skill directly: its copy from the catalogue (copyFromCatalog) "
    "asks the person it works for to approve it."
)
FIRST_VERSION = 1  # what an import creates
BAD_COMMIT = "must be the full 40-hex commit the preview answered"
SHIPPED_COMMIT = "a skill the product ships has no commit: leave it out"


async def install(
    conn: asyncpg.Connection,
    principal: Principal,
    settings: CatalogSettings,
    source: str,
    commit: str | None,
) -> SkillRow:
    """Add ``source`` at ``commit`` (``shipped:<name>``: none) and answer the skill added.
    FORBIDDEN for an agent or a caller without the right to create and update skills;
    SCHEMA_VALIDATION_FAILED (every problem, nothing written) for a malformed reference or
    commit, a hostile or too big archive, a folder the product refuses, a name already taken;
    NOT_FOUND for a source or commit that is not there; INTERNAL when the source does not
    answer."""
    if principal.kind == "agent":
        raise DomainError(Code.FORBIDDEN, AGENT_REFUSED)
    text = source.strip()
    if text.startswith(SHIPPED_PREFIX):
        if commit is not None:
            raise invalid([Problem(SHIPPED_COMMIT, "commit")])
        return await shipped.add_shipped_skill(conn, principal, text.removeprefix(SHIPPED_PREFIX))
    ref = _checked(text, commit)
    await require_skill_right(conn, principal, "create")
    await require_skill_right(conn, principal, "update")
    assert commit is not None  # _checked refuses none
    try:
        fetched = await fetch_commit(settings, ref, commit)  # that sha, never the ref again
    except CatalogError as error:
        raise domain_error(error) from None
    folder = ArchiveFolder(fetched.folder.name, fetched.folder.files)
    kept = community_source(ref, commit, FIRST_VERSION)
    [added] = await import_folders(
        conn,
        principal,
        [folder],
        visibility=COMMUNITY_VISIBILITY,
        new_only=True,
        source=kept,
    )
    return await skill(conn, principal, added.name)


def community_source(ref: SourceRef, commit: str, version: int) -> dict[str, Any]:
    """What a community skill keeps of its source: the repository, the folder in it, the ref
    followed for updates, the commit installed and the skill's version that commit made (a
    later version was made here: a local change an update would lose)."""
    return {
        "kind": "community",
        "repository": ref.repository,
        "path": ref.path or "",
        "ref": ref.ref,
        "commit": commit,
        "version": version,
    }


def _checked(text: str, commit: str | None) -> SourceRef:
    """The reference and the commit held to their forms, every problem at once."""
    problems: list[Problem] = []
    ref: SourceRef | None = None
    try:
        ref = parse_source(text)
    except CatalogError as error:
        problems += error.problems
    if commit is None or not SHA.fullmatch(commit):
        problems.append(Problem(BAD_COMMIT, "commit"))
    if ref is None or problems:
        raise invalid(problems, "The install was refused: nothing was written.")
    return ref
