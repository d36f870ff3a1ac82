"""Every rule about what a skill folder may be (DESIGN §3): pure, no I/O, no database.

A skill folder is what the Agent Skills reference validator ``skills-ref`` (PyPI ``skills_ref``
0.1.1) accepts, narrowed three ways:

1. a non-ASCII name (the name keeps to ``a-z``, ``0-9`` and ``-``),
2. a metadata value that is not text (``metadata`` is a mapping of text to text),
3. the file-path rules (500 files, 5 folders deep, no control character, no path leaving the
   folder, no second ``SKILL.md`` at the root, no two files at one place on disk).

Reserved names (``ui``, ``skill-creator`` ... and the skills the product ships) are refused too.

``SKILL.md`` is parsed exactly as ``skills-ref`` parses it: the text must start with ``---``, it
is split on ``---`` at most twice, and the middle part is read with ``strictyaml`` (every scalar
is text, no flow style, no duplicate keys, no tags or anchors). Line ends are normalised the way
``Path.read_text`` does (``\\r\\n`` and ``\\r`` become ``\\n``), since that is what ``skills-ref``
sees. Every function returns every problem it finds, never only the first.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import strictyaml

from resolvers.common.errors import Problem

NAME_MAX_CHARS = 64
DESCRIPTION_MAX_CHARS = 1024
COMPATIBILITY_MAX_CHARS = 500
MAX_FILES = 500
# Folders above a file: ``a/b/c/d/e/file.txt`` has 5 and is allowed; a sixth is refused.
MAX_FOLDER_DEPTH = 5
# Longest file or folder name most file systems store (in UTF-8 bytes).
MAX_SEGMENT_BYTES = 255
MAX_PATH_CHARS = 1024
# Read no further than this into a SKILL.md: its YAML parser is slower than linear.
MAX_FRONTMATTER_CHARS = 16 * 1024
MAX_METADATA_KEYS = 100

# The skills the product ships; their names are reserved.
SHIPPED_SKILL_NAMES: frozenset[str] = frozenset()
RESERVED_NAMES: frozenset[str] = (
    frozenset({"ui", "skill-creator", "agent-browser", "agent-desktop"}) | SHIPPED_SKILL_NAMES
)

SKILL_TEMPLATE = (
    "## Overview\n\n## When to use\n\n## Instructions\n\n## Examples\n\n## What to avoid\n"
)

DISABLE_MODEL_INVOCATION = "disable-model-invocation"
# The fields of ``extraFrontmatter``, in the order an export writes them.
EXTRA_FIELDS = ("license", "compatibility", "allowed-tools", "metadata", DISABLE_MODEL_INVOCATION)
# The top-level frontmatter fields ``skills-ref`` allows (``disable-model-invocation`` is not one:
# in a folder it lives in ``metadata`` as ``disable-model-invocation: "true"``).
SKILLS_REF_FIELDS = frozenset(
    {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
)

SKILL_MD = "SKILL.md"
SKILL_MD_LOWER = "skill.md"
SCRIPT_FOLDER = "scripts/"
SCRIPT_SUFFIXES = frozenset({".sh", ".bash", ".py", ".js", ".ts", ".rb", ".pl"})

# Characters refused anywhere in SKILL.md: C0 controls but tab and line feed (carriage returns
# are normalised away first), DEL, C1 controls and the non-characters U+FFFE/U+FFFF. In the
# frontmatter they make skills-ref crash (strictyaml's reader error escapes its handler).
_SKILL_MD_BAD_CHAR = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")
# Characters refused in a file path: every Cc control, line and paragraph separators, the
# byte-order mark and the bidirectional formatting characters (they disguise a path).
_PATH_BAD_CHAR = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAME_CHARS = re.compile(r"[a-z0-9-]+")
_DRIVE_LETTER = re.compile(r"[A-Za-z]:")
_CLOSING_LINE_REST = re.compile(r"[ \t]*\n")


# --------------------------------------------------------------------------------------------
# Small helpers


def _show(text: str) -> str:
    """Text safe to print in a message or a field: controls and separators escaped."""
    out: list[str] = []
    for char in text:
        if _PATH_BAD_CHAR.match(char) or _SURROGATE.match(char) or char == "\\":
            out.append("\\\\" if char == "\\" else f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def _surrogate_problems(text: str, field_name: str, what: str) -> list[Problem]:
    if _SURROGATE.search(text):
        return [
            Problem(f"{what} holds a lone surrogate: it is not valid Unicode text.", field_name)
        ]
    return []


def normalize_newlines(text: str) -> str:
    """Line ends as ``Path.read_text`` gives them (what skills-ref reads): only ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _type_name(value: object) -> str:
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return type(value).__name__


