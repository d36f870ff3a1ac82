"""SKILL.md read and written as ``skills-ref`` does (DESIGN §3): the text must start with ``---``,
it is split on ``---`` at most twice, and the middle part is read with ``strictyaml``; rendering
writes frontmatter every YAML parser reads back exactly (pure)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import strictyaml

from resolvers.common.errors import Problem
from resolvers.skills.fields import (
    BUILT_IN_NAMES,
    DISABLE_MODEL_INVOCATION,
    EXTRA_FIELDS,
    RESERVED_NAMES,
    SKILL_MD_BAD_CHAR,
    SKILLS_REF_FIELDS,
    body_problems,
    description_problems,
    extra_frontmatter_problems,
    name_problems,
    show,
    type_name,
)

# Read no further than this into a SKILL.md: its YAML parser is slower than linear.
MAX_FRONTMATTER_CHARS = 16 * 1024
SKILL_MD = "SKILL.md"
SKILL_MD_LOWER = "skill.md"
_CLOSING_LINE_REST = re.compile(r"[ \t]*\n")


def normalize_newlines(text: str) -> str:
    """Line ends as ``Path.read_text`` gives them (what skills-ref reads): only ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def is_skill_md_name(segment: str) -> bool:
    return segment.casefold() == SKILL_MD_LOWER


@dataclass(frozen=True)
class SkillDraft:
    """A skill as SKILL.md states it: name, description, body and the other fields."""

    name: str
    description: str
    body: str
    extra_frontmatter: dict[str, Any] = field(default_factory=dict)


def draft_problems(draft: SkillDraft, reserved: frozenset[str] = RESERVED_NAMES) -> list[Problem]:
    """Every problem of a draft built from API input (name, description, body, extras)."""
    return [
        *name_problems(draft.name, reserved),
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
    text: str, *, folder_name: str | None, reserved: frozenset[str] = RESERVED_NAMES
) -> tuple[SkillDraft | None, list[Problem]]:
    """Read SKILL.md as skills-ref does, then apply the product's rules.

    Returns the draft (None when there is any problem) and every problem. ``folder_name``, when
    given, must match the name after NFKC normalisation (as skills-ref compares them); the name
    may not be one of ``reserved``.
    """
    text = normalize_newlines(text)
    bad = list(SKILL_MD_BAD_CHAR.finditer(text))
    problems = _bad_char_problems(text, bad)
    data, rest, found = _frontmatter(text, bad)
    problems.extend(found)
    if data is None:
        return None, problems
    problems.extend(_unknown_field_problems(data))
    name, found = _name(data, folder_name, reserved)
    problems.extend(found)
    description: object = data.get("description")
    if "description" not in data:
        problems.append(Problem("The frontmatter has no description.", "description"))
    else:
        problems.extend(description_problems(description))
    extra, found = _extra(data)
    problems.extend(found)
    if problems:
        return None, problems
    assert isinstance(name, str) and isinstance(description, str)
    return SkillDraft(name, description, _strip_after_closing(rest), extra), []


def _bad_char_problems(text: str, bad: list[re.Match[str]]) -> list[Problem]:
    """One problem per refused character, at the line of its first appearance."""
    first: dict[str, int] = {}
    for match in bad:
        first.setdefault(match.group(), match.start())
    problems: list[Problem] = []
    for char, index in first.items():
        times = sum(1 for match in bad if match.group() == char)
        more = f", {times} times" if times > 1 else ""
        problems.append(
            Problem(
                f"SKILL.md holds a control character (U+{ord(char):04X}{more}).",
                SKILL_MD,
                line=_line_of(text, index),
            )
        )
    return problems


def _frontmatter(
    text: str, bad: list[re.Match[str]]
) -> tuple[dict[str, Any] | None, str, list[Problem]]:
    """The frontmatter as a mapping and the text after it, or None and why not (nothing when
    the bad characters, already reported, are in the frontmatter)."""
    if text.startswith("\ufeff"):
        message = "SKILL.md starts with a byte-order mark; save it as UTF-8 without one."
        return None, "", [Problem(message, SKILL_MD)]
    if not text.startswith("---"):
        message = "SKILL.md must start with YAML frontmatter ('---')."
        return None, "", [Problem(message, "frontmatter", line=1)]
    parts = text.split("---", 2)
    if len(parts) < 3:
        return None, "", [Problem("The frontmatter is not closed with '---'.", "frontmatter")]
    frontmatter_text, rest = parts[1], parts[2]
    if any(match.start() < 3 + len(frontmatter_text) for match in bad):
        return None, rest, []  # strictyaml cannot read these; the problems say why already
    if len(frontmatter_text) > MAX_FRONTMATTER_CHARS:
        message = f"The frontmatter is longer than {MAX_FRONTMATTER_CHARS} characters."
        return None, rest, [Problem(message, "frontmatter")]
    try:
        data = strictyaml.load(frontmatter_text).data
    except Exception as error:  # strictyaml raises several families; all mean "refused"
        return None, rest, [_yaml_error_problem(error)]
    if not isinstance(data, dict):
        return None, rest, [Problem("The frontmatter must be a YAML mapping.", "frontmatter")]
    return cast(dict[str, Any], data), rest, []


def _unknown_field_problems(data: dict[str, Any]) -> list[Problem]:
    """Top-level fields skills-ref does not allow."""
    problems: list[Problem] = []
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
            message = f"Unknown frontmatter field '{show(key)}'; allowed: {allowed}."
        problems.append(Problem(message, f"frontmatter.{show(key)}"))
    return problems


def _name(
    data: dict[str, Any], folder_name: str | None, reserved: frozenset[str]
) -> tuple[object, list[Problem]]:
    """The name (stripped, as skills-ref strips it) and its problems, the folder's included."""
    if "name" not in data:
        return None, [Problem("The frontmatter has no name.", "name")]
    name = data["name"]
    if isinstance(name, str):
        name = name.strip()
    problems = name_problems(name, reserved)
    if isinstance(name, str) and name and folder_name is not None:
        if unicodedata.normalize("NFKC", folder_name) != unicodedata.normalize("NFKC", name):
            problems.append(
                Problem(
                    f"The folder '{show(folder_name)}' must be named like the skill "
                    f"'{show(name)}'.",
                    "name",
                )
            )
    return name, problems


def _extra(data: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The extra frontmatter, ``disable-model-invocation`` taken out of ``metadata``."""
    problems: list[Problem] = []
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
    return extra, problems


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
        raise TypeError(f"cannot write {type_name(value)} in SKILL.md")


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

    Raises ValueError for a draft with problems: an export never writes an invalid folder. A
    shipped skill added to the workspace is written under its reserved name.
    """
    problems = draft_problems(draft, BUILT_IN_NAMES)
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
