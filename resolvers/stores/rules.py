"""The rules of a store's input that need no I/O (seed 001, ANTHROPIC-WIRE §4): paths, content,
names, descriptions and metadata, each problem listed with its field."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from resolvers.common.errors import Problem
from resolvers.skills.paths import BAD_PATH_CHAR, SURROGATE

MAX_PATH_BYTES = 1024
MAX_SEGMENTS = 20
MAX_CONTENT_BYTES = 102_400
MAX_NAME_CHARS = 255
MAX_DESCRIPTION_CHARS = 1024
MAX_METADATA_PAIRS = 16
MAX_METADATA_KEY_CHARS = 64
MAX_METADATA_VALUE_CHARS = 512
VISIBILITIES = ("workspace", "private")


def path_problems(path: str, field: str = "path") -> list[Problem]:
    """What is wrong with a memory's path: it starts with '/', holds 1 to 20 segments, none
    empty, '.' or '..', at most 1,024 bytes of UTF-8, in NFC, without control characters."""
    if SURROGATE.search(path):
        return [Problem("a path is valid UTF-8 text", field)]
    problems = []
    if not path.startswith("/"):
        problems.append(Problem("a path starts with '/'", field))
    segments = path[1:].split("/") if path.startswith("/") else path.split("/")
    if len(path.encode()) > MAX_PATH_BYTES:
        problems.append(Problem(f"a path holds at most {MAX_PATH_BYTES} bytes", field))
    if len(segments) > MAX_SEGMENTS:
        problems.append(Problem(f"a path holds at most {MAX_SEGMENTS} segments", field))
    if "" in segments:
        problems.append(Problem("a path has no empty segment (no '//', no trailing '/')", field))
    if "." in segments or ".." in segments:
        problems.append(Problem("a path has no '.' or '..' segment", field))
    if BAD_PATH_CHAR.search(path):
        problems.append(Problem("a path holds no control or formatting character", field))
    if unicodedata.normalize("NFC", path) != path:
        problems.append(Problem("a path is in Unicode NFC", field))
    return problems


def prefix_problems(prefix: str, field: str = "path_prefix") -> list[Problem]:
    """A listing's prefix: '/' or a path of whole segments ending in '/'."""
    if prefix == "/":
        return []
    if not prefix.endswith("/"):
        return [Problem("a path prefix ends with '/'", field)]
    return path_problems(prefix[:-1], field)


def content_problems(content: str, field: str = "content") -> list[Problem]:
    """A memory's content: UTF-8 text of at most 102,400 bytes."""
    if SURROGATE.search(content):
        return [Problem("content is valid UTF-8 text", field)]
    size = len(content.encode())
    if size > MAX_CONTENT_BYTES:
        return [Problem(f"content holds {size} bytes, more than {MAX_CONTENT_BYTES}", field)]
    return []


def name_problems(name: str, field: str = "name") -> list[Problem]:
    """A store's name: 1 to 255 characters, no control character."""
    problems = []
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        problems.append(Problem(f"a name holds 1 to {MAX_NAME_CHARS} characters", field))
    if any(unicodedata.category(c) == "Cc" for c in name):
        problems.append(Problem("a name holds no control character", field))
    return problems


def description_problems(description: str, field: str = "description") -> list[Problem]:
    """A store's description: at most 1,024 characters."""
    if len(description) > MAX_DESCRIPTION_CHARS:
        return [Problem(f"a description holds at most {MAX_DESCRIPTION_CHARS} characters", field)]
    return []


def merge_metadata(
    current: Mapping[str, str], given: Mapping[str, str | None], field: str = "metadata"
) -> tuple[dict[str, str], list[Problem]]:
    """``given`` merged into ``current`` (a string sets its key, None removes it, keys left out
    are kept), and what is wrong with the result: at most 16 pairs, keys of 1 to 64
    characters, values of at most 512."""
    merged = dict(current)
    problems = []
    for key, value in given.items():
        if not 1 <= len(key) <= MAX_METADATA_KEY_CHARS:
            problems.append(
                Problem(f"a metadata key holds 1 to {MAX_METADATA_KEY_CHARS} characters", field)
            )
        if value is None:
            merged.pop(key, None)
            continue
        if len(value) > MAX_METADATA_VALUE_CHARS:
            problems.append(
                Problem(
                    f"the value of {key!r} holds more than {MAX_METADATA_VALUE_CHARS} characters",
                    f"{field}.{key}",
                )
            )
        merged[key] = value
    if len(merged) > MAX_METADATA_PAIRS:
        problems.append(Problem(f"metadata holds at most {MAX_METADATA_PAIRS} pairs", field))
    return merged, problems