# --------------------------------------------------------------------------------------------
# Name, description, body, extra frontmatter


def name_problems(name: object) -> list[Problem]:
    """1-64 characters of a-z, 0-9 and '-', no leading/trailing/double hyphen, not reserved."""
    if not isinstance(name, str):
        return [Problem(f"The name must be text, not {_type_name(name)}.", "name")]
    if not name:
        return [Problem("The name is required.", "name")]
    problems: list[Problem] = []
    if len(name) > NAME_MAX_CHARS:
        problems.append(
            Problem(f"The name has {len(name)} characters; at most {NAME_MAX_CHARS}.", "name")
        )
    non_ascii = sorted({c for c in name if not c.isascii()})
    if non_ascii:
        shown = ", ".join(f"'{_show(c)}'" for c in non_ascii)
        problems.append(
            Problem(f"The name may use only ASCII a-z, 0-9 and '-'; found {shown}.", "name")
        )
    if any("A" <= c <= "Z" for c in name):
        problems.append(Problem("The name must be lowercase.", "name"))
    other = sorted({c for c in name if c.isascii() and not _NAME_CHARS.fullmatch(c.lower())})
    if other:
        shown = ", ".join(f"'{_show(c)}'" for c in other)
        problems.append(Problem(f"The name may use only a-z, 0-9 and '-'; found {shown}.", "name"))
    if name.startswith("-") or name.endswith("-"):
        problems.append(Problem("The name cannot start or end with a hyphen.", "name"))
    if "--" in name:
        problems.append(Problem("The name cannot hold two hyphens in a row.", "name"))
    if name.lower() in RESERVED_NAMES:
        problems.append(Problem(f"The name '{name.lower()}' is reserved.", "name"))
    return problems


def description_problems(description: object) -> list[Problem]:
    """Non-blank text of at most 1,024 characters."""
    if not isinstance(description, str):
        return [
            Problem(f"The description must be text, not {_type_name(description)}.", "description")
        ]
    if not description.strip():
        return [Problem("The description is required.", "description")]
    problems: list[Problem] = []
    if len(description) > DESCRIPTION_MAX_CHARS:
        problems.append(
            Problem(
                f"The description has {len(description)} characters; "
                f"at most {DESCRIPTION_MAX_CHARS}.",
                "description",
            )
        )
    problems.extend(_surrogate_problems(description, "description", "The description"))
    return problems


def body_problems(body: object, *, field_name: str = "body") -> list[Problem]:
    """A body an export can write and read back: text, only tab and '\\n' as controls."""
    if not isinstance(body, str):
        return [Problem(f"The body must be text, not {_type_name(body)}.", field_name)]
    problems: list[Problem] = []
    if "\r" in body:
        problems.append(
            Problem("The body must end its lines with '\\n' alone, not '\\r'.", field_name)
        )
    bad = sorted({m.group() for m in _SKILL_MD_BAD_CHAR.finditer(body.replace("\r", ""))})
    if bad:
        shown = ", ".join(f"U+{ord(c):04X}" for c in bad)
        problems.append(Problem(f"The body holds control characters: {shown}.", field_name))
    problems.extend(_surrogate_problems(body, field_name, "The body"))
    return problems


