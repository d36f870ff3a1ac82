"""A skill from a repository (issue 15, item 2), through a GitHub-style API at
``source_base_url``: the reference resolved to a commit (``GET /repos/{owner}/{repo}/commits/
{ref}`` → ``{"sha": ...}``), then that commit's archive (``GET /repos/{owner}/{repo}/tarball/
{sha}``) read as hostile input and its skill folder checked. Nothing is written."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from resolvers.catalog.answers import Commit, parse
from resolvers.catalog.errors import CatalogError, not_found
from resolvers.catalog.folders import CheckedFolder, checked
from resolvers.catalog.refs import SHA, SourceRef
from resolvers.catalog.settings import CatalogSettings
from resolvers.catalog.transport import get
from resolvers.common.errors import DomainError
from resolvers.skills.archive.members import ArchiveFolder
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.subtree import Subtree


@dataclass(frozen=True, slots=True)
class SourceSkill:
    """A checked skill folder, and where it came from: the reference and its commit."""

    source: SourceRef
    commit: str
    folder: CheckedFolder


def _headers(settings: CatalogSettings, accept: str) -> dict[str, str]:
    headers = {"Accept": accept, "X-GitHub-Api-Version": "2022-11-28"}
    if settings.source_token:
        headers["Authorization"] = f"Bearer {settings.source_token}"
    return headers


def _repo_url(settings: CatalogSettings, source: SourceRef) -> str:
    owner, repo = quote(source.owner, safe=""), quote(source.repo, safe="")
    return f"{settings.source_base_url.rstrip('/')}/repos/{owner}/{repo}"


async def resolve_commit(settings: CatalogSettings, source: SourceRef) -> str:
    """The full sha ``source``'s ref names now; ``CatalogError`` not_found when the repository
    or the ref does not exist, unavailable, or refused (a malformed answer)."""
    url = f"{_repo_url(settings, source)}/commits/{quote(source.ref, safe='/')}"
    fetched = await get(
        settings,
        url,
        cap=settings.max_json_bytes,
        what=f"the source {source.repository}",
        headers=_headers(settings, "application/vnd.github+json"),
    )
    return parse(Commit, fetched.body, f"the source {source.repository}'s commit").sha


async def fetch_commit(
    settings: CatalogSettings, source: SourceRef, commit: str, skill: str | None = None
) -> SourceSkill:
    """The skill folder of ``source`` at exactly ``commit`` (a full sha), read from the
    commit's archive and checked; ``CatalogError`` refused with every problem of a hostile
    archive, of a folder that is not there or that the product would refuse, not_found when
    the commit is not there, unavailable. With no folder in ``source``, ``skill`` (a directory
    result's ``skillId``) finds it: the repository's root if it holds a SKILL.md, else the
    shallowest folder of that name; with neither, the repository's root."""
    folder = await fetch_folder(settings, source, commit, skill)
    return SourceSkill(source, commit, checked(folder, f"{source} at {commit[:12]}"))


async def fetch_folder(
    settings: CatalogSettings, source: SourceRef, commit: str, skill: str | None = None
) -> ArchiveFolder:
    """``fetch_commit``'s folder before the product's folder rules: read from the archive as
    hostile input (refused with every problem), not yet checked (a preview lists what the
    rules would refuse)."""
    if not SHA.fullmatch(commit):
        raise not_found(f"'{commit}' is not a commit of {source.repository}")
    what = f"the archive of {source.repository} at {commit[:12]}"
    fetched = await get(
        settings,
        f"{_repo_url(settings, source)}/tarball/{commit}",
        cap=settings.max_archive_bytes,
        what=what,
        headers=_headers(settings, "application/vnd.github+json"),
    )
    path = source.path if source.path is not None or skill is not None else ""
    name = (source.path or "").rsplit("/", 1)[-1] or skill or source.repo
    subtree = Subtree(name=name, path=path, wrapped=True)
    try:
        folders = read_archive(fetched.body, content_type=fetched.content_type, subtree=subtree)
    except DomainError as error:
        raise CatalogError("refused", f"{what} was refused", error.problems) from None
    return folders[0]


async def fetch_source(
    settings: CatalogSettings, source: SourceRef, skill: str | None = None
) -> SourceSkill:
    """``source`` resolved to its commit now, and that commit's skill folder
    (``fetch_commit``): a preview; an install later fetches the same commit again."""
    commit = await resolve_commit(settings, source)
    return await fetch_commit(settings, source, commit, skill)
