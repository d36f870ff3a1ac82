"""Reading a tar archive's members (and those of a gzip-compressed one) as hostile input:
guarded pax headers, links and devices refused, contents read up to the limits."""

from __future__ import annotations

import io
import re
import tarfile
from collections.abc import Callable
from typing import Self

from resolvers.common.errors import Problem
from resolvers.skills.archive import limits
from resolvers.skills.archive.inflate import OUT_CHUNK, Corrupt, decompress
from resolvers.skills.archive.members import Kind, Member, Read, normal_mode
from resolvers.skills.archive.problems import archive_problem, entries_problem, shown, total_problem

# A tar.gz may unpack to the files plus their headers and padding, never more than this much
# per member beyond limits.MAX_TOTAL_BYTES.
_TAR_OVERHEAD_PER_ENTRY = 4 * 1024
_TAR_SLACK = 64 * 1024
# A pax extended header longer than this is refused (the standard library parses them with
# regular expressions that are slow on long runs of digits).
_MAX_PAX_BYTES = 64 * 1024
_LONG_DIGIT_RUN = re.compile(rb"[0-9]{33}")


def _zero_from(buffer: io.BytesIO, offset: int) -> bool:
    """Whether the buffer holds only zero bytes from offset on (the tar's end blocks)."""
    buffer.seek(offset)
    while chunk := buffer.read(OUT_CHUNK):
        if chunk.strip(b"\x00"):
            return False
    return True


class _HostileTar(Exception):
    """A tar header shaped to exhaust the parser."""