def _text_tree_problems(value: object, field_name: str) -> list[Problem]:
    """Text, or a non-empty list or mapping (text keys) of such: what strictyaml can read."""
    if isinstance(value, str):
        return _surrogate_problems(value, field_name, f"'{field_name}'")
    if isinstance(value, list):
        if not value:
            return [Problem("An empty list cannot be written in SKILL.md; omit it.", field_name)]
        found: list[Problem] = []
        for index, item in enumerate(value):
            found.extend(_text_tree_problems(item, f"{field_name}[{index}]"))
        return found
    if isinstance(value, dict):
        if not value:
            return [Problem("An empty mapping cannot be written in SKILL.md; omit it.", field_name)]
        found = []
        for key, item in value.items():
            if not isinstance(key, str):
                found.append(Problem("Mapping keys must be text.", field_name))
                continue
            found.extend(_surrogate_problems(key, field_name, "A key"))
            found.extend(_text_tree_problems(item, f"{field_name}.{key}"))
        return found
    return [
        Problem(f"Must be text, a list or a mapping of text, not {_type_name(value)}.", field_name)
    ]


def extra_frontmatter_problems(extra: object) -> list[Problem]:
    """The frontmatter fields beyond name and description, as ``extraFrontmatter`` holds them.

    ``license`` and ``allowed-tools``: text (or a list or mapping of text, which skills-ref
    accepts too, e.g. ``allowed-tools`` as a YAML list); ``compatibility``: text of at most 500
    characters; ``metadata``: a non-empty mapping of text to text; ``disable-model-invocation``:
    a boolean (an export writes it into ``metadata``, so ``metadata`` may not hold that key).
    """
    if not isinstance(extra, dict):
        return [
            Problem(
                f"The extra frontmatter must be a mapping, not {_type_name(extra)}.", "frontmatter"
            )
        ]
    problems: list[Problem] = []
    for key, value in extra.items():
        if not isinstance(key, str):
            problems.append(Problem("Frontmatter field names must be text.", "frontmatter"))
            continue
        field_name = f"frontmatter.{_show(key)}"
        if key not in EXTRA_FIELDS:
            allowed = ", ".join(EXTRA_FIELDS)
            problems.append(
                Problem(
                    f"Unknown frontmatter field '{_show(key)}'; allowed: {allowed}.", field_name
                )
            )
        elif key in ("license", "allowed-tools"):
            problems.extend(_text_tree_problems(value, field_name))
        elif key == "compatibility":
            if not isinstance(value, str):
                problems.append(
                    Problem(f"'compatibility' must be text, not {_type_name(value)}.", field_name)
                )
            else:
                if len(value) > COMPATIBILITY_MAX_CHARS:
                    problems.append(
                        Problem(
                            f"'compatibility' has {len(value)} characters; "
                            f"at most {COMPATIBILITY_MAX_CHARS}.",
                            field_name,
                        )
                    )
                problems.extend(_surrogate_problems(value, field_name, "'compatibility'"))
        elif key == "metadata":
            problems.extend(_metadata_problems(value))
        elif not isinstance(value, bool):
            problems.append(
                Problem(
                    f"'{DISABLE_MODEL_INVOCATION}' must be true or false, not {_type_name(value)}.",
                    field_name,
                )
            )
    return problems


