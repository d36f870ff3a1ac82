"""Reading a skill archive (pure: no database, nothing written to disk).

``read_archive`` reads an uploaded zip, tar or tar.gz of skill folders as hostile input, entirely
in memory, and refuses it with every problem found: paths that leave their folder, links, devices,
duplicate or colliding names, and zip bombs (declared size, real size and compression ratio, the
real size measured by decompressing in bounded steps).
"""

from __future__ import annotations

import io
from dataclasses import replace

from resolvers.common.errors import Problem
from resolvers.skills.archive import limits
from resolvers.skills.archive.layout import EXPECTED_LAYOUT, layout_problems, path_problem
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder, Member
from resolvers.skills.archive.problems import (
    archive_problem,
    member_problem,
    refused,
    total_problem,
)
from resolvers.skills.archive.subtree import Subtree, select
from resolvers.skills.archive.tar import gzip_members, tar_members
from resolvers.skills.archive.zip import zip_members


def read_archive(
    data: bytes,
    *,
    filename: str | None = None,
    content_type: str | None = None,
    subtree: Subtree | None = None,
) -> list[ArchiveFolder]:
    """The skill folders of a zip, tar or tar.gz archive, or DomainError listing every problem.

    The format is told by the archive's first bytes; ``filename`` and ``content_type`` are only
    hints for archives without a signature (an old tar, a zip with bytes before it). With
    ``subtree``, the one folder it names (a hostile name anywhere in the archive still refuses
    it; links and the like only inside that folder).
    """
    _check_size(data)
    # Problems of the archive as a whole (corrupt, over a limit) come after its members'.
    whole: list[Problem] = []
    members, stop = _members(data, _detect(data, filename, content_type), whole)
    problems: list[Problem] = []
    if subtree is not None:
        problems.extend(_name_problems(members, blocked=False))
        members, found = select(members, subtree)
        problems.extend(found)
        problems.extend(p for m in members for p in _blocked_problems(m))
    else:
        problems.extend(_name_problems(members))
    problems.extend([*layout_problems(members), *whole])
    files = [m for m in members if m.kind == "file"]
    declared = sum(m.declared for m in files if not m.blocked)
    if not stop and declared > limits.MAX_TOTAL_BYTES:
        message = f"declares {declared} bytes of files, more than the limit of "
        problems.append(archive_problem(message + str(limits.MAX_TOTAL_BYTES)))
        stop = True
    contents: dict[int, bytes] = {}
    if not stop:
        _read_contents(files, contents, problems)
        problems.extend(_ratio_problems(data, contents))
    if not problems and not files:
        problems.append(archive_problem(f"holds no file: expected {EXPECTED_LAYOUT}"))
    if problems:
        raise refused(problems)
    return _folders(files, contents)


def _check_size(data: bytes) -> None:
    """Refuse an empty archive, or one over the upload limit."""
    if not data:
        raise refused([archive_problem("is empty")])
    if len(data) > limits.MAX_ARCHIVE_BYTES:
        message = f"is {len(data)} bytes, more than the limit of {limits.MAX_ARCHIVE_BYTES}"
        raise refused([archive_problem(message)])


def _members(data: bytes, kind: str, whole: list[Problem]) -> tuple[list[Member], bool]:
    """The archive's members, by format, and whether reading must stop (problems in ``whole``);
    one leading "./" (as `tar -C dir .` writes) is the archive's own root."""
    if kind == "zip":
        members, stop = zip_members(data, whole)
    elif kind == "tar":
        members, stop = tar_members(io.BytesIO(data), whole, truncated=False)
    elif kind == "gzip":
        members, stop = gzip_members(data, whole)
    else:
        raise refused([archive_problem(kind)])
    rooted = [
        replace(m, path=m.path[2:]) if m.path.startswith("./") else m
        for m in members
        if not (m.kind == "dir" and m.path in (".", "./"))
    ]
    return rooted, stop


def _name_problems(members: list[Member], *, blocked: bool = True) -> list[Problem]:
    """Each member's refused name and (with ``blocked``) what blocks reading it, in order."""
    problems: list[Problem] = []
    for member in members:
        reason = path_problem(member.path)
        if reason is not None:
            problems.append(member_problem(member.name, reason))
        if blocked:
            problems.extend(_blocked_problems(member))
    return problems


def _blocked_problems(member: Member) -> list[Problem]:
    """What blocks reading a member (a link, a device, an encrypted entry ...)."""
    return [member_problem(member.name, reason) for reason in member.blocked]


def _ratio_problems(data: bytes, contents: dict[int, bytes]) -> list[Problem]:
    """The whole archive unpacking to more than MAX_RATIO times its size."""
    total = sum(len(content) for content in contents.values())
    if total >= limits.RATIO_FLOOR_BYTES and total > limits.MAX_RATIO * len(data):
        return [
            archive_problem(
                f"unpacks to more than {limits.MAX_RATIO} times its size ({total} bytes from "
                f"{len(data)})"
            )
        ]
    return []


def _read_contents(
    files: list[Member], contents: dict[int, bytes], problems: list[Problem]
) -> None:
    """Read every readable file, in order, until the bytes really unpacked pass the limit."""
    total = 0
    for member in files:
        if member.blocked or member.read is None:
            continue
        if total > limits.MAX_TOTAL_BYTES:
            problems.append(total_problem())
            break
        limit = max(0, min(limits.MAX_FILE_BYTES, limits.MAX_TOTAL_BYTES - total))
        got = member.read(limit)
        total += got.size
        if got.over:
            if limit < limits.MAX_FILE_BYTES:
                problems.append(total_problem())
                break
            problems.append(
                member_problem(
                    member.name,
                    f"unpacks to more than {limits.MAX_FILE_BYTES} bytes, the limit per file, "
                    f"though its header declares {member.declared}",
                )
            )
        elif got.problem is not None:
            problems.append(member_problem(member.name, got.problem))
        elif got.content is not None:
            contents[id(member)] = got.content


def _folders(files: list[Member], contents: dict[int, bytes]) -> list[ArchiveFolder]:
    found: dict[str, dict[str, ArchiveFile]] = {}
    for member in files:
        top, rest = member.path.split("/", 1)
        found.setdefault(top, {})[rest] = ArchiveFile(rest, contents[id(member)], member.mode)
    return [
        ArchiveFolder(name, {path: found[name][path] for path in sorted(found[name])})
        for name in sorted(found)
    ]


def _detect(data: bytes, filename: str | None, content_type: str | None) -> str:
    """ "zip", "tar" or "gzip", or why the data is none of them."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08"):
        return "zip"
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[257:262] == b"ustar":
        return "tar"
    for magic, label in (
        (b"BZh", "a bzip2"),
        (b"\xfd7zXZ\x00", "an xz"),
        (b"\x28\xb5\x2f\xfd", "a zstd"),
        (b"7z\xbc\xaf\x27\x1c", "a 7z"),
        (b"Rar!", "a RAR"),
    ):
        if data.startswith(magic):
            return f"is {label} file: only zip, tar and tar.gz archives are accepted"
    # No signature at the start: a zip may still end with its directory (bytes before it), an
    # old tar has no signature at all.
    if data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 0xFFFF)) >= 0:
        return "zip"
    name = (filename or "").lower()
    kind = (content_type or "").lower()
    if name.endswith(".tar") or "x-tar" in kind:
        return "tar"
    return "is not a zip, tar or tar.gz archive"
