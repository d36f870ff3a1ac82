"""How an archive's problems are worded: names made safe to show, one problem per member, and
the error listing them all."""

from __future__ import annotations

import unicodedata

from resolvers.common.errors import Code, DomainError, Problem
from resolvers.skills.archive import limits

_SHOWN_NAME_CHARS = 200


def shown(name: str) -> str:
    """A name safe to show in a message or a terminal: control and format characters (bidi
    overrides, line separators) and undecodable bytes escaped, long names cut."""
    if len(name) > _SHOWN_NAME_CHARS:
        name = name[:_SHOWN_NAME_CHARS] + "..."
    out: list[str] = []
    for char in name:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def archive_problem(message: str) -> Problem:
    return Problem(message, field="archive")


def member_problem(name: str, message: str) -> Problem:
    return Problem(message, field=f"archive/{shown(name)}")


def total_problem() -> Problem:
    return archive_problem(
        f"unpacks to more than {limits.MAX_TOTAL_BYTES} bytes, the limit for the whole archive"
    )


def refused(problems: list[Problem]) -> DomainError:
    first = problems[0]
    where = (first.field or "archive").removeprefix("archive/")
    subject = "the archive" if where == "archive" else f"'{where}'"
    more = len(problems) - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return DomainError(
        Code.SCHEMA_VALIDATION_FAILED,
        f"The archive was refused: {subject} {first.message}{tail}.",
        problems,
    )


def entries_problem() -> Problem:
    return archive_problem(f"holds more than {limits.MAX_ENTRIES} members (files and folders)")