def _metadata_problems(metadata: object) -> list[Problem]:
    if metadata == "":
        return [Problem("'metadata' is empty; omit it or give it entries.", "frontmatter.metadata")]
    if not isinstance(metadata, dict):
        return [
            Problem(
                f"'metadata' must be a mapping of text to text, not {_type_name(metadata)}.",
                "frontmatter.metadata",
            )
        ]
    if not metadata:
        return [Problem("'metadata' is empty; omit it instead.", "frontmatter.metadata")]
    if len(metadata) > MAX_METADATA_KEYS:
        message = f"'metadata' has {len(metadata)} entries; at most {MAX_METADATA_KEYS}."
        return [Problem(message, "frontmatter.metadata")]
    problems: list[Problem] = []
    for key, value in metadata.items():
        if not isinstance(key, str):
            problems.append(Problem("'metadata' keys must be text.", "frontmatter.metadata"))
            continue
        field_name = f"frontmatter.metadata.{_show(key)}"
        problems.extend(_surrogate_problems(key, field_name, "The key"))
        if key == DISABLE_MODEL_INVOCATION:
            problems.append(
                Problem(
                    f"Set '{DISABLE_MODEL_INVOCATION}' as its own field, not inside 'metadata'.",
                    field_name,
                )
            )
        if not isinstance(value, str):
            problems.append(
                Problem(
                    f"A 'metadata' value must be text, not {_type_name(value)} "
                    "(write nested data as one text value).",
                    field_name,
                )
            )
        else:
            problems.extend(_surrogate_problems(value, field_name, "The value"))
    return problems


# --------------------------------------------------------------------------------------------
# File paths (the drive)


def _is_skill_md_name(segment: str) -> bool:
    return segment.casefold() == SKILL_MD_LOWER


