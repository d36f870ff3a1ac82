"""The Agent Skills discovery index a site publishes (issue 15, item 2; agentskills.io's
"Well-Known URI", schema 0.2.0): ``{site}/.well-known/agent-skills/index.json``, or the older
``{site}/.well-known/skills/index.json`` when that is 404. A 0.2.0 entry's artifact (a SKILL.md
or an archive of the folder's files) is fetched from its ``url`` (resolved against the index's
URL), checked against its sha256 ``digest``, read as hostile input and checked as a folder; an
older entry's files are fetched one by one under ``{index folder}/{name}/``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit

from resolvers.catalog.answers import SCHEMA_0_2, DiscoveryIndex, LegacyIndex, LegacySkill, parse
from resolvers.catalog.errors import CatalogError, not_found, refused
from resolvers.catalog.folders import CheckedFolder, checked
from resolvers.catalog.settings import CatalogSettings
from resolvers.catalog.transport import get
from resolvers.common.errors import DomainError, Problem
from resolvers.skills.archive.layout import path_problem
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.subtree import Subtree

INDEX_PATHS = (".well-known/agent-skills/index.json", ".well-known/skills/index.json")
ARTIFACT_TYPES = ("skill-md", "archive")


@dataclass(frozen=True, slots=True)
class SiteIndex:
    """A site's index: where it was read, and its skills (0.2.0 or the older form)."""

    url: str
    index: DiscoveryIndex | LegacyIndex


async def read_index(settings: CatalogSettings, site: str) -> SiteIndex:
    """The discovery index ``site`` (a base URL) publishes; ``CatalogError`` not_found when
    it publishes none, refused when it is malformed (an unknown ``$schema`` included)."""
    if urlsplit(site).scheme not in ("http", "https"):
        raise refused(f"'{site}' is not an http(s) site")
    base = site.rstrip("/") + "/"
    for path in INDEX_PATHS:
        try:
            fetched = await get(
                settings, base + path, cap=settings.max_json_bytes, what=f"{base}{path}"
            )
        except CatalogError as error:
            if error.reason == "not_found":
                continue
            raise
        return SiteIndex(fetched.url, _parse_index(fetched.body, fetched.url))
    raise not_found(f"{site} publishes no skills index")


def _parse_index(body: bytes, url: str) -> DiscoveryIndex | LegacyIndex:
    if b'"$schema"' in body:
        return parse(DiscoveryIndex, body, f"the skills index {url}")
    return parse(LegacyIndex, body, f"the skills index {url} (without $schema)")


async def fetch_indexed(settings: CatalogSettings, site: SiteIndex, name: str) -> CheckedFolder:
    """The skill ``name`` of ``site``'s index, fetched, verified and checked; ``CatalogError``
    not_found when the index has no such skill (or none of a known type) or its artifact is
    gone, refused with every problem of what came back."""
    index = site.index
    if isinstance(index, LegacyIndex):
        legacy = next((s for s in index.skills if s.name == name), None)
        if legacy is None:
            raise not_found(f"the skills index {site.url} has no skill '{name}'")
        return await _fetch_legacy(settings, site.url, legacy)
    entry = next((s for s in index.skills if s.name == name and s.type in ARTIFACT_TYPES), None)
    if entry is None:
        raise not_found(f"the skills index {site.url} has no skill '{name}' of a known type")
    url = urljoin(site.url, entry.url)
    if urlsplit(url).scheme not in ("http", "https"):
        raise refused(f"the skill '{name}' is at '{entry.url}', not an http(s) URL")
    archive = entry.type == "archive"
    cap = settings.max_archive_bytes if archive else settings.max_json_bytes
    fetched = await get(settings, url, cap=cap, what=f"the skill '{name}' at {url}")
    if "sha256:" + hashlib.sha256(fetched.body).hexdigest() != entry.digest:
        raise refused(
            f"the skill '{name}' does not match its digest",
            [Problem("the artifact's sha256 is not the index's digest", "digest")],
        )
    if not archive:
        skill_md = ArchiveFile("SKILL.md", fetched.body, 0o644)
        return checked(ArchiveFolder(name, {"SKILL.md": skill_md}), f"the skill '{name}'")
    try:
        folders = read_archive(
            fetched.body, filename=url, content_type=fetched.content_type, subtree=Subtree(name)
        )
    except DomainError as error:
        raise CatalogError("refused", f"the skill '{name}' was refused", error.problems) from None
    return checked(folders[0], f"the skill '{name}'")


async def _fetch_legacy(settings: CatalogSettings, url: str, skill: LegacySkill) -> CheckedFolder:
    """An older entry's files, each under its cap, the total under the archive cap."""
    problems = [
        Problem(reason, f"files/{path}")
        for path in skill.files
        if (reason := path_problem(path)) is not None
    ]
    if problems:
        raise refused(f"the skill '{skill.name}' names files it may not", problems)
    base = urljoin(url, f"{quote(skill.name, safe='')}/")
    files: dict[str, ArchiveFile] = {}
    total = 0
    for path in dict.fromkeys(skill.files):
        left = settings.max_archive_bytes - total
        fetched = await get(settings, urljoin(base, quote(path)), cap=left, what=f"{base}{path}")
        total += len(fetched.body)
        files[path] = ArchiveFile(path, fetched.body, 0o644)
    return checked(ArchiveFolder(skill.name, files), f"the skill '{skill.name}'")


__all__ = ["SCHEMA_0_2", "SiteIndex", "fetch_indexed", "read_index"]