class _GuardedTarInfo(tarfile.TarInfo):
    """Refuses oversized pax headers and long digit runs before the standard library parses
    them (its pax parser uses regular expressions that backtrack on those)."""

    def _proc_pax(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
        if not 0 <= self.size <= _MAX_PAX_BYTES:
            raise _HostileTar(f"a pax header of {self.size} bytes")
        where = archive.fileobj.tell()
        header = archive.fileobj.read(self.size)
        archive.fileobj.seek(where)
        if _LONG_DIGIT_RUN.search(header):
            raise _HostileTar("a pax header with a run of more than 32 digits")
        found: tarfile.TarInfo = super()._proc_pax(archive)  # type: ignore[misc]
        return found

    @classmethod
    def frombuf(cls, buf: bytes | bytearray, encoding: str, errors: str) -> Self:
        """The header, its name kept whole: the standard library cuts a name at its first NUL,
        which would hide the NUL from the name check (a ustar prefix likewise)."""
        info = super().frombuf(buf, encoding, errors)
        name = _whole_field(buf[0:100], encoding, errors)
        prefix = (
            _whole_field(buf[345:500], encoding, errors) if buf[257:263] == b"ustar\x00" else None
        )
        if name is not None or prefix is not None:
            name = name if name is not None else _cut_field(buf[0:100], encoding, errors)
            if prefix is None:
                prefix = _cut_field(buf[345:500], encoding, errors)
            info.name = f"{prefix}/{name}" if prefix else name
        return info

    def _proc_gnulong(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
        where = archive.fileobj.tell()
        raw = archive.fileobj.read(self.size)
        archive.fileobj.seek(where)
        found: tarfile.TarInfo = super()._proc_gnulong(archive)  # type: ignore[misc]
        whole = _whole_field(raw, archive.encoding or "utf-8", archive.errors)
        if whole is not None and self.type == tarfile.GNUTYPE_LONGNAME:
            found.name = whole
        return found


def _cut_field(raw: bytes | bytearray, encoding: str, errors: str) -> str:
    """A header field up to its first NUL, as the standard library reads it."""
    return bytes(raw).split(b"\x00", 1)[0].decode(encoding, errors)


def _whole_field(raw: bytes | bytearray, encoding: str, errors: str) -> str | None:
    """A NUL-padded header field holding a NUL before its end, decoded whole; None for a
    field whose only NULs are its padding."""
    text = bytes(raw).rstrip(b"\x00")
    if b"\x00" not in text:
        return None
    return text.decode(encoding, errors)


_GZIP_RATIO_FLOOR_BYTES = 8 * 1024 * 1024


def gzip_members(data: bytes, problems: list[Problem]) -> tuple[list[Member], bool]:
    size_cap = limits.MAX_TOTAL_BYTES + limits.MAX_ENTRIES * _TAR_OVERHEAD_PER_ENTRY + _TAR_SLACK
    # The whole stream may unpack to at most limits.MAX_RATIO times its size (with a floor for small
    # archives, whose tar padding alone compresses far better): a bomb stops here, early.
    ratio_cap = max(limits.MAX_RATIO * len(data), _GZIP_RATIO_FLOOR_BYTES)
    cap = min(size_cap, ratio_cap)
    buffer = io.BytesIO()
    try:
        for chunk in decompress(memoryview(data), gzip_stream=True, budget=cap):
            buffer.write(chunk)
    except Corrupt as exc:
        problems.append(archive_problem(f"is not a readable gzip file ({exc})"))
        return [], True
    if buffer.tell() > cap and cap < size_cap:
        problems.append(
            archive_problem(
                f"unpacks to more than {limits.MAX_RATIO} times its size (a gzip bomb?)"
            )
        )
        return [], True
    truncated = buffer.tell() > cap
    buffer.seek(0)
    members, stop = tar_members(buffer, problems, truncated=truncated)
    if truncated:
        problems.append(total_problem())
        stop = True
    return members, stop


def tar_members(
    buffer: io.BytesIO, problems: list[Problem], *, truncated: bool
) -> tuple[list[Member], bool]:
    """The members of a tar held in ``buffer``. When ``truncated`` (a tar.gz cut at the size
    limit), the cut at the end is expected and not reported."""
    try:
        archive = tarfile.open(
            fileobj=buffer,
            mode="r:",
            tarinfo=_GuardedTarInfo,
            encoding="utf-8",
            errors="surrogateescape",
        )
    except Exception as exc:
        if not truncated:
            problems.append(archive_problem(f"is not a readable tar archive ({shown(str(exc))})"))
        return [], True
    members: list[Member] = []
    stop = False
    while True:
        try:
            info = archive.next()
        except Exception as exc:
            if not truncated:
                problems.append(archive_problem(f"is a corrupt tar archive ({shown(str(exc))})"))
            break
        if info is None:
            if not truncated and not _zero_from(buffer, archive.offset):
                problems.append(
                    archive_problem(
                        f"is a corrupt tar archive (no valid header at byte {archive.offset})"
                    )
                )
            break
        if len(members) == limits.MAX_ENTRIES:
            problems.append(entries_problem())
            stop = True
            break
        members.append(_tar_member(archive, info))
    return members, stop


_TAR_TYPES: dict[bytes, str] = {
    tarfile.SYMTYPE: "is a symbolic link (links are refused)",
    tarfile.LNKTYPE: "is a hard link (links are refused)",
    tarfile.CHRTYPE: "is a character device, not a regular file or folder",
    tarfile.BLKTYPE: "is a block device, not a regular file or folder",
    tarfile.FIFOTYPE: "is a FIFO, not a regular file or folder",
    tarfile.GNUTYPE_SPARSE: "is a sparse file, which is not accepted",
}


def _tar_member(archive: tarfile.TarFile, info: tarfile.TarInfo) -> Member:
    kind: Kind
    blocked: list[str] = []
    if info.type in _TAR_TYPES:
        kind, blocked = "other", [_TAR_TYPES[info.type]]
    elif info.isdir():
        kind = "dir"
    elif info.isreg():
        kind = "file"
        if info.sparse is not None:
            blocked.append(_TAR_TYPES[tarfile.GNUTYPE_SPARSE])
        elif info.size < 0:
            blocked.append("declares a negative size (the archive is corrupt)")
        elif info.size > limits.MAX_FILE_BYTES:
            blocked.append(
                f"declares {info.size} bytes, more than the limit of "
                f"{limits.MAX_FILE_BYTES} per file"
            )
    else:
        kind = "other"
        kind_name = shown(info.type.decode("latin-1"))
        blocked.append(f"is a tar entry of type '{kind_name}', not a regular file or folder")
    size = info.size if kind == "file" else 0
    member = Member(info.name, info.name, kind, size, normal_mode(info.mode), blocked)
    if kind == "file" and not blocked:
        member.read = _tar_reader(archive, info)
    return member


def _tar_reader(archive: tarfile.TarFile, info: tarfile.TarInfo) -> Callable[[int], Read]:
    def read(limit: int) -> Read:
        chunks: list[bytes] = []
        size = 0
        try:
            stream = archive.extractfile(info)
            if stream is None:
                return Read(None, 0, problem="is not a regular file")
            while size <= limit:
                chunk = stream.read(min(OUT_CHUNK, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except Exception as exc:
            return Read(None, size, problem=f"cannot be read ({shown(str(exc))})")
        if size > limit:
            return Read(None, size, over=True)
        if size != info.size:
            return Read(None, size, problem=f"holds {size} bytes but declares {info.size}")
        return Read(b"".join(chunks), size)

    return read
