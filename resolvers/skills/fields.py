"""The fields of a skill as SKILL.md states them (DESIGN §3): name, description, body and the
extra frontmatter, each with every problem it has (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from resolvers.common.errors import Problem
from resolvers.skills.paths import BAD_PATH_CHAR, SURROGATE

NAME_MAX_CHARS = 64
DESCRIPTION_MAX_CHARS = 1024
COMPATIBILITY_MAX_CHARS = 500
MAX_METADATA_KEYS = 100

# Why a new skill is refused when its name is in use (the SDK's routes answer it 409).
NAME_TAKEN = "a skill already has this name"


# The folders of the skills the product ships (package data: resolvers/catalog/skills/<name>/).
SHIPPED_SKILLS_DIR = Path(__file__).resolve().parent.parent / "catalog" / "skills"
# The skills the product ships, one per folder holding a SKILL.md; their names are reserved.
SHIPPED_SKILL_NAMES: frozenset[str] = frozenset(
    folder.name for folder in SHIPPED_SKILLS_DIR.iterdir() if (folder / "SKILL.md").is_file()
)
BUILT_IN_NAMES: frozenset[str] = frozenset(
    {"ui", "skill-creator", "agent-browser", "agent-desktop"}
)
RESERVED_NAMES: frozenset[str] = BUILT_IN_NAMES | SHIPPED_SKILL_NAMES

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

# Characters refused anywhere in SKILL.md: C0 controls but tab and line feed (carriage returns
# are normalised away first), DEL, C1 controls and the non-characters U+FFFE/U+FFFF. In the
# frontmatter they make skills-ref crash (strictyaml's reader error escapes its handler).
SKILL_MD_BAD_CHAR = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")
_NAME_CHARS = re.compile(r"[a-z0-9-]+")


def show(text: str) -> str:
    """Text safe to print in a message or a field: controls and separators escaped."""
    out: list[str] = []
    for char in text:
        if BAD_PATH_CHAR.match(char) or SURROGATE.match(char) or char == "\\":
            out.append("\\\\" if char == "\\" else f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def surrogate_problems(text: str, field_name: str, what: str) -> list[Problem]:
    if SURROGATE.search(text):
        return [
            Problem(f"{what} holds a lone surrogate: it is not valid Unicode text.", field_name)
        ]
    return []


def type_name(value: object) -> str:
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


def name_problems(name: object, reserved: frozenset[str] = RESERVED_NAMES) -> list[Problem]:
    """1-64 characters of a-z, 0-9 and '-', no leading/trailing/double hyphen, not one of
    ``reserved`` (by default every reserved name)."""
    if not isinstance(name, str):
        return [Problem(f"The name must be text, not {type_name(name)}.", "name")]
    if not name:
        return [Problem("The name is required.", "name")]
    problems: list[Problem] = []
    if len(name) > NAME_MAX_CHARS:
        problems.append(
            Problem(f"The name has {len(name)} characters; at most {NAME_MAX_CHARS}.", "name")
        )
    non_ascii = sorted({c for c in name if not c.isascii()})
    if non_ascii:
        shown = ", ".join(f"'{show(c)}'" for c in non_ascii)
        problems.append(
            Problem(f"The name may use only ASCII a-z, 0-9 and '-'; found {shown}.", "name")
        )
    if any("A" <= c <= "Z" for c in name):
        problems.append(Problem("The name must be lowercase.", "name"))
    other = sorted({c for c in name if c.isascii() and not _NAME_CHARS.fullmatch(c.lower())})
    if other:
        shown = ", ".join(f"'{show(c)}'" for c in other)
        problems.append(Problem(f"The name may use only a-z, 0-9 and '-'; found {shown}.", "name"))
    if name.startswith("-") or name.endswith("-"):
        problems.append(Problem("The name cannot start or end with a hyphen.", "name"))
    if "--" in name:
        problems.append(Problem("The name cannot hold two hyphens in a row.", "name"))
    if name.lower() in reserved:
        problems.append(reserved_name_problem(name.lower()))
    return problems


def reserved_name_problem(name: str) -> Problem:
    """Why a reserved name is refused."""
    return Problem(f"The name '{name}' is reserved.", "name")


def shipped_name_problems(created: list[str], adding: str | None = None) -> list[Problem]:
    """The names of skills to be created that a shipped skill holds: only ``adding``, the
    shipped skill being added from the catalogue, may be created under its name."""
    return [
        Problem(reserved_name_problem(name).message, field=f"{name}/name")
        for name in created
        if name in SHIPPED_SKILL_NAMES and name != adding
    ]


def description_problems(description: object) -> list[Problem]:
    """Non-blank text of at most 1,024 characters."""
    if not isinstance(description, str):
        return [
            Problem(f"The description must be text, not {type_name(description)}.", "description")
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
    problems.extend(surrogate_problems(description, "description", "The description"))
    return problems


def body_problems(body: object, *, field_name: str = "body") -> list[Problem]:
    """A body an export can write and read back: text, only tab and '\\n' as controls."""
    if not isinstance(body, str):
        return [Problem(f"The body must be text, not {type_name(body)}.", field_name)]
    problems: list[Problem] = []
    if "\r" in body:
        problems.append(
            Problem("The body must end its lines with '\\n' alone, not '\\r'.", field_name)
        )
    bad = sorted({m.group() for m in SKILL_MD_BAD_CHAR.finditer(body.replace("\r", ""))})
    if bad:
        shown = ", ".join(f"U+{ord(c):04X}" for c in bad)
        problems.append(Problem(f"The body holds control characters: {shown}.", field_name))
    problems.extend(surrogate_problems(body, field_name, "The body"))
    return problems


def _text_tree_problems(value: object, field_name: str) -> list[Problem]:
    """Text, or a non-empty list or mapping (text keys) of such: what strictyaml can read."""
    if isinstance(value, str):
        return surrogate_problems(value, field_name, f"'{field_name}'")
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
            found.extend(surrogate_problems(key, field_name, "A key"))
            found.extend(_text_tree_problems(item, f"{field_name}.{key}"))
        return found
    return [
        Problem(f"Must be text, a list or a mapping of text, not {type_name(value)}.", field_name)
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
                f"The extra frontmatter must be a mapping, not {type_name(extra)}.", "frontmatter"
            )
        ]
    problems: list[Problem] = []
    for key, value in extra.items():
        if not isinstance(key, str):
            problems.append(Problem("Frontmatter field names must be text.", "frontmatter"))
            continue
        field_name = f"frontmatter.{show(key)}"
        if key not in EXTRA_FIELDS:
            allowed = ", ".join(EXTRA_FIELDS)
            problems.append(
                Problem(f"Unknown frontmatter field '{show(key)}'; allowed: {allowed}.", field_name)
            )
        elif key in ("license", "allowed-tools"):
            problems.extend(_text_tree_problems(value, field_name))
        elif key == "compatibility":
            if not isinstance(value, str):
                problems.append(
                    Problem(f"'compatibility' must be text, not {type_name(value)}.", field_name)
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
                problems.extend(surrogate_problems(value, field_name, "'compatibility'"))
        elif key == "metadata":
            problems.extend(_metadata_problems(value))
        elif not isinstance(value, bool):
            problems.append(
                Problem(
                    f"'{DISABLE_MODEL_INVOCATION}' must be true or false, not {type_name(value)}.",
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
                f"'metadata' must be a mapping of text to text, not {type_name(metadata)}.",
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
        field_name = f"frontmatter.metadata.{show(key)}"
        problems.extend(surrogate_problems(key, field_name, "The key"))
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
                    f"A 'metadata' value must be text, not {type_name(value)} "
                    "(write nested data as one text value).",
                    field_name,
                )
            )
        else:
            problems.extend(surrogate_problems(value, field_name, "The value"))
    return problems


# What the API stores ---------------------------------------------------------------------------

MAX_BODY_CHARS = 100_000
# The metadata key by which a sub-skill's folder names its parent: written by export only, read
# by import, refused from API input.
PARENT_KEY = "standards-parent"


def content_problems(content: object) -> list[Problem]:
    """Why a body cannot be stored (and exported as SKILL.md), if it cannot."""
    if isinstance(content, str) and len(content) > MAX_BODY_CHARS:
        return [Problem(f"must be at most {MAX_BODY_CHARS} characters", field="content")]
    return body_problems(content, field_name="content")


def reserved_problems(extra: object) -> list[Problem]:
    """Frontmatter the API keeps for itself."""
    metadata = extra.get("metadata") if isinstance(extra, dict) else None
    if isinstance(metadata, dict) and PARENT_KEY in metadata:
        message = f"metadata.{PARENT_KEY} is written on export; file a sub-skill with parent"
        return [Problem(message, field=f"frontmatter.metadata.{PARENT_KEY}")]
    return []
