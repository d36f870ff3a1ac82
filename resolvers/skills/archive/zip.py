"""Reading a zip archive's members as hostile input: entry count, local headers, overlapping
entries, and contents decompressed in bounded steps with their CRC checked."""

from __future__ import annotations

import io
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

from resolvers.common.errors import Problem
from resolvers.skills.archive import limits
from resolvers.skills.archive.inflate import Corrupt, decompress
from resolvers.skills.archive.members import Kind, Member, Read, normal_mode
from resolvers.skills.archive.problems import archive_problem, entries_problem, shown


def zip_entry_count(data: bytes) -> int | None:
    """How many entries the zip's central directory holds, counted up to MAX_ENTRIES + 1
    before the standard library parses them all (None when the directory is not found)."""
    end_record = getattr(zipfile, "_EndRecData", None)
    if end_record is None:
        return None
    try:
        record: Any = end_record(io.BytesIO(data))
        if not record:
            return None
        size, location = int(record[5]), int(record[9])
        start = location - size - (76 if record[0] == b"PK\x06\x06" else 0)
    except Exception:
        return None
    end = min(start + size, len(data))
    count, position = 0, max(start, 0)
    while position + 46 <= end and data[position : position + 4] == b"PK\x01\x02":
        count += 1
        if count > limits.MAX_ENTRIES:
            break
        name, extra, comment = struct.unpack_from("<HHH", data, position + 28)
        position += 46 + name + extra + comment
    return count


def zip_members(data: bytes, problems: list[Problem]) -> tuple[list[Member], bool]:
    count = zip_entry_count(data)
    if count is not None and count > limits.MAX_ENTRIES:
        problems.append(entries_problem())
        return [], True
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except Exception as exc:  # anything the parser trips on is a corrupt archive
        problems.append(archive_problem(f"is not a readable zip archive ({shown(str(exc))})"))
        return [], True
    if len(infos) > limits.MAX_ENTRIES:
        problems.append(entries_problem())
        return [], True
    members = [_zip_member(data, info) for info in infos]
    _mark_overlaps(members)
    return members, False


def _zip_name(info: zipfile.ZipInfo) -> tuple[str, bytes]:
    """The entry's name (UTF-8 even when the flag for it is missing, when it decodes) and the
    bytes it is stored as."""
    if info.flag_bits & 0x800:
        return info.orig_filename, info.orig_filename.encode("utf-8")
    raw = info.orig_filename.encode("cp437")
    try:
        return raw.decode("utf-8"), raw
    except UnicodeDecodeError:
        return info.orig_filename, raw


def _zip_member(data: bytes, info: zipfile.ZipInfo) -> Member:
    name, raw_name = _zip_name(info)
    unix = info.create_system == 3
    unix_mode = info.external_attr >> 16 if unix else 0
    file_type = stat.S_IFMT(unix_mode)
    kind: Kind
    blocked: list[str] = []
    if file_type == stat.S_IFLNK:
        kind, blocked = "other", ["is a symbolic link (links are refused)"]
    elif file_type not in (0, stat.S_IFREG, stat.S_IFDIR):
        kind, blocked = "other", [f"is {_file_type_name(file_type)}, not a regular file or folder"]
    elif (
        name.endswith("/") or file_type == stat.S_IFDIR or (not unix and info.external_attr & 0x10)
    ):
        kind = "dir"
    else:
        kind = "file"
    path = name[:-1] if kind == "dir" and name.endswith("/") else name
    mode = normal_mode(unix_mode & 0o777 if unix else 0o644)
    member = Member(name, path, kind, info.file_size if kind == "file" else 0, mode, blocked)
    data_start = _local_header(data, info, raw_name, blocked)
    if data_start is None:
        return member
    member.span = (info.header_offset, data_start + info.compress_size)
    if kind != "file" or blocked:
        return member
    if info.flag_bits & 0x1:
        blocked.append("is encrypted")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        blocked.append(
            f"uses compression method {info.compress_type}: only stored and deflate are accepted"
        )
    if info.file_size > limits.MAX_FILE_BYTES:
        blocked.append(
            f"declares {info.file_size} bytes, more than the limit of "
            f"{limits.MAX_FILE_BYTES} per file"
        )
    if not blocked:
        member.read = _zip_reader(data, info, data_start)
    return member


def _local_header(
    data: bytes, info: zipfile.ZipInfo, raw_name: bytes, blocked: list[str]
) -> int | None:
    """Where the entry's compressed data starts, after its local header (problems noted)."""
    start = info.header_offset
    if start < 0 or start + 30 > len(data) or data[start : start + 4] != b"PK\x03\x04":
        blocked.append("has no local header where the directory says (the archive is corrupt)")
        return None
    flags, method = struct.unpack_from("<HH", data, start + 6)
    name_length, extra_length = struct.unpack_from("<HH", data, start + 26)
    data_start = int(start + 30 + name_length + extra_length)
    local_name = data[start + 30 : start + 30 + name_length]
    if (
        local_name != raw_name
        or method != info.compress_type
        or (flags & 0x1) != (info.flag_bits & 0x1)
    ):
        blocked.append("has a local header that differs from the directory (corrupt archive)")
    elif data_start + info.compress_size > len(data):
        blocked.append("is cut short (the archive is truncated)")
    return data_start


def _mark_overlaps(members: list[Member]) -> None:
    """Refuse entries whose bytes overlap another's (several entries over one compressed
    stream is a known zip-bomb shape)."""
    spans = sorted(
        (member.span, index, member)
        for index, member in enumerate(members)
        if member.span is not None
    )
    reach, owner = -1, ""
    for (start, end), _, member in spans:
        if start < reach:
            member.blocked.append(f"overlaps the data of '{shown(owner)}'")
            member.read = None
        if end > reach:
            reach, owner = end, member.name


def _zip_reader(data: bytes, info: zipfile.ZipInfo, start: int) -> Callable[[int], Read]:
    def read(limit: int) -> Read:
        raw = memoryview(data)[start : start + info.compress_size]
        if info.compress_type == zipfile.ZIP_STORED:
            if len(raw) > limit:
                return Read(None, limit + 1, over=True)
            content = bytes(raw)
        else:
            chunks: list[bytes] = []
            size = 0
            try:
                for chunk in decompress(raw, gzip_stream=False, budget=limit):
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > limit:
                        return Read(None, size, over=True)
                    if size >= limits.RATIO_FLOOR_BYTES and size > limits.MAX_RATIO * len(raw):
                        return Read(
                            None,
                            size,
                            problem=f"unpacks to more than {limits.MAX_RATIO} times its compressed "
                            f"size of {len(raw)} bytes",
                        )
            except Corrupt as exc:
                return Read(None, size, problem=f"has corrupt compressed data ({exc})")
            content = b"".join(chunks)
        if len(content) != info.file_size:
            return Read(
                None,
                len(content),
                problem=f"holds {len(content)} bytes but its header declares {info.file_size}",
            )
        if zlib.crc32(content) != info.CRC:
            return Read(None, len(content), problem="fails its CRC check (the data is corrupt)")
        return Read(content, len(content))

    return read


def _file_type_name(file_type: int) -> str:
    names = {
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
        stat.S_IFIFO: "a FIFO",
        stat.S_IFSOCK: "a socket",
    }
    return names.get(file_type, f"a file of type {file_type:o}")
