"""A repository reference (pure): ``owner/repo``, optionally a folder inside it and a ref,
written ``owner/repo[/path/inside][@ref]`` (``anthropics/skills/skills/pdf@main``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from resolvers.catalog.errors import CatalogError, refused
from resolvers.common.errors import Problem

# GitHub's rules, a little narrower: an owner is letters, digits and single hyphens; a
# repository also allows "." and "_" (never "." or ".." alone).
OWNER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}")
REPO = re.compile(r"[A-Za-z0-9._-]{1,100}")
REF = re.compile(r"[A-Za-z0-9._/-]{1,200}")
PATH_SEGMENT = re.compile(r"[A-Za-z0-9._ -]{1,255}")
SHA = re.compile(r"[0-9a-f]{40}")
MAX_PATH_SEGMENTS = 10


@dataclass(frozen=True, slots=True)
class SourceRef:
    """A repository, a folder inside it ("" for its root, None: found by the skill's name)
    and a ref (a branch, a tag or a commit; HEAD: the default branch)."""

    owner: str
    repo: str
    path: str | None = None
    ref: str = "HEAD"

    @property
    def repository(self) -> str:
        return f"{self.owner}/{self.repo}"

    def __str__(self) -> str:
        path = f"/{self.path}" if self.path else ""
        ref = "" if self.ref == "HEAD" else f"@{self.ref}"
        return f"{self.repository}{path}{ref}"


def parse_source(text: str, field: str = "source") -> SourceRef:
    """The reference ``text`` names, or a refusal listing every part that is wrong."""
    body, _, ref = text.strip().partition("@")
    parts = body.split("/")
    problems: list[Problem] = []
    if len(parts) < 2:
        raise refused(
            f"'{text}' is not a repository reference (owner/repo[/path][@ref])",
            [Problem("is not owner/repo[/path][@ref]", field)],
        )
    owner, repo, path = parts[0], parts[1], parts[2:]
    if not OWNER.fullmatch(owner):
        problems.append(Problem(f"'{owner}' is not a repository owner", field))
    if not REPO.fullmatch(repo) or repo in (".", ".."):
        problems.append(Problem(f"'{repo}' is not a repository name", field))
    if len(path) > MAX_PATH_SEGMENTS or any(
        not PATH_SEGMENT.fullmatch(s) or s in (".", "..") for s in path
    ):
        problems.append(Problem("the folder inside the repository is not a plain path", field))
    if "@" in text and (not REF.fullmatch(ref) or ".." in ref or ref.startswith("/")):
        problems.append(Problem(f"'{ref}' is not a branch, tag or commit", field))
    if problems:
        raise _all(text, problems)
    return SourceRef(owner, repo, "/".join(path) if path else None, ref or "HEAD")


def _all(text: str, problems: list[Problem]) -> CatalogError:
    return refused(f"'{text}' is not a valid repository reference", problems)
