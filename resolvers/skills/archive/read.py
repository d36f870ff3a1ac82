"""Skill archives in and out (pure: no database, nothing written to disk).

``read_archive`` reads an uploaded zip, tar or tar.gz of skill folders as hostile input, entirely
in memory, and refuses it with every problem found: paths that leave their folder, links, devices,
duplicate or colliding names, and zip bombs (declared size, real size and compression ratio, the
real size measured by decompressing in bounded steps). ``write_zip`` and ``write_tar_gz`` write
deterministic archives that ``read_archive`` reads back to the same folders, files and modes.
"""

from __future__ import annotations

import gzip
import io
import re
import stat
import struct
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from resolvers.common.errors import Code, DomainError, Problem

MAX_ARCHIVE_BYTES = 50 * 1024 * 1024  # the upload itself
MAX_ENTRIES = 5_000  # members in the archive (files + folders)
MAX_TOTAL_BYTES = 200 * 1024 * 1024  # all files, uncompressed, really read (not just declared)
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_RATIO = 100  # uncompressed / compressed, per member and overall

# Members that unpack to less than this are not held to MAX_RATIO (tiny files compress oddly).
RATIO_FLOOR_BYTES = 4 * 1024
# Longest member name accepted (a longer one is refused, and shown cut).
MAX_NAME_CHARS = 1_024
# A tar.gz may unpack to the files plus their headers and padding, never more than this much
# per member beyond MAX_TOTAL_BYTES.
_TAR_OVERHEAD_PER_ENTRY = 4 * 1024
_TAR_SLACK = 64 * 1024
# A pax extended header longer than this is refused (the standard library parses them with
# regular expressions that are slow on long runs of digits).
_MAX_PAX_BYTES = 64 * 1024
_LONG_DIGIT_RUN = re.compile(rb"[0-9]{33}")
_MAX_GZIP_MEMBERS = 1_000
_IN_CHUNK = 64 * 1024
_OUT_CHUNK = 1024 * 1024
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:")
_SHOWN_NAME_CHARS = 200
_EPOCH_1980 = (1980, 1, 1, 0, 0, 0)
EXPECTED_LAYOUT = "one folder per skill, like my-skill/SKILL.md and my-skill/scripts/run.sh"


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


# Reading ---------------------------------------------------------------------------------------


class _Corrupt(Exception):
    """Compressed data that cannot be decompressed."""


@dataclass
class _Read:
    """What reading one member gave: its bytes, or why not."""

    content: bytes | None
    size: int  # bytes really decompressed (at most the limit + 1)
    over: bool = False  # more than the limit asked for
    problem: str | None = None


Kind = Literal["file", "dir", "other"]


@dataclass
class _Member:
    name: str  # as in the archive
    path: str  # the name without a folder's trailing slash
    kind: Kind
    declared: int  # the size the archive declares (files only)
    mode: int
    blocked: list[str] = field(default_factory=list)  # why the contents cannot be read
    read: Callable[[int], _Read] | None = None
    span: tuple[int, int] | None = None  # zip: from the local header to the end of the data


def read_archive(
    data: bytes, *, filename: str | None = None, content_type: str | None = None
) -> list[ArchiveFolder]:
    """The skill folders of a zip, tar or tar.gz archive, or DomainError listing every problem.

    The format is told by the archive's first bytes; ``filename`` and ``content_type`` are only
    hints for archives without a signature (an old tar, a zip with bytes before it).
    """
    if not data:
        raise _refused([_archive_problem("is empty")])
    if len(data) > MAX_ARCHIVE_BYTES:
        raise _refused(
            [_archive_problem(f"is {len(data)} bytes, more than the limit of {MAX_ARCHIVE_BYTES}")]
        )
    kind = _detect(data, filename, content_type)
    # Problems of the archive as a whole (corrupt, over a limit) come after its members'.
    whole: list[Problem] = []
    if kind == "zip":
        members, stop = _zip_members(data, whole)
    elif kind == "tar":
        members, stop = _tar_members(io.BytesIO(data), whole, truncated=False)
    elif kind == "gzip":
        members, stop = _gzip_members(data, whole)
    else:
        raise _refused([_archive_problem(kind)])

    # `tar -C dir .` names everything from "./": one leading "./" is the archive's own root.
    members = [
        replace(m, path=m.path[2:]) if m.path.startswith("./") else m
        for m in members
        if not (m.kind == "dir" and m.path in (".", "./"))
    ]
    problems: list[Problem] = []
    for member in members:
        reason = path_problem(member.path)
        if reason is not None:
            problems.append(_member_problem(member.name, reason))
        for reason in member.blocked:
            problems.append(_member_problem(member.name, reason))
    problems.extend(_layout_problems(members))
    problems.extend(whole)

    files = [m for m in members if m.kind == "file"]
    declared = sum(m.declared for m in files if not m.blocked)
    if not stop and declared > MAX_TOTAL_BYTES:
        problems.append(
            _archive_problem(
                f"declares {declared} bytes of files, more than the limit of {MAX_TOTAL_BYTES}"
            )
        )
        stop = True
    contents: dict[int, bytes] = {}
    if not stop:
        _read_contents(files, contents, problems)
        total = sum(len(content) for content in contents.values())
        if total >= RATIO_FLOOR_BYTES and total > MAX_RATIO * len(data):
            problems.append(
                _archive_problem(
                    f"unpacks to more than {MAX_RATIO} times its size ({total} bytes from "
                    f"{len(data)})"
                )
            )
    if not problems and not files:
        problems.append(_archive_problem(f"holds no file: expected {EXPECTED_LAYOUT}"))
    if problems:
        raise _refused(problems)
    return _folders(files, contents)


