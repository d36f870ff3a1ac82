"""The one path validator of skill files (DESIGN §3), shared by archives and the folder format.

``path_faults`` finds what is wrong with a path once; the archive reader and the folder format
each word those faults in their own messages. ``fold`` is the key two paths share when they land
at one place on a case-insensitive, normalisation-insensitive disk.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Longest path accepted, in characters (archive member names and drive paths alike).
MAX_PATH_CHARS = 1024
# Characters refused in a file path: every Cc control, line and paragraph separators, the
# byte-order mark and the bidirectional formatting characters (they disguise a path).
BAD_PATH_CHAR = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
SURROGATE = re.compile("[\ud800-\udfff]")
_DRIVE_LETTER = re.compile(r"[A-Za-z]:")


@dataclass(frozen=True, slots=True)
class PathFaults:
    """What is wrong with one path (a folder's without its trailing slash); all false: none."""

    empty: bool
    too_long: bool
    surrogate: bool
    bad_chars: tuple[str, ...]  # sorted, each once: controls, separators, bidi characters
    backslash: bool
    leading_slash: bool
    leading_backslash: bool
    drive_letter: bool
    dot_dot: bool
    dot: bool
    empty_segment: bool  # '//' or a trailing '/', a leading '/' not counted

    @property
    def controls(self) -> list[str]:
        """The bad characters that are Cc controls (NUL included)."""
        return [c for c in self.bad_chars if unicodedata.category(c) == "Cc"]


def path_faults(path: str) -> PathFaults:
    """Every fault of ``path`` that archives and folders both refuse."""
    segments = path.split("/")
    inner = segments[1:] if path.startswith("/") else segments
    return PathFaults(
        empty=path == "",
        too_long=len(path) > MAX_PATH_CHARS,
        surrogate=SURROGATE.search(path) is not None,
        bad_chars=tuple(sorted({m.group() for m in BAD_PATH_CHAR.finditer(path)})),
        backslash="\\" in path,
        leading_slash=path.startswith("/"),
        leading_backslash=path.startswith("\\"),
        drive_letter=_DRIVE_LETTER.match(path) is not None,
        dot_dot=".." in segments,
        dot="." in segments,
        empty_segment=path != "" and "" in inner,
    )


def fold(path: str) -> str:
    """The key of Unicode's canonical caseless match (D145): NFC of the case fold of the NFD.

    Case folding is not closed under normalisation either way: it can decompose (``ǰ``, ``ΐ``)
    or meet a combining mark that composition moves (U+0345), so the text is decomposed before
    folding and composed again after. Not NFKC: compatibility forms (``x²`` and ``x2``) are
    different names on disk.
    """
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", path).casefold())
