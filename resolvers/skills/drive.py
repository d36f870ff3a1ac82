"""The file paths of a skill's drive (every file but SKILL.md, DESIGN §3): the rules they keep,
where a file lands, and which files are scripts (pure)."""

from __future__ import annotations

from resolvers.common.errors import Problem
from resolvers.skills.fields import show, type_name
from resolvers.skills.paths import BAD_PATH_CHAR, MAX_PATH_CHARS, fold, path_faults
from resolvers.skills.skill_md import is_skill_md_name

MAX_FILES = 500
# Folders above a file: ``a/b/c/d/e/file.txt`` has 5 and is allowed; a sixth is refused.
MAX_FOLDER_DEPTH = 5
# Longest file or folder name most file systems store (in UTF-8 bytes).
MAX_SEGMENT_BYTES = 255
SCRIPT_FOLDER = "scripts/"
SCRIPT_SUFFIXES = frozenset({".sh", ".bash", ".py", ".js", ".ts", ".rb", ".pl"})


def _single_path_problems(path: str) -> list[Problem]:
    """Every rule one path breaks alone: the shared validator's faults, then the drive's own
    (depth, name length, a second SKILL.md at the root)."""
    if not path:
        return [Problem("A file path cannot be empty.", "files/")]
    faults = path_faults(path)
    segments = path.split("/")
    depth = len(segments) - 1
    root_skill_md = is_skill_md_name(segments[0])
    checks = (
        (faults.surrogate, "The path holds a lone surrogate: it is not valid Unicode text."),
        (
            bool(faults.bad_chars),
            "The path holds a control character: "
            + ", ".join(f"U+{ord(c):04X}" for c in faults.bad_chars),
        ),
        (faults.backslash, "The path holds a backslash; separate folders with '/'."),
        (
            faults.leading_slash or faults.drive_letter,
            "The path must be relative to the skill folder, not absolute.",
        ),
        (faults.dot_dot, "The path leaves the skill folder ('..')."),
        (faults.dot, "The path holds a '.' segment."),
        (faults.empty_segment, "The path holds an empty segment ('//' or a trailing '/')."),
        (
            depth > MAX_FOLDER_DEPTH,
            f"The path is {depth} folders deep; at most {MAX_FOLDER_DEPTH}.",
        ),
        (
            any(len(s.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES for s in segments),
            f"A file or folder name is longer than {MAX_SEGMENT_BYTES} bytes.",
        ),
        (
            depth == 0 and root_skill_md,
            "A file named SKILL.md (in any case) cannot sit at the folder root: "
            "the folder's SKILL.md is the skill itself.",
        ),
        (
            depth > 0 and root_skill_md,
            "A folder named SKILL.md (in any case) cannot sit at the folder root.",
        ),
        (faults.too_long, f"The path is longer than {MAX_PATH_CHARS} characters."),
    )
    field_name = f"files/{show(path)}"
    return [Problem(message, field_name) for failed, message in checks if failed]


def file_path_problems(paths: list[str]) -> list[Problem]:
    """Every file-path rule over the drive's paths (every file but the body)."""
    problems: list[Problem] = []
    if len(paths) > MAX_FILES:
        problems.append(
            Problem(f"A skill holds at most {MAX_FILES} files; this one has {len(paths)}.", "files")
        )
    texts: list[str] = []
    for path in paths:
        if not isinstance(path, str):
            problems.append(Problem(f"A file path must be text, not {type_name(path)}.", "files"))
        else:
            texts.append(path)
            problems.extend(_single_path_problems(path))
    return [*problems, *_collision_problems(texts)]


def _collision_problems(paths: list[str]) -> list[Problem]:
    """Paths given twice, paths landing at one place on disk, and files used as folders."""
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for path in paths:
        seen[path] = seen.get(path, 0) + 1
    for path, count in seen.items():
        if count > 1:
            problems.append(Problem(f"The same path appears {count} times.", f"files/{show(path)}"))
    by_fold: dict[str, str] = {}
    for path in seen:
        first = by_fold.setdefault(fold(path), path)
        if first != path:
            problems.append(
                Problem(
                    f"The path differs from '{show(first)}' only by case or Unicode "
                    "normalisation: both would land at one place on disk.",
                    f"files/{show(path)}",
                )
            )
    for path in seen:
        segments = path.split("/")
        for end in range(1, len(segments)):
            folder = "/".join(segments[:end])
            if folder and fold(folder) in by_fold:
                problems.append(
                    Problem(
                        f"'{show(by_fold[fold(folder)])}' is a file, and this path uses it "
                        "as a folder.",
                        f"files/{show(path)}",
                    )
                )
    return problems


def readable_path(path: str) -> bool:
    """Whether a stored file is shown when its skill is read: one whose path holds a control
    character is skipped (seed 000, "Files"), however it reached the table."""
    return BAD_PATH_CHAR.search(path) is None


def drive_path(path: str) -> str:
    """Where a file sits in the drive: a root SKILL.md (any case) becomes SKILL-2.md."""
    if "/" not in path and is_skill_md_name(path):
        return f"{path[:-3]}-2{path[-3:]}"
    return path


def is_script(path: str, mode: int) -> bool:
    """Executable, under scripts/, or with a script extension."""
    if mode & 0o111:
        return True
    if path.startswith(SCRIPT_FOLDER):
        return True
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in SCRIPT_SUFFIXES