def _read_contents(
    files: list[_Member], contents: dict[int, bytes], problems: list[Problem]
) -> None:
    """Read every readable file, in order, until the bytes really unpacked pass the limit."""
    total = 0
    for member in files:
        if member.blocked or member.read is None:
            continue
        if total > MAX_TOTAL_BYTES:
            problems.append(_total_problem())
            break
        limit = max(0, min(MAX_FILE_BYTES, MAX_TOTAL_BYTES - total))
        got = member.read(limit)
        total += got.size
        if got.over:
            if limit < MAX_FILE_BYTES:
                problems.append(_total_problem())
                break
            problems.append(
                _member_problem(
                    member.name,
                    f"unpacks to more than {MAX_FILE_BYTES} bytes, the limit per file, "
                    f"though its header declares {member.declared}",
                )
            )
        elif got.problem is not None:
            problems.append(_member_problem(member.name, got.problem))
        elif got.content is not None:
            contents[id(member)] = got.content


def _folders(files: list[_Member], contents: dict[int, bytes]) -> list[ArchiveFolder]:
    found: dict[str, dict[str, ArchiveFile]] = {}
    for member in files:
        top, rest = member.path.split("/", 1)
        found.setdefault(top, {})[rest] = ArchiveFile(rest, contents[id(member)], member.mode)
    return [
        ArchiveFolder(name, {path: found[name][path] for path in sorted(found[name])})
        for name in sorted(found)
    ]


def normal_mode(mode: int) -> int:
    """0o755 when any execute bit is set, else 0o644."""
    return 0o755 if mode & 0o111 else 0o644


# Names and layout ------------------------------------------------------------------------------


def path_problem(path: str) -> str | None:
    """Why a member's path (a folder's without its trailing slash) is refused, or None."""
    if path == "":
        return "has an empty name"
    if len(path) > MAX_NAME_CHARS:
        return f"has a name longer than {MAX_NAME_CHARS} characters"
    if any("\ud800" <= char <= "\udfff" for char in path):
        return "has a name that is not valid UTF-8"
    if "\x00" in path:
        return "has a NUL character in its name"
    if any(unicodedata.category(char) == "Cc" for char in path):
        return "has a control character in its name"
    if path.startswith("/"):
        return "is an absolute path"
    if path.startswith("\\"):
        return "is an absolute Windows path"
    if _WINDOWS_DRIVE.match(path):
        return "starts with a Windows drive letter"
    if "\\" in path:
        return "has a backslash in its name (paths use /)"
    segments = path.split("/")
    if ".." in segments:
        return "has a '..' segment, which leaves its folder"
    if "" in segments or "." in segments:
        return "has an empty or '.' segment"
    return None


def _fold(path: str) -> str:
    return unicodedata.normalize("NFC", path).casefold()


