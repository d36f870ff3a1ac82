"""Which member names an archive may hold: each path alone (through the shared path validator)
and the layout of them all (one folder per skill, no duplicates, no case collisions)."""

from __future__ import annotations

from resolvers.common.errors import Problem
from resolvers.skills.archive.members import Kind, Member
from resolvers.skills.archive.problems import member_problem, shown
from resolvers.skills.paths import MAX_PATH_CHARS, fold, path_faults

EXPECTED_LAYOUT = "one folder per skill, like my-skill/SKILL.md and my-skill/scripts/run.sh"


def path_problem(path: str) -> str | None:
    """Why a member's path (a folder's without its trailing slash) is refused, or None: the
    first fault the shared validator finds, worded for an archive. Format characters (bidi,
    separators) are left to the folder format, which refuses them with its own message."""
    faults = path_faults(path)
    controls = faults.controls
    checks = (
        (faults.empty, "has an empty name"),
        (faults.too_long, f"has a name longer than {MAX_PATH_CHARS} characters"),
        (faults.surrogate, "has a name that is not valid UTF-8"),
        ("\x00" in controls, "has a NUL character in its name"),
        (bool(controls), "has a control character in its name"),
        (faults.leading_slash, "is an absolute path"),
        (faults.leading_backslash, "is an absolute Windows path"),
        (faults.drive_letter, "starts with a Windows drive letter"),
        (faults.backslash, "has a backslash in its name (paths use /)"),
        (faults.dot_dot, "has a '..' segment, which leaves its folder"),
        (faults.empty_segment or faults.dot, "has an empty or '.' segment"),
    )
    return next((message for failed, message in checks if failed), None)


def layout_problems(members: list[Member]) -> list[Problem]:
    """Files at the root, the same name twice, names differing only by case, and a file named
    like another member's folder (members whose own name is refused are left out)."""
    problems: list[Problem] = []
    explicit: dict[str, Kind] = {}  # path -> kind, of the members themselves
    node_kind: dict[str, str] = {}  # path -> "file" / "dir", of members and their folders
    node_owner: dict[str, str] = {}  # path -> the member that first placed it
    spelling: dict[str, str] = {}  # folded path -> its first spelling
    reported: set[str] = set()
    for member in members:
        if path_problem(member.path) is not None:
            continue
        segments = member.path.split("/")
        is_dir = member.kind == "dir"
        if not is_dir and len(segments) == 1:
            problems.append(
                member_problem(member.name, f"is at the archive root: expected {EXPECTED_LAYOUT}")
            )
        previous = explicit.get(member.path)
        if previous is not None and (previous == "dir") == is_dir:
            problems.append(member_problem(member.name, "appears twice in the archive"))
            continue
        explicit.setdefault(member.path, member.kind)
        nodes = [("/".join(segments[:depth]), "dir") for depth in range(1, len(segments))]
        nodes.append((member.path, "dir" if is_dir else "file"))
        for node, kind in nodes:
            first = spelling.setdefault(fold(node), node)
            if first != node:
                if node not in reported:
                    reported.add(node)
                    where = "" if node == member.path else f"its folder '{shown(node)}' "
                    problems.append(
                        member_problem(
                            member.name, f"{where}differs only by case from '{shown(first)}'"
                        )
                    )
                break
            placed = node_kind.setdefault(node, kind)
            node_owner.setdefault(node, member.name)
            if placed != kind:
                if kind == "file":
                    message = f"is a file named like the folder of '{shown(node_owner[node])}'"
                elif node == member.path:
                    message = f"is a folder named like the file '{shown(node)}'"
                else:
                    message = f"is inside '{shown(node)}', which is a file"
                problems.append(member_problem(member.name, message))
                break
    return problems