def _fold(path: str) -> str:
    """The key two paths share when they land at one place on a case-insensitive disk."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


def _single_path_problems(path: str) -> list[Problem]:
    field_name = f"files/{_show(path)}"
    if not path:
        return [Problem("A file path cannot be empty.", "files/")]
    problems: list[Problem] = []

    def add(message: str) -> None:
        problems.append(Problem(message, field_name))

    if _SURROGATE.search(path):
        add("The path holds a lone surrogate: it is not valid Unicode text.")
    bad = sorted({m.group() for m in _PATH_BAD_CHAR.finditer(path)})
    if bad:
        add("The path holds a control character: " + ", ".join(f"U+{ord(c):04X}" for c in bad))
    if "\\" in path:
        add("The path holds a backslash; separate folders with '/'.")
    if path.startswith("/") or _DRIVE_LETTER.match(path):
        add("The path must be relative to the skill folder, not absolute.")
    segments = path.split("/")
    inner = segments[1:] if path.startswith("/") else segments
    if ".." in segments:
        add("The path leaves the skill folder ('..').")
    if "." in segments:
        add("The path holds a '.' segment.")
    if "" in inner:
        add("The path holds an empty segment ('//' or a trailing '/').")
    depth = len(segments) - 1
    if depth > MAX_FOLDER_DEPTH:
        add(f"The path is {depth} folders deep; at most {MAX_FOLDER_DEPTH}.")
    if any(len(s.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES for s in segments):
        add(f"A file or folder name is longer than {MAX_SEGMENT_BYTES} bytes.")
    if len(segments) == 1 and _is_skill_md_name(path):
        add(
            "A file named SKILL.md (in any case) cannot sit at the folder root: "
            "the folder's SKILL.md is the skill itself."
        )
    elif len(segments) > 1 and _is_skill_md_name(segments[0]):
        add("A folder named SKILL.md (in any case) cannot sit at the folder root.")
    if len(path) > MAX_PATH_CHARS:
        add(f"The path is longer than {MAX_PATH_CHARS} characters.")
    return problems


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
            problems.append(Problem(f"A file path must be text, not {_type_name(path)}.", "files"))
        else:
            texts.append(path)
            problems.extend(_single_path_problems(path))

    seen: dict[str, int] = {}
    for path in texts:
        seen[path] = seen.get(path, 0) + 1
    for path, count in seen.items():
        if count > 1:
            problems.append(
                Problem(f"The same path appears {count} times.", f"files/{_show(path)}")
            )

    by_fold: dict[str, str] = {}
    for path in seen:
        folded = _fold(path)
        first = by_fold.setdefault(folded, path)
        if first != path:
            problems.append(
                Problem(
                    f"The path differs from '{_show(first)}' only by case or Unicode "
                    "normalisation: both would land at one place on disk.",
                    f"files/{_show(path)}",
                )
            )

    for path in seen:
        segments = path.split("/")
        for end in range(1, len(segments)):
            folder = "/".join(segments[:end])
            if folder and _fold(folder) in by_fold:
                problems.append(
                    Problem(
                        f"'{_show(by_fold[_fold(folder)])}' is a file, and this path uses it "
                        "as a folder.",
                        f"files/{_show(path)}",
                    )
                )
    return problems


def drive_path(path: str) -> str:
    """Where a file sits in the drive: a root SKILL.md (any case) becomes SKILL-2.md."""
    if "/" not in path and _is_skill_md_name(path):
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


# --------------------------------------------------------------------------------------------
# SKILL.md


@dataclass(frozen=True)
class SkillDraft:
    """A skill as SKILL.md states it: name, description, body and the other fields."""

    name: str
    description: str
    body: str
    extra_frontmatter: dict[str, Any] = field(default_factory=dict)


def draft_problems(draft: SkillDraft) -> list[Problem]:
    """Every problem of a draft built from API input (name, description, body, extras)."""
    return [
        *name_problems(draft.name),
        *description_problems(draft.description),
        *body_problems(draft.body),
        *extra_frontmatter_problems(draft.extra_frontmatter),
    ]


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _yaml_error_problem(error: Exception) -> Problem:
    mark = getattr(error, "problem_mark", None)
    line = getattr(mark, "line", None)
    problem = getattr(error, "problem", None)
    detail = problem if isinstance(problem, str) and problem else str(error).split("\n")[0]
    # The frontmatter text starts right after the opening '---', on line 1 of the file.
    return Problem(
        f"Invalid YAML in the frontmatter: {detail.strip()}",
        "frontmatter",
        line=line + 1 if isinstance(line, int) else None,
    )


def _strip_after_closing(rest: str) -> str:
    """The body: what follows the closing '---' line and one blank line after it."""
    found = _CLOSING_LINE_REST.match(rest)
    if found is None:
        return rest
    rest = rest[found.end() :]
    return rest[1:] if rest.startswith("\n") else rest


def parse_skill_md(
    text: str, *, folder_name: str | None
) -> tuple[SkillDraft | None, list[Problem]]:
    """Read SKILL.md as skills-ref does, then apply the product's rules.

    Returns the draft (None when there is any problem) and every problem. ``folder_name``, when
    given, must match the name after NFKC normalisation (as skills-ref compares them).
    """
    text = normalize_newlines(text)
    problems: list[Problem] = []
    bad = list(_SKILL_MD_BAD_CHAR.finditer(text))
    first: dict[str, int] = {}
    for match in bad:
        first.setdefault(match.group(), match.start())
    for char, index in first.items():  # one problem per character, at its first line
        times = sum(1 for match in bad if match.group() == char)
        more = f", {times} times" if times > 1 else ""
        problems.append(
            Problem(
                f"SKILL.md holds a control character (U+{ord(char):04X}{more}).",
                SKILL_MD,
                line=_line_of(text, index),
            )
        )
    if text.startswith("\ufeff"):
        return None, [
            *problems,
            Problem(
                "SKILL.md starts with a byte-order mark; save it as UTF-8 without one.", SKILL_MD
            ),
        ]
    if not text.startswith("---"):
        return None, [
            *problems,
            Problem("SKILL.md must start with YAML frontmatter ('---').", "frontmatter", line=1),
        ]
    parts = text.split("---", 2)
    if len(parts) < 3:
        return None, [
            *problems,
            Problem("The frontmatter is not closed with '---'.", "frontmatter"),
        ]
    frontmatter_text, rest = parts[1], parts[2]
    if any(match.start() < 3 + len(frontmatter_text) for match in bad):
        return None, problems  # strictyaml cannot read these; the problems say why already
    if len(frontmatter_text) > MAX_FRONTMATTER_CHARS:
        message = f"The frontmatter is longer than {MAX_FRONTMATTER_CHARS} characters."
        return None, [*problems, Problem(message, "frontmatter")]
    try:
        data = strictyaml.load(frontmatter_text).data
    except Exception as error:  # strictyaml raises several families; all mean "refused"
        return None, [*problems, _yaml_error_problem(error)]
    if not isinstance(data, dict):
        return None, [*problems, Problem("The frontmatter must be a YAML mapping.", "frontmatter")]
    data = cast(dict[str, Any], data)

    for key in data:
        if key in SKILLS_REF_FIELDS:
            continue
        if key == DISABLE_MODEL_INVOCATION:
            message = (
                f"'{DISABLE_MODEL_INVOCATION}' is not a top-level field of the Agent Skills "
                f'standard; write it under metadata as {DISABLE_MODEL_INVOCATION}: "true".'
            )
        else:
            allowed = ", ".join(sorted(SKILLS_REF_FIELDS))
            message = f"Unknown frontmatter field '{_show(key)}'; allowed: {allowed}."
        problems.append(Problem(message, f"frontmatter.{_show(key)}"))

    name: object = None
    if "name" not in data:
        problems.append(Problem("The frontmatter has no name.", "name"))
    else:
        name = data["name"]
        if isinstance(name, str):
            name = name.strip()  # skills-ref strips the name before checking it
        found = name_problems(name)
        problems.extend(found)
        if isinstance(name, str) and name and folder_name is not None:
            if unicodedata.normalize("NFKC", folder_name) != unicodedata.normalize("NFKC", name):
                problems.append(
                    Problem(
                        f"The folder '{_show(folder_name)}' must be named like the skill "
                        f"'{_show(name)}'.",
                        "name",
                    )
                )

    description: object = None
    if "description" not in data:
        problems.append(Problem("The frontmatter has no description.", "description"))
    else:
        description = data["description"]
        problems.extend(description_problems(description))

    extra: dict[str, Any] = {
        k: data[k] for k in EXTRA_FIELDS if k in data and k in SKILLS_REF_FIELDS
    }
    metadata = extra.get("metadata")
    if isinstance(metadata, dict) and DISABLE_MODEL_INVOCATION in metadata:
        metadata = dict(metadata)
        flag = metadata.pop(DISABLE_MODEL_INVOCATION)
        if flag in ("true", "false"):
            extra[DISABLE_MODEL_INVOCATION] = flag == "true"
        else:
            problems.append(
                Problem(
                    f'metadata \'{DISABLE_MODEL_INVOCATION}\' must be "true" or "false".',
                    f"frontmatter.metadata.{DISABLE_MODEL_INVOCATION}",
                )
            )
        if metadata:
            extra["metadata"] = metadata
        else:
            del extra["metadata"]
    problems.extend(extra_frontmatter_problems(extra))

    if problems:
        return None, problems
    assert isinstance(name, str) and isinstance(description, str)
    return SkillDraft(name, description, _strip_after_closing(rest), extra), []


# YAML words other parsers (YAML 1.1, js-yaml) read as booleans or null: always quoted.
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null"})
_PLAIN_PUNCTUATION = frozenset(" -_.,;()/'!?+=%@&")


def _is_plain(text: str) -> bool:
    if not text or not text[0].isalpha() or not text[-1].isalnum() and text[-1] not in ".)!?'":
        return False
    if "---" in text or text.lower() in _YAML_WORDS:
        return False
    return all(c.isalnum() and c.isprintable() or c in _PLAIN_PUNCTUATION for c in text)


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar on one line that every YAML parser reads back exactly."""
    escape_hyphens = "---" in text  # '---' anywhere would close the frontmatter early
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "-" and escape_hyphens:
            out.append("\\x2d")
        elif code < 0x20 or 0x7F <= code <= 0xA0 or char in "\u2028\u2029\ufeff\ufffe\uffff":
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _scalar(text: str) -> str:
    return text if _is_plain(text) else _quoted(text)