def _layout_problems(members: list[_Member]) -> list[Problem]:
    """Files at the root, the same name twice, names differing only by case, and a file named
    like another member's folder (members whose own name is refused are left out)."""
    problems: list[Problem] = []
    explicit: dict[str, Kind] = {}  # path -> kind, of the members themselves
    node_kind: dict[str, str] = {}  # path -> "file" / "dir", of members and their folders
    node_owner: dict[str, str] = {}  # path -> the member that first placed it
    spelling: dict[str, str] = {}  # folded path -> its first spelling
    reported: set[str] = set()
    for member in members:
        if path_problem(member.path) is not None:
            continue
        segments = member.path.split("/")
        is_dir = member.kind == "dir"
        if not is_dir and len(segments) == 1:
            problems.append(
                _member_problem(member.name, f"is at the archive root: expected {EXPECTED_LAYOUT}")
            )
        previous = explicit.get(member.path)
        if previous is not None and (previous == "dir") == is_dir:
            problems.append(_member_problem(member.name, "appears twice in the archive"))
            continue
        explicit.setdefault(member.path, member.kind)
        nodes = [("/".join(segments[:depth]), "dir") for depth in range(1, len(segments))]
        nodes.append((member.path, "dir" if is_dir else "file"))
        for node, kind in nodes:
            first = spelling.setdefault(_fold(node), node)
            if first != node:
                if node not in reported:
                    reported.add(node)
                    where = "" if node == member.path else f"its folder '{_shown(node)}' "
                    problems.append(
                        _member_problem(
                            member.name, f"{where}differs only by case from '{_shown(first)}'"
                        )
                    )
                break
            placed = node_kind.setdefault(node, kind)
            node_owner.setdefault(node, member.name)
            if placed != kind:
                if kind == "file":
                    message = f"is a file named like the folder of '{_shown(node_owner[node])}'"
                elif node == member.path:
                    message = f"is a folder named like the file '{_shown(node)}'"
                else:
                    message = f"is inside '{_shown(node)}', which is a file"
                problems.append(_member_problem(member.name, message))
                break
    return problems


# Problems --------------------------------------------------------------------------------------


def _shown(name: str) -> str:
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


def _archive_problem(message: str) -> Problem:
    return Problem(message, field="archive")


def _member_problem(name: str, message: str) -> Problem:
    return Problem(message, field=f"archive/{_shown(name)}")


def _total_problem() -> Problem:
    return _archive_problem(
        f"unpacks to more than {MAX_TOTAL_BYTES} bytes, the limit for the whole archive"
    )


def _refused(problems: list[Problem]) -> DomainError:
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


# Format ----------------------------------------------------------------------------------------


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


# Zip -------------------------------------------------------------------------------------------


def _zip_entry_count(data: bytes) -> int | None:
    """How many entries the zip's central directory holds, counted up to MAX_ENTRIES + 1 before
    the standard library parses them all (None when the directory is not found)."""
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
        if count > MAX_ENTRIES:
            break
        name, extra, comment = struct.unpack_from("<HHH", data, position + 28)
        position += 46 + name + extra + comment
    return count


def _zip_members(data: bytes, problems: list[Problem]) -> tuple[list[_Member], bool]:
    count = _zip_entry_count(data)
    if count is not None and count > MAX_ENTRIES:
        problems.append(_entries_problem())
        return [], True
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except Exception as exc:  # anything the parser trips on is a corrupt archive
        problems.append(_archive_problem(f"is not a readable zip archive ({_shown(str(exc))})"))
        return [], True
    if len(infos) > MAX_ENTRIES:
        problems.append(_entries_problem())
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


