"""One skill folder taken out of a larger archive (pure): a repository's archive, whose one
top-level folder holds the repository's tree, or an archive holding a skill folder's files at
its root (the Agent Skills discovery index's archives).

``read_archive(data, subtree=Subtree(...))`` refuses a hostile name anywhere in the archive, but
reads, checks the layout of and returns only the members under ``path``, renamed to
``name/...``: the one folder it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from resolvers.common.errors import Problem
from resolvers.skills.archive.members import Member
from resolvers.skills.archive.problems import archive_problem, shown


@dataclass(frozen=True, slots=True)
class Subtree:
    """Which part of an archive is the skill folder.

    ``wrapped``: every member sits under one top-level folder of any name (a repository
    archive: ``owner-repo-0a1b2c3/...``), taken away first. ``path``: the folder inside it (""
    for its root; None: found, the root when it holds a SKILL.md, else the one shallowest
    folder named ``name`` holding one). ``name``: the folder name the skill is read under (its
    SKILL.md's ``name`` must match it).
    """

    name: str
    path: str | None = ""
    wrapped: bool = False


def select(members: list[Member], subtree: Subtree) -> tuple[list[Member], list[Problem]]:
    """The members of the skill folder, renamed ``name/...``, or the problems of the layout."""
    if subtree.wrapped:
        tops = {m.path.split("/", 1)[0] for m in members}
        loose = [m for m in members if "/" not in m.path and m.kind != "dir"]
        if len(tops) != 1 or loose:
            return [], [archive_problem("does not hold exactly one top-level folder")]
        top = tops.pop() + "/"
        members = [replace(m, path=m.path[len(top) :]) for m in members if m.path.startswith(top)]
    if subtree.path is None:
        found, problem = _find(members, subtree.name)
        if problem is not None:
            return [], [problem]
        prefix = found
    else:
        prefix = subtree.path.strip("/")
    chosen: list[Member] = []
    for member in members:
        if prefix and not member.path.startswith(prefix + "/"):
            continue
        rest = member.path[len(prefix) + 1 :] if prefix else member.path
        chosen.append(replace(member, path=f"{subtree.name}/{rest}"))
    if not any(m.kind == "file" for m in chosen):
        where = f"'{shown(prefix)}'" if prefix else "its root"
        return [], [archive_problem(f"holds no file at {where}")]
    return chosen, []


def _find(members: list[Member], name: str) -> tuple[str, Problem | None]:
    """The folder holding the skill: the root with a SKILL.md, else the shallowest folder named
    ``name`` with one (two at that depth: ambiguous)."""
    bodies = [m.path for m in members if m.kind == "file" and m.path.split("/")[-1] == "SKILL.md"]
    if "SKILL.md" in bodies:
        return "", None
    folders = [b.removesuffix("/SKILL.md") for b in bodies]
    named = sorted((f.count("/"), f) for f in folders if f.split("/")[-1] == name)
    if not named:
        return "", archive_problem(f"holds no folder '{shown(name)}' with a SKILL.md")
    if len(named) > 1 and named[0][0] == named[1][0]:
        both = f"'{shown(named[0][1])}' and '{shown(named[1][1])}'"
        return "", archive_problem(f"holds two folders named '{shown(name)}': {both}")
    return named[0][1], None
