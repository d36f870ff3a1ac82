"""Every rule about what a skill folder may be (DESIGN §3): pure, no I/O, no database.

A skill folder is what the Agent Skills reference validator ``skills-ref`` (PyPI ``skills_ref``
0.1.1) accepts, narrowed three ways:

1. a non-ASCII name (the name keeps to ``a-z``, ``0-9`` and ``-``),
2. a metadata value that is not text (``metadata`` is a mapping of text to text),
3. the file-path rules (500 files, 5 folders deep, no control character, no path leaving the
   folder, no second ``SKILL.md`` at the root, no two files at one place on disk).

Reserved names (``ui``, ``skill-creator`` ... and the skills the product ships) are refused too.

The rules live in ``fields`` (name, description, body, extra frontmatter), ``drive`` (file
paths, through the path validator shared with archives, ``paths``) and ``skill_md`` (reading and
writing SKILL.md). ``SKILL.md`` is parsed exactly as ``skills-ref`` parses it: the text must
start with ``---``, it is split on ``---`` at most twice, and the middle part is read with
``strictyaml`` (every scalar is text, no flow style, no duplicate keys, no tags or anchors).
Line ends are normalised the way ``Path.read_text`` does (``\\r\\n`` and ``\\r`` become ``\\n``),
since that is what ``skills-ref`` sees. Every function returns every problem it finds, never
only the first.
"""

from __future__ import annotations

from resolvers.common.errors import Problem
from resolvers.skills.drive import file_path_problems
from resolvers.skills.fields import RESERVED_NAMES, show
from resolvers.skills.skill_md import (
    SKILL_MD,
    SKILL_MD_LOWER,
    SkillDraft,
    is_skill_md_name,
    parse_skill_md,
)


def _decode_skill_md(data: bytes) -> tuple[str | None, list[Problem]]:
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as error:
        return None, [
            Problem(f"SKILL.md is not valid UTF-8 (byte {error.start}).", SKILL_MD),
        ]


def check_folder(
    folder_name: str, files: dict[str, bytes], *, reserved: frozenset[str] = RESERVED_NAMES
) -> tuple[SkillDraft | None, dict[str, bytes], list[Problem]]:
    """A whole skill folder, as read from an archive or a disk.

    ``files`` maps paths relative to the folder to their content, SKILL.md included (or
    skill.md: SKILL.md is preferred, as skills-ref does). Returns the draft (None when there is
    any problem), the drive (every other file, at its path as given) and every problem. The
    name may not be one of ``reserved`` (by default every reserved name).
    """
    problems: list[Problem] = []
    body_name = next((n for n in (SKILL_MD, SKILL_MD_LOWER) if n in files), None)
    drive = {path: content for path, content in files.items() if path != body_name}
    draft: SkillDraft | None = None
    if body_name is None:
        near = sorted(p for p in files if "/" not in p and is_skill_md_name(p))
        hint = f" (found '{show(near[0])}': name it SKILL.md)" if near else ""
        problems.append(Problem(f"The folder has no SKILL.md{hint}.", SKILL_MD))
    else:
        text, found = _decode_skill_md(files[body_name])
        problems.extend(found)
        if text is not None:
            draft, found = parse_skill_md(text, folder_name=folder_name, reserved=reserved)
            problems.extend(found)
    problems.extend(file_path_problems(list(drive)))
    if problems:
        return None, drive, problems
    return draft, drive, []