def _zip_member(data: bytes, info: zipfile.ZipInfo) -> _Member:
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
    member = _Member(name, path, kind, info.file_size if kind == "file" else 0, mode, blocked)
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
    if info.file_size > MAX_FILE_BYTES:
        blocked.append(
            f"declares {info.file_size} bytes, more than the limit of {MAX_FILE_BYTES} per file"
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


def _mark_overlaps(members: list[_Member]) -> None:
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
            member.blocked.append(f"overlaps the data of '{_shown(owner)}'")
            member.read = None
        if end > reach:
            reach, owner = end, member.name


def _zip_reader(data: bytes, info: zipfile.ZipInfo, start: int) -> Callable[[int], _Read]:
    def read(limit: int) -> _Read:
        raw = memoryview(data)[start : start + info.compress_size]
        if info.compress_type == zipfile.ZIP_STORED:
            if len(raw) > limit:
                return _Read(None, limit + 1, over=True)
            content = bytes(raw)
        else:
            chunks: list[bytes] = []
            size = 0
            try:
                for chunk in _decompress(raw, gzip_stream=False, budget=limit):
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > limit:
                        return _Read(None, size, over=True)
                    if size >= RATIO_FLOOR_BYTES and size > MAX_RATIO * len(raw):
                        return _Read(
                            None,
                            size,
                            problem=f"unpacks to more than {MAX_RATIO} times its compressed "
                            f"size of {len(raw)} bytes",
                        )
            except _Corrupt as exc:
                return _Read(None, size, problem=f"has corrupt compressed data ({exc})")
            content = b"".join(chunks)
        if len(content) != info.file_size:
            return _Read(
                None,
                len(content),
                problem=f"holds {len(content)} bytes but its header declares {info.file_size}",
            )
        if zlib.crc32(content) != info.CRC:
            return _Read(None, len(content), problem="fails its CRC check (the data is corrupt)")
        return _Read(content, len(content))

    return read


def _decompress(src: memoryview, *, gzip_stream: bool, budget: int) -> Iterator[bytes]:
    """Decompress a raw deflate stream (or a gzip file, all its members) in bounded steps,
    yielding the output until it ends or more than ``budget`` bytes came out."""
    produced = 0
    for _ in range(_MAX_GZIP_MEMBERS if gzip_stream else 1):
        stream = zlib.decompressobj(31 if gzip_stream else -15)
        position = 0
        while not stream.eof:
            feed: bytes | memoryview = stream.unconsumed_tail
            if not feed and position < len(src):
                feed = src[position : position + _IN_CHUNK]
                position += len(feed)
            try:
                out = stream.decompress(feed, min(_OUT_CHUNK, budget + 1 - produced))
            except zlib.error as exc:
                raise _Corrupt(str(exc)) from None
            produced += len(out)
            if out:
                yield out
            if produced > budget:
                return
            if not out and not feed:
                raise _Corrupt("the compressed data ends early")
        if not gzip_stream:
            return
        src = src[position - len(stream.unused_data) - len(stream.unconsumed_tail) :]
        if bytes(src[:2]) == b"\x1f\x8b":
            continue  # another gzip member follows
        if not _all_zero(src):
            raise _Corrupt("data after the end of the gzip stream")
        return
    raise _Corrupt(f"more than {_MAX_GZIP_MEMBERS} gzip members")


# Tar -------------------------------------------------------------------------------------------


def _all_zero(view: memoryview) -> bool:
    return all(
        not view[at : at + _OUT_CHUNK].tobytes().strip(b"\x00")
        for at in range(0, len(view), _OUT_CHUNK)
    )


def _zero_from(buffer: io.BytesIO, offset: int) -> bool:
    """Whether the buffer holds only zero bytes from offset on (the tar's end blocks)."""
    buffer.seek(offset)
    while chunk := buffer.read(_OUT_CHUNK):
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


_GZIP_RATIO_FLOOR_BYTES = 8 * 1024 * 1024


def _gzip_members(data: bytes, problems: list[Problem]) -> tuple[list[_Member], bool]:
    size_cap = MAX_TOTAL_BYTES + MAX_ENTRIES * _TAR_OVERHEAD_PER_ENTRY + _TAR_SLACK
    # The whole stream may unpack to at most MAX_RATIO times its size (with a floor for small
    # archives, whose tar padding alone compresses far better): a bomb stops here, early.
    ratio_cap = max(MAX_RATIO * len(data), _GZIP_RATIO_FLOOR_BYTES)
    cap = min(size_cap, ratio_cap)
    buffer = io.BytesIO()
    try:
        for chunk in _decompress(memoryview(data), gzip_stream=True, budget=cap):
            buffer.write(chunk)
    except _Corrupt as exc:
        problems.append(_archive_problem(f"is not a readable gzip file ({exc})"))
        return [], True
    if buffer.tell() > cap and cap < size_cap:
        problems.append(
            _archive_problem(f"unpacks to more than {MAX_RATIO} times its size (a gzip bomb?)")
        )
        return [], True
    truncated = buffer.tell() > cap
    buffer.seek(0)
    members, stop = _tar_members(buffer, problems, truncated=truncated)
    if truncated:
        problems.append(_total_problem())
        stop = True
    return members, stop


def _tar_members(
    buffer: io.BytesIO, problems: list[Problem], *, truncated: bool
) -> tuple[list[_Member], bool]:
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
            problems.append(_archive_problem(f"is not a readable tar archive ({_shown(str(exc))})"))
        return [], True
    members: list[_Member] = []
    stop = False
    while True:
        try:
            info = archive.next()
        except Exception as exc:
            if not truncated:
                problems.append(_archive_problem(f"is a corrupt tar archive ({_shown(str(exc))})"))
            break
        if info is None:
            if not truncated and not _zero_from(buffer, archive.offset):
                problems.append(
                    _archive_problem(
                        f"is a corrupt tar archive (no valid header at byte {archive.offset})"
                    )
                )
            break
        if len(members) == MAX_ENTRIES:
            problems.append(_entries_problem())
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


def _tar_member(archive: tarfile.TarFile, info: tarfile.TarInfo) -> _Member:
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
        elif info.size > MAX_FILE_BYTES:
            blocked.append(
                f"declares {info.size} bytes, more than the limit of {MAX_FILE_BYTES} per file"
            )
    else:
        kind = "other"
        shown = info.type.decode("latin-1")
        blocked.append(f"is a tar entry of type '{_shown(shown)}', not a regular file or folder")
    size = info.size if kind == "file" else 0
    member = _Member(info.name, info.name, kind, size, normal_mode(info.mode), blocked)
    if kind == "file" and not blocked:
        member.read = _tar_reader(archive, info)
    return member


def _tar_reader(archive: tarfile.TarFile, info: tarfile.TarInfo) -> Callable[[int], _Read]:
    def read(limit: int) -> _Read:
        chunks: list[bytes] = []
        size = 0
        try:
            stream = archive.extractfile(info)
            if stream is None:
                return _Read(None, 0, problem="is not a regular file")
            while size <= limit:
                chunk = stream.read(min(_OUT_CHUNK, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except Exception as exc:
            return _Read(None, size, problem=f"cannot be read ({_shown(str(exc))})")
        if size > limit:
            return _Read(None, size, over=True)
        if size != info.size:
            return _Read(None, size, problem=f"holds {size} bytes but declares {info.size}")
        return _Read(b"".join(chunks), size)

    return read


def _entries_problem() -> Problem:
    return _archive_problem(f"holds more than {MAX_ENTRIES} members (files and folders)")


def _file_type_name(file_type: int) -> str:
    names = {
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
        stat.S_IFIFO: "a FIFO",
        stat.S_IFSOCK: "a socket",
    }
    return names.get(file_type, f"a file of type {file_type:o}")


# Writing ---------------------------------------------------------------------------------------


def _entries_to_write(folders: list[ArchiveFolder]) -> list[tuple[str, ArchiveFile]]:
    """Every file as (archive name, file), sorted; ValueError when read_archive would refuse
    the names."""
    members: list[_Member] = []
    names = [folder.name for folder in folders]
    for folder in folders:
        if "/" in folder.name or names.count(folder.name) > 1 or not folder.files:
            raise ValueError(f"folder {folder.name!r}: a slash in its name, twice, or no file")
        for path, file in folder.files.items():
            if path != file.path:
                raise ValueError(f"file {file.path!r} is filed under {path!r}")
            name = f"{folder.name}/{path}"
            members.append(_Member(name, name, "file", len(file.content), file.mode))
    problems = [
        _member_problem(m.name, reason)
        for m in members
        if (reason := path_problem(m.path)) is not None
    ]
    problems.extend(_layout_problems(members))
    if problems:
        raise ValueError("; ".join(f"{p.field}: {p.message}" for p in problems))
    by_name = {
        f"{folder.name}/{path}": file for folder in folders for path, file in folder.files.items()
    }
    return sorted(by_name.items())


def write_zip(folders: list[ArchiveFolder]) -> bytes:
    """A deterministic zip of the folders: sorted paths, fixed times, deflate, Unix modes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, file in _entries_to_write(folders):
            info = zipfile.ZipInfo(name, date_time=_EPOCH_1980)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (stat.S_IFREG | (file.mode & 0o777)) << 16
            archive.writestr(info, file.content)
    return buffer.getvalue()


def write_tar_gz(folders: list[ArchiveFolder]) -> bytes:
    """A deterministic tar.gz of the folders: sorted paths, time 0, owner 0 with no names."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:", format=tarfile.PAX_FORMAT) as archive:
        for name, file in _entries_to_write(folders):
            info = tarfile.TarInfo(name)
            info.size = len(file.content)
            info.mode = file.mode & 0o777
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            archive.addfile(info, io.BytesIO(file.content))
    return gzip.compress(buffer.getvalue(), mtime=0)