def _emit(value: object, indent: int, lines: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                lines.append(f"{pad}{_scalar(key)}: {_scalar(item)}")
            else:
                lines.append(f"{pad}{_scalar(key)}:")
                _emit(item, indent + 2, lines)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, str):
                lines.append(f"{pad}- {_scalar(item)}")
            else:
                lines.append(f"{pad}-")
                _emit(item, indent + 2, lines)
    else:  # pragma: no cover - drafts are checked first
        raise TypeError(f"cannot write {_type_name(value)} in SKILL.md")


def _iter_extra(extra: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    flag = extra.get(DISABLE_MODEL_INVOCATION)
    for key in EXTRA_FIELDS:
        if key == DISABLE_MODEL_INVOCATION:
            continue
        if key == "metadata" and isinstance(flag, bool):
            metadata = dict(extra.get("metadata") or {})
            metadata[DISABLE_MODEL_INVOCATION] = "true" if flag else "false"
            yield key, metadata
        elif key in extra:
            yield key, extra[key]


def render_skill_md(draft: SkillDraft) -> str:
    """SKILL.md for an export: frontmatter (name, description, then the extra fields in
    EXTRA_FIELDS order, ``disable-model-invocation`` written into ``metadata``), a blank line,
    the body. ``parse_skill_md(render_skill_md(d), folder_name=d.name) == (d, [])``.

    Raises ValueError for a draft with problems: an export never writes an invalid folder.
    """
    problems = draft_problems(draft)
    if problems:
        raise ValueError(
            "cannot render an invalid skill: " + "; ".join(p.message for p in problems)
        )
    frontmatter: dict[str, Any] = {"name": draft.name, "description": draft.description}
    frontmatter.update(_iter_extra(draft.extra_frontmatter))
    lines: list[str] = []
    _emit(frontmatter, 0, lines)
    yaml_text = "\n".join(lines) + "\n"
    if "---" in yaml_text:  # pragma: no cover - _quoted escapes every '---'
        raise AssertionError("frontmatter would close early")
    return f"---\n{yaml_text}---\n\n{draft.body}"


# --------------------------------------------------------------------------------------------
# A whole folder


def _decode_skill_md(data: bytes) -> tuple[str | None, list[Problem]]:
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as error:
        return None, [
            Problem(f"SKILL.md is not valid UTF-8 (byte {error.start}).", SKILL_MD),
        ]


def check_folder(
    folder_name: str, files: dict[str, bytes]
) -> tuple[SkillDraft | None, dict[str, bytes], list[Problem]]:
    """A whole skill folder, as read from an archive or a disk.

    ``files`` maps paths relative to the folder to their content, SKILL.md included (or
    skill.md: SKILL.md is preferred, as skills-ref does). Returns the draft (None when there is
    any problem), the drive (every other file, at its path as given) and every problem.
    """
    problems: list[Problem] = []
    body_name = next((n for n in (SKILL_MD, SKILL_MD_LOWER) if n in files), None)
    drive = {path: content for path, content in files.items() if path != body_name}
    draft: SkillDraft | None = None
    if body_name is None:
        near = sorted(p for p in files if "/" not in p and _is_skill_md_name(p))
        hint = f" (found '{_show(near[0])}': name it SKILL.md)" if near else ""
        problems.append(Problem(f"The folder has no SKILL.md{hint}.", SKILL_MD))
    else:
        text, found = _decode_skill_md(files[body_name])
        problems.extend(found)
        if text is not None:
            draft, found = parse_skill_md(text, folder_name=folder_name)
            problems.extend(found)
    problems.extend(file_path_problems(list(drive)))
    if problems:
        return None, drive, problems
    return draft, drive, []
