"""What an archive holds: skill folders and their files, and the members read on the way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class ArchiveFile:
    """One file of a skill folder: its path inside the folder, its bytes and its mode."""

    path: str
    content: bytes
    mode: int


@dataclass(frozen=True)
class ArchiveFolder:
    """One skill folder: its name (the archive's top-level folder) and its files by path."""

    name: str
    files: dict[str, ArchiveFile]


@dataclass
class Read:
    """What reading one member gave: its bytes, or why not."""

    content: bytes | None
    size: int  # bytes really decompressed (at most the limit + 1)
    over: bool = False  # more than the limit asked for
    problem: str | None = None


Kind = Literal["file", "dir", "other"]


@dataclass
class Member:
    name: str  # as in the archive
    path: str  # the name without a folder's trailing slash
    kind: Kind
    declared: int  # the size the archive declares (files only)
    mode: int
    blocked: list[str] = field(default_factory=list)  # why the contents cannot be read
    read: Callable[[int], Read] | None = None
    span: tuple[int, int] | None = None  # zip: from the local header to the end of the data


def normal_mode(mode: int) -> int:
    """0o755 when any execute bit is set, else 0o644."""
    return 0o755 if mode & 0o111 else 0o644
