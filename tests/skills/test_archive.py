"""The archive reader treats uploads as hostile; the writers round-trip (pure, in memory)."""

from __future__ import annotations

import builtins
import gzip
import io
import os
import stat
import struct
import tarfile
import unicodedata
import warnings
import zipfile
import zlib
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resolvers.common.errors import Code, DomainError
from resolvers.skills.archive import limits
from resolvers.skills.archive.limits import MAX_FILE_BYTES
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.problems import shown
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.write import entries_to_write, write_tar_gz, write_zip
from resolvers.skills.archive.zip import zip_entry_count

MB = 1024 * 1024
ROOT_MESSAGE = (
    "is at the archive root: expected one folder per skill, like my-skill/SKILL.md and "
    "my-skill/scripts/run.sh"
)


TOTAL_MESSAGE = (
    f"unpacks to more than {limits.MAX_TOTAL_BYTES} bytes, the limit for the whole archive"
)


def text(seed: int, size: int = 600) -> bytes:
    """Bytes that compress like prose (well under 100:1)."""
    return (os.urandom(size // 2).hex()[:size] + f"\n{seed}\n").encode()


def refusal(data: bytes, **hints: str) -> list[tuple[str | None, str]]:
    with pytest.raises(DomainError) as caught:
        read_archive(data, **hints)
    error = caught.value
    assert error.code == Code.SCHEMA_VALIDATION_FAILED
    assert error.message.startswith("The archive was refused: ")
    return [(problem.field, problem.message) for problem in error.problems]


# Building archives -------------------------------------------------------------------------------


def make_zip(entries: list[tuple[str, bytes]], **options: int) -> bytes:
    """A zip written by the standard library; ``options`` set on every ZipInfo."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are written on purpose
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content in entries:
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3
                info.external_attr = (stat.S_IFDIR | 0o755 if name.endswith("/") else 0) << 16
                if not name.endswith("/"):
                    info.external_attr = (stat.S_IFREG | 0o644) << 16
                for key, value in options.items():
                    setattr(info, key, value)
                archive.writestr(info, content)
    return buffer.getvalue()


@dataclass
class Raw:
    """One entry of a hand-built zip: every field the reader looks at can lie."""

    name: bytes
    payload: bytes  # as stored (compressed for method 8)
    size: int  # the uncompressed size declared
    crc: int
    method: int = 8
    flags: int = 0
    create_system: int = 3
    mode: int = stat.S_IFREG | 0o644
    offset: int | None = None  # the local header this entry points to (default: its own)


def deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def raw_entry(name: str, content: bytes, **changes: object) -> Raw:
    entry = Raw(name.encode(), deflate(content), len(content), zlib.crc32(content))
    for key, value in changes.items():
        setattr(entry, key, value)
    return entry


def raw_zip(entries: list[Raw]) -> bytes:
    local = io.BytesIO()
    offsets = []
    for entry in entries:
        offsets.append(local.tell())
        local.write(
            struct.pack(
                "<4sHHHHHIIIHH",
                b"PK\x03\x04",
                20,
                entry.flags,
                entry.method,
                0,
                33,
                entry.crc,
                len(entry.payload),
                entry.size,
                len(entry.name),
                0,
            )
        )
        local.write(entry.name + entry.payload)
    directory = io.BytesIO()
    for entry, offset in zip(entries, offsets, strict=True):
        directory.write(
            struct.pack(
                "<4sBBBBHHHHIIIHHHHHII",
                b"PK\x01\x02",
                20,
                entry.create_system,
                20,
                0,
                entry.flags,
                entry.method,
                0,
                33,
                entry.crc,
                len(entry.payload),
                entry.size,
                len(entry.name),
                0,
                0,
                0,
                0,
                entry.mode << 16,
                offset if entry.offset is None else entry.offset,
            )
        )
        directory.write(entry.name)
    start = local.tell()
    cd = directory.getvalue()
    end = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(cd), start, 0
    )
    return local.getvalue() + cd + end


def make_tar(
    entries: list[tarfile.TarInfo | tuple[str, bytes]], *, compress: bool = False, **kw: object
) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:", **kw) as archive:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                archive.addfile(entry, io.BytesIO(b"\0" * max(entry.size, 0)))
            else:
                name, content = entry
                info = tarfile.TarInfo(name)
                info.size = len(content)
                info.mode = 0o644
                archive.addfile(info, io.BytesIO(content))
    data = buffer.getvalue()
    return gzip.compress(data, mtime=0) if compress else data


def tar_entry(name: str, kind: bytes, **changes: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    for key, value in changes.items():
        setattr(info, key, value)
    return info


# Good archives ---------------------------------------------------------------------------------

FOLDERS = [
    ArchiveFolder(
        "data-tools",
        {
            "SKILL.md": ArchiveFile("SKILL.md", b"---\nname: data-tools\n---\nBody\n", 0o644),
            "reference/notes.md": ArchiveFile("reference/notes.md", text(1), 0o644),
            "scripts/run.sh": ArchiveFile("scripts/run.sh", b"#!/bin/sh\necho hi\n", 0o755),
        },
    ),
    ArchiveFolder(
        "pdf",
        {
            "SKILL.md": ArchiveFile("SKILL.md", b"---\nname: pdf\n---\n", 0o644),
            "assets/blob.bin": ArchiveFile("assets/blob.bin", os.urandom(70_000), 0o644),
            "assets/empty.txt": ArchiveFile("assets/empty.txt", b"", 0o644),
            "assets/inner.zip": ArchiveFile(
                "assets/inner.zip",
                make_zip([("x/../../evil", b"nested archives are files")]),
                0o644,
            ),
            "résumé/ünïcode ✓.md": ArchiveFile("résumé/ünïcode ✓.md", text(2), 0o644),
            "tools/build.py": ArchiveFile("tools/build.py", b"print('x')\n", 0o755),
        },
    ),
]


def test_zip_round_trip_keeps_files_contents_and_modes():
    assert read_archive(write_zip(FOLDERS)) == FOLDERS


def test_tar_gz_round_trip_keeps_files_contents_and_modes():
    assert read_archive(write_tar_gz(FOLDERS)) == FOLDERS


def test_plain_tar_is_read():
    assert read_archive(gzip.decompress(write_tar_gz(FOLDERS))) == FOLDERS


def test_writers_are_deterministic():
    assert write_zip(FOLDERS) == write_zip(list(FOLDERS))
    assert write_tar_gz(FOLDERS) == write_tar_gz(list(FOLDERS))


def test_zip_is_written_sorted_with_unix_modes_and_a_fixed_time():
    with zipfile.ZipFile(io.BytesIO(write_zip(FOLDERS))) as archive:
        infos = archive.infolist()
    names = [info.filename for info in infos]
    assert names == sorted(names)
    assert all(info.date_time == (1980, 1, 1, 0, 0, 0) for info in infos)
    assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in infos)
    assert all(info.create_system == 3 for info in infos)
    modes = {info.filename: info.external_attr >> 16 for info in infos}
    assert modes["data-tools/scripts/run.sh"] == stat.S_IFREG | 0o755
    assert modes["data-tools/SKILL.md"] == stat.S_IFREG | 0o644


def test_tar_gz_is_written_with_zero_times_and_owners():
    with tarfile.open(fileobj=io.BytesIO(write_tar_gz(FOLDERS)), mode="r:gz") as archive:
        members = archive.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    assert {m.name: m.mode for m in members}["pdf/tools/build.py"] == 0o755


def test_format_is_told_by_magic_bytes_not_hints():
    data = write_zip(FOLDERS)
    assert read_archive(data, filename="x.tar.gz", content_type="application/gzip") == FOLDERS
    tgz = write_tar_gz(FOLDERS)
    assert read_archive(tgz, filename="x.zip", content_type="application/zip") == FOLDERS


def test_a_zip_with_bytes_before_it_is_read():
    assert read_archive(b"#!/bin/sh\nexit 0\n" + write_zip(FOLDERS)) == FOLDERS


def test_an_old_tar_without_signature_is_read_when_hinted():
    data = bytearray(make_tar([("s/SKILL.md", b"x")], format=tarfile.USTAR_FORMAT))
    data[257:265] = b"\0" * 8  # v7 headers have no "ustar" signature
    data[148:156] = b"%06o\0 " % (sum(data[:148]) + 256 + sum(data[156:512]))
    assert refusal(bytes(data)) == [("archive", "is not a zip, tar or tar.gz archive")]
    folders = read_archive(bytes(data), filename="skills.TAR")
    assert folders == [ArchiveFolder("s", {"SKILL.md": ArchiveFile("SKILL.md", b"x", 0o644)})]


@pytest.mark.parametrize(
    ("system", "mode", "expected"),
    [
        (3, 0o100755, 0o755),
        (3, 0o100700, 0o755),
        (3, 0o100744, 0o755),
        (3, 0o100600, 0o644),
        (3, 0o100666, 0o644),
        (3, 0, 0o644),  # no mode recorded
        (0, 0o100755, 0o644),  # made on MS-DOS / Windows: the high bits mean nothing
    ],
)
def test_zip_modes_are_normalized(system, mode, expected):
    data = raw_zip([raw_entry("s/run.sh", b"x", create_system=system, mode=mode)])
    assert read_archive(data)[0].files["run.sh"].mode == expected


@pytest.mark.parametrize(
    ("mode", "expected"), [(0o755, 0o755), (0o700, 0o755), (0o711, 0o755), (0o600, 0o644)]
)
def test_tar_modes_are_normalized(mode, expected):
    info = tarfile.TarInfo("s/run.sh")
    info.mode, info.size = mode, 0
    assert read_archive(make_tar([info]))[0].files["run.sh"].mode == expected


def test_directory_entries_are_allowed_and_ignored():
    data = make_zip([("s/", b""), ("s/scripts/", b""), ("s/scripts/a.sh", b"a"), ("t/", b"")])
    assert read_archive(data) == [
        ArchiveFolder("s", {"scripts/a.sh": ArchiveFile("scripts/a.sh", b"a", 0o644)})
    ]
    tar = make_tar([tar_entry("s", tarfile.DIRTYPE), ("s/a", b"a")])
    assert read_archive(tar) == [ArchiveFolder("s", {"a": ArchiveFile("a", b"a", 0o644)})]


def test_unicode_names_are_fine_and_a_utf8_name_without_the_zip_flag_is_decoded():
    name = unicodedata.normalize("NFC", "skïll/日本語/файл.md")
    data = raw_zip([raw_entry(name, b"x")])  # no 0x800 flag, like older Info-ZIP
    assert read_archive(data) == [
        ArchiveFolder("skïll", {"日本語/файл.md": ArchiveFile("日本語/файл.md", b"x", 0o644)})
    ]


def test_a_tiny_member_is_not_held_to_the_ratio():
    data = raw_zip([raw_entry("s/zeros", b"\0" * 4095)])
    assert read_archive(data)[0].files["zeros"].content == b"\0" * 4095


def test_limits_are_inclusive(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ENTRIES", 4)
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr(limits, "MAX_TOTAL_BYTES", 3000)
    entries = [("s/", b"")] + [(f"s/{i}", os.urandom(1000)) for i in range(3)]
    assert len(read_archive(make_zip(entries))[0].files) == 3
    assert len(read_archive(make_tar(entries[1:], compress=True))[0].files) == 3


@settings(max_examples=25, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z0-9][a-z0-9-]{0,8}", fullmatch=True),
        st.dictionaries(
            st.from_regex(r"[A-Za-z0-9_]{1,6}(/[A-Za-z0-9_.]{1,6}){0,2}", fullmatch=True).filter(
                lambda p: all(s not in (".", "..") for s in p.split("/"))
            ),
            st.tuples(st.binary(max_size=300), st.sampled_from([0o644, 0o755])),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=3,
    )
)
def test_any_valid_folders_round_trip(spec):
    folders = [
        ArchiveFolder(name, {p: ArchiveFile(p, c, m) for p, (c, m) in sorted(files.items())})
        for name, files in sorted(spec.items())
    ]
    try:
        entries_to_write(folders)
    except ValueError:
        return  # generated paths that collide by case or as file and folder
    assert read_archive(write_zip(folders)) == folders
    assert read_archive(write_tar_gz(folders)) == folders


# Paths -----------------------------------------------------------------------------------------

BAD_PATHS = [
    ("../x", "has a '..' segment, which leaves its folder"),
    ("a/../../x", "has a '..' segment, which leaves its folder"),
    ("s/..", "has a '..' segment, which leaves its folder"),
    ("/etc/x", "is an absolute path"),
    ("C:\\x", "starts with a Windows drive letter"),
    ("c:/x", "starts with a Windows drive letter"),
    ("\\\\server\\x", "is an absolute Windows path"),
    ("\\x", "is an absolute Windows path"),
    ("s\\x.md", "has a backslash in its name (paths use /)"),
    ("s//x", "has an empty or '.' segment"),
    ("s/./x", "has an empty or '.' segment"),
    ("s" * 1025, "has a name longer than 1024 characters"),
]


@pytest.mark.parametrize(("name", "message"), BAD_PATHS)
def test_bad_paths_are_refused_in_a_zip(name, message):
    data = raw_zip([raw_entry("ok/SKILL.md", b"x"), raw_entry(name, b"x")])
    assert refusal(data) == [(f"archive/{shown(name)}", message)]


@pytest.mark.parametrize(("name", "message"), BAD_PATHS)
def test_bad_paths_are_refused_in_a_tar(name, message):
    data = make_tar([("ok/SKILL.md", b"x"), (name, b"x")], format=tarfile.PAX_FORMAT)
    assert refusal(data) == [(f"archive/{shown(name)}", message)]


def test_a_zip_folder_with_an_empty_segment_is_refused():
    assert refusal(make_zip([("s/a//", b""), ("s/b", b"x")])) == [
        ("archive/s/a//", "has an empty or '.' segment")
    ]


def test_a_tar_file_with_a_trailing_slash_is_refused():
    data = make_tar([("s/x/", b"x")])  # a regular file (type '0') named like a folder
    assert refusal(data) == [("archive/s/x/", "has an empty or '.' segment")]


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("s/a\x01b", "s/a\\x01b"),
        ("s/a\x7fb", "s/a\\x7fb"),
        ("s/a\nb", "s/a\\x0ab"),
        ("s/\x1b[2Jx", "s/\\x1b[2Jx"),
        ("s/a\x85b", "s/a\\x85b"),
    ],
)
def test_control_characters_are_refused_and_shown_escaped(name, shown):
    expected = [(f"archive/{shown}", "has a control character in its name")]
    assert refusal(raw_zip([raw_entry(name, b"x")])) == expected
    assert refusal(make_tar([(name, b"x")], format=tarfile.PAX_FORMAT)) == expected


def test_nul_in_a_zip_name_is_refused_though_zipfile_cuts_the_name_there():
    data = raw_zip([raw_entry("s/a\x00.sh", b"x")])
    assert refusal(data) == [("archive/s/a\\x00.sh", "has a NUL character in its name")]


def test_nul_in_a_pax_name_is_refused():
    info = tarfile.TarInfo("s/a")
    info.size = 1
    info.pax_headers = {"path": "s/a\x00.sh"}
    data = make_tar([info], format=tarfile.PAX_FORMAT)
    assert refusal(data) == [("archive/s/a\\x00.sh", "has a NUL character in its name")]


def test_a_tar_name_that_is_not_utf8_is_refused():
    data = bytearray(make_tar([("s/abc", b"x")], format=tarfile.USTAR_FORMAT))
    data[2] = 0xFF  # "s/\xffbc"
    data[148:156] = b"%06o\0 " % (sum(data[:148]) + 256 + sum(data[156:512]))
    assert refusal(bytes(data)) == [("archive/s/\\xffbc", "has a name that is not valid UTF-8")]


def test_names_are_shown_with_spoofing_characters_escaped():
    assert shown("s/\u202etxt.exe") == "s/\\u202etxt.exe"
    assert shown("s/a\u2028b\ud800") == "s/a\\u2028b\\ud800"
    assert shown("x" * 300) == "x" * 200 + "..."


def test_a_file_at_the_root_is_refused_with_the_expected_layout():
    data = make_zip([("SKILL.md", b"x"), ("scripts/run.sh", b"y")])
    assert refusal(data) == [("archive/SKILL.md", ROOT_MESSAGE)]


def test_an_empty_name_is_refused():
    assert refusal(raw_zip([raw_entry("", b"x")])) == [("archive/", "has an empty name")]


# Entry types -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        (tarfile.SYMTYPE, "is a symbolic link (links are refused)"),
        (tarfile.LNKTYPE, "is a hard link (links are refused)"),
        (tarfile.CHRTYPE, "is a character device, not a regular file or folder"),
        (tarfile.BLKTYPE, "is a block device, not a regular file or folder"),
        (tarfile.FIFOTYPE, "is a FIFO, not a regular file or folder"),
        (tarfile.GNUTYPE_SPARSE, "is a sparse file, which is not accepted"),
        (b"V", "is a tar entry of type 'V', not a regular file or folder"),
    ],
)
def test_tar_entries_other_than_files_and_folders_are_refused(kind, message):
    entry = tar_entry("s/link", kind, linkname="../../etc/passwd")
    data = make_tar([("s/SKILL.md", b"x"), entry], format=tarfile.GNU_FORMAT)
    assert refusal(data) == [("archive/s/link", message)]


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (stat.S_IFLNK | 0o777, "is a symbolic link (links are refused)"),
        (stat.S_IFIFO | 0o644, "is a FIFO, not a regular file or folder"),
        (stat.S_IFCHR | 0o644, "is a character device, not a regular file or folder"),
        (stat.S_IFBLK | 0o644, "is a block device, not a regular file or folder"),
        (stat.S_IFSOCK | 0o644, "is a socket, not a regular file or folder"),
    ],
)
def test_zip_entries_other_than_files_and_folders_are_refused(mode, message):
    data = raw_zip([raw_entry("s/SKILL.md", b"x"), raw_entry("s/link", b"/etc/passwd", mode=mode)])
    assert refusal(data) == [("archive/s/link", message)]


def test_a_zip_symlink_mode_from_a_non_unix_system_is_a_plain_file():
    data = raw_zip([raw_entry("s/link", b"x", mode=stat.S_IFLNK | 0o777, create_system=0)])
    assert read_archive(data)[0].files["link"].content == b"x"


# Names that collide ----------------------------------------------------------------------------


def test_duplicate_entries_are_refused():
    expected = [("archive/s/SKILL.md", "appears twice in the archive")]
    assert refusal(make_zip([("s/SKILL.md", b"a"), ("s/SKILL.md", b"b")])) == expected
    assert refusal(make_tar([("s/SKILL.md", b"a"), ("s/SKILL.md", b"b")])) == expected
    assert refusal(make_zip([("s/", b""), ("s/", b""), ("s/a", b"")])) == [
        ("archive/s/", "appears twice in the archive")
    ]


def test_names_differing_only_by_case_are_refused():
    data = make_zip([("s/README.md", b"a"), ("s/readme.md", b"b")])
    assert refusal(data) == [("archive/s/readme.md", "differs only by case from 's/README.md'")]
    data = make_tar([("s/SKILL.md", b"a"), ("s/skill.MD", b"b")])
    assert refusal(data) == [("archive/s/skill.MD", "differs only by case from 's/SKILL.md'")]


def test_folders_differing_only_by_case_are_refused_once():
    data = make_zip([("Skill/SKILL.md", b"a"), ("skill/SKILL.md", b"b"), ("skill/x.md", b"c")])
    assert refusal(data) == [
        ("archive/skill/SKILL.md", "its folder 'skill' differs only by case from 'Skill'")
    ]


def test_names_differing_only_by_unicode_normalization_collide():
    nfc, nfd = "s/é.md", unicodedata.normalize("NFD", "s/é.md")
    data = make_zip([(nfc, b"a"), (nfd, b"b")])
    assert refusal(data) == [(f"archive/{nfd}", f"differs only by case from '{nfc}'")]


def test_a_file_named_like_another_files_folder_is_refused():
    data = make_zip([("s/a", b"x"), ("s/a/b", b"y")])
    assert refusal(data) == [("archive/s/a/b", "is inside 's/a', which is a file")]
    data = make_tar([("s/a/b", b"y"), ("s/a", b"x")])
    assert refusal(data) == [("archive/s/a", "is a file named like the folder of 's/a/b'")]


def test_a_folder_entry_named_like_a_file_is_refused():
    data = make_zip([("s/a", b"x"), ("s/a/", b"")])
    assert refusal(data) == [("archive/s/a/", "is a folder named like the file 's/a'")]
    data = make_zip([("s/a/", b""), ("s/a", b"x")])
    assert refusal(data) == [("archive/s/a", "is a file named like the folder of 's/a/'")]


# Sizes and zip bombs ---------------------------------------------------------------------------


def test_a_zip_bomb_is_refused_by_its_declared_size(zeros_300mb):
    stream, size, crc = zeros_300mb
    assert len(stream) < 400_000
    data = raw_zip([Raw(b"s/bomb", stream, size, crc)])
    assert refusal(data) == [
        (
            "archive/s/bomb",
            f"declares {size} bytes, more than the limit of {MAX_FILE_BYTES} per file",
        )
    ]


def test_a_zip_bomb_whose_header_lies_is_caught_by_the_real_read(zeros_300mb):
    stream, _, crc = zeros_300mb
    data = raw_zip([raw_entry("s/SKILL.md", b"x"), Raw(b"s/bomb", stream, 100, crc)])
    assert refusal(data) == [
        (
            "archive/s/bomb",
            f"unpacks to more than {MAX_FILE_BYTES} bytes, the limit per file, "
            "though its header declares 100",
        )
    ]


def test_lying_bombs_stop_at_the_total_limit(zeros_300mb):
    stream, _, crc = zeros_300mb
    bombs = [Raw(f"s/bomb{i}".encode(), stream, 100, crc) for i in range(12)]
    problems = refusal(raw_zip(bombs))
    per_file = (
        f"unpacks to more than {MAX_FILE_BYTES} bytes, the limit per file, "
        "though its header declares 100"
    )
    assert problems == [(f"archive/s/bomb{i}", per_file) for i in range(9)] + [
        ("archive", TOTAL_MESSAGE)
    ]


def test_a_header_declaring_more_than_it_holds_is_refused():
    data = raw_zip([raw_entry("s/a", b"12345", size=100)])
    assert refusal(data) == [("archive/s/a", "holds 5 bytes but its header declares 100")]
    content = os.urandom(5000)
    data = raw_zip([raw_entry("s/a", content, size=10)])
    assert refusal(data) == [("archive/s/a", "holds 5000 bytes but its header declares 10")]


def test_a_compression_ratio_over_the_limit_is_refused():
    entry = raw_entry("s/zeros", b"\0" * MB)
    data = raw_zip([raw_entry("s/SKILL.md", b"x"), entry])
    assert refusal(data) == [
        (
            "archive/s/zeros",
            f"unpacks to more than 100 times its compressed size of {len(entry.payload)} bytes",
        )
    ]


def test_an_overall_ratio_over_the_limit_is_refused_in_a_tar_gz():
    data = make_tar([("s/zeros", b"\0" * MB)], compress=True)
    assert refusal(data) == [
        ("archive", f"unpacks to more than 100 times its size ({MB} bytes from {len(data)})")
    ]


def test_a_declared_size_over_the_limit_is_refused(monkeypatch):
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1000)
    message = "declares 1001 bytes, more than the limit of 1000 per file"
    entries = [("s/a", os.urandom(1000)), ("s/b", os.urandom(1001))]
    assert refusal(make_zip(entries)) == [("archive/s/b", message)]
    assert refusal(make_tar(entries)) == [("archive/s/b", message)]


def test_a_declared_total_over_the_limit_stops_before_reading(monkeypatch):
    monkeypatch.setattr(limits, "MAX_TOTAL_BYTES", 10_000)
    entries = [("README.md", b"x")] + [(f"s/{i}", os.urandom(4000)) for i in range(3)]
    expected = [
        ("archive/README.md", ROOT_MESSAGE),
        ("archive", "declares 12001 bytes of files, more than the limit of 10000"),
    ]
    assert refusal(make_zip(entries)) == expected
    assert refusal(make_tar(entries)) == expected


def test_a_real_total_over_the_limit_is_caught_when_headers_lie(monkeypatch):
    monkeypatch.setattr(limits, "MAX_TOTAL_BYTES", 10_000)
    entries = [raw_entry(f"s/{i}", os.urandom(4000), size=100) for i in range(4)]
    assert refusal(raw_zip(entries)) == [
        ("archive/s/0", "holds 4000 bytes but its header declares 100"),
        ("archive/s/1", "holds 4000 bytes but its header declares 100"),
        ("archive", "unpacks to more than 10000 bytes, the limit for the whole archive"),
    ]


def test_a_tar_gz_unpacking_past_the_limit_stops_and_reports_what_was_found(monkeypatch):
    monkeypatch.setattr(limits, "MAX_TOTAL_BYTES", 10_000)
    monkeypatch.setattr(limits, "MAX_ENTRIES", 2)
    data = make_tar([("x.md", b"x"), ("s/zeros", os.urandom(200_000))], compress=True)
    assert refusal(data) == [
        ("archive/x.md", ROOT_MESSAGE),
        ("archive", "unpacks to more than 10000 bytes, the limit for the whole archive"),
    ]


def test_a_gzip_bomb_is_cut_while_unpacking(zeros_300mb):
    stream, _, _ = zeros_300mb
    # the same zeros as a gzip file: a tar of zero blocks is an empty tar, so it ends early
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    data = header + stream + struct.pack("<II", 0, 0)
    assert refusal(data) == [
        ("archive", f"unpacks to more than {limits.MAX_RATIO} times its size (a gzip bomb?)")
    ]


def test_more_entries_than_the_limit_are_refused(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ENTRIES", 10)
    entries = [("s/", b"")] + [(f"s/{i}", b"x") for i in range(10)]
    limit = ("archive", "holds more than 10 members (files and folders)")
    assert refusal(make_zip(entries)) == [limit]
    assert refusal(make_tar([("y", b"")] + entries[1:], compress=True)) == [
        ("archive/y", ROOT_MESSAGE),
        limit,
    ]
    assert len(read_archive(make_zip(entries[:10]))[0].files) == 9


def test_the_real_entry_limit():
    entries = [(f"s/{i}", b"") for i in range(limits.MAX_ENTRIES + 1)]
    limit = ("archive", "holds more than 5000 members (files and folders)")
    assert refusal(make_zip(entries)) == [limit]
    assert refusal(make_tar(entries, compress=True)) == [limit]
    assert len(read_archive(make_zip(entries[:-1]))[0].files) == 5000


def test_the_zip_entry_limit_holds_without_the_pre_count(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ENTRIES", 10)
    monkeypatch.setattr("resolvers.skills.archive.zip.zip_entry_count", lambda data: None)
    entries = [(f"s/{i}", b"x") for i in range(11)]
    assert refusal(make_zip(entries)) == [
        ("archive", "holds more than 10 members (files and folders)")
    ]


def test_the_zip_entry_pre_count_stops_counting_at_the_limit(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ENTRIES", 3)
    assert zip_entry_count(make_zip([(f"s/{i}", b"x") for i in range(50)])) == 4
    assert zip_entry_count(make_zip([(f"s/{i}", b"x") for i in range(2)])) == 2
    assert zip_entry_count(b"#!" + make_zip([("s/a", b"x")])) == 1


def test_an_archive_over_the_upload_limit_is_refused(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ARCHIVE_BYTES", 100)
    assert refusal(b"PK\x03\x04" + b"\0" * 97) == [
        ("archive", "is 101 bytes, more than the limit of 100")
    ]


# Corrupt, encrypted, unsupported ---------------------------------------------------------------


def test_an_encrypted_zip_entry_is_refused():
    data = raw_zip([raw_entry("s/a", b"secret", flags=0x1)])
    assert refusal(data) == [("archive/s/a", "is encrypted")]


def test_an_unsupported_compression_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("s/a", b"x" * 100)
    message = "uses compression method 12: only stored and deflate are accepted"
    assert refusal(buffer.getvalue()) == [("archive/s/a", message)]


def test_a_stored_entry_is_read():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("s/a", b"plain")
    assert read_archive(buffer.getvalue())[0].files["a"].content == b"plain"


def test_a_bad_crc_is_refused():
    data = raw_zip([raw_entry("s/a", b"hello", crc=12345)])
    assert refusal(data) == [("archive/s/a", "fails its CRC check (the data is corrupt)")]


def test_a_flipped_byte_is_caught():
    data = bytearray(make_zip([("s/a", text(3, 2000))]))
    data[60] ^= 0xFF  # inside the compressed data
    [(field, message)] = refusal(bytes(data))
    assert field == "archive/s/a"
    assert message.startswith(("fails its CRC check", "has corrupt compressed data", "holds "))


def test_corrupt_compressed_data_is_refused():
    data = raw_zip([raw_entry("s/a", b"x", payload=b"\xff\xff\xff\xff")])
    [(field, message)] = refusal(data)
    assert (field, message.split(" (")[0]) == ("archive/s/a", "has corrupt compressed data")


def test_truncated_compressed_data_is_refused():
    content = os.urandom(3000)
    data = raw_zip([raw_entry("s/a", content, payload=deflate(content)[:-100])])
    assert refusal(data) == [
        ("archive/s/a", "has corrupt compressed data (the compressed data ends early)")
    ]


def test_a_local_header_that_disagrees_with_the_directory_is_refused():
    entry = raw_entry("s/a", b"x")
    data = raw_zip([entry]).replace(b"s/a", b"s/b", 1)  # the local header's copy only
    assert refusal(data) == [
        ("archive/s/a", "has a local header that differs from the directory (corrupt archive)")
    ]


def test_entries_sharing_compressed_data_are_refused():
    inner = raw_zip([raw_entry("s/b", b"shared")])
    inner_local = inner[: inner.index(b"PK\x01\x02")]
    outer = Raw(b"s/a", inner_local, len(inner_local), zlib.crc32(inner_local), method=0)
    # s/b points at its local header inside s/a's stored data (30-byte header + "s/a")
    data = raw_zip([outer, raw_entry("s/b", b"shared", offset=33)])
    assert refusal(data) == [("archive/s/b", "overlaps the data of 's/a'")]
    assert read_archive(raw_zip([outer, raw_entry("s/b", b"shared")]))[0].files["b"]


def test_a_truncated_zip_is_refused():
    data = write_zip(FOLDERS)[:-30]
    assert refusal(data) == [("archive", "is not a readable zip archive (File is not a zip file)")]


def test_a_truncated_tar_gz_is_refused():
    data = write_tar_gz(FOLDERS)[:-30]
    assert refusal(data) == [
        ("archive", "is not a readable gzip file (the compressed data ends early)")
    ]


def test_a_tar_gz_of_several_gzip_members_is_read():
    tar = gzip.decompress(write_tar_gz(FOLDERS))
    data = gzip.compress(tar[:5000], mtime=0) + gzip.compress(tar[5000:], mtime=0)
    assert read_archive(data) == FOLDERS
    assert read_archive(write_tar_gz(FOLDERS) + b"\0" * 100) == FOLDERS


def test_data_after_a_gzip_stream_is_refused():
    assert refusal(write_tar_gz(FOLDERS) + b"junk") == [
        ("archive", "is not a readable gzip file (data after the end of the gzip stream)")
    ]


def test_a_tar_with_a_corrupt_header_in_the_middle_is_refused():
    data = bytearray(make_tar([("s/a", b"x"), ("s/b", b"y"), ("s/c", b"z")]))
    data[1024 + 148] ^= 0x01  # the second header's checksum
    assert refusal(bytes(data)) == [
        ("archive", "is a corrupt tar archive (no valid header at byte 1024)")
    ]


def test_a_tar_cut_inside_a_file_is_refused():
    data = make_tar([("s/a", b"x"), ("s/b", os.urandom(5000))])[:3000]
    assert refusal(data) == [
        ("archive", "is a corrupt tar archive (unexpected end of data)"),
        ("archive/s/b", "cannot be read (unexpected end of data)"),
    ]


def test_an_oversized_pax_header_is_refused():
    info = tarfile.TarInfo("s/b")
    info.pax_headers = {"comment": "x" * 70_000}
    data = make_tar([("s/a", b"x"), info], format=tarfile.PAX_FORMAT)
    [(field, message)] = refusal(data)
    assert field == "archive"
    assert message.startswith("is a corrupt tar archive (a pax header of ")
    [(field, message)] = refusal(make_tar([info], format=tarfile.PAX_FORMAT))
    assert message.startswith("is not a readable tar archive (a pax header of ")


def test_a_pax_header_with_a_long_digit_run_is_refused():
    info = tarfile.TarInfo("s/a")
    info.pax_headers = {"comment": "1" * 5000}
    data = make_tar([info], format=tarfile.PAX_FORMAT)
    assert refusal(data) == [
        (
            "archive",
            "is not a readable tar archive (a pax header with a run of more than 32 digits)",
        )
    ]


def test_gzip_that_holds_no_tar_is_refused():
    assert refusal(gzip.compress(b"just some text " * 100, mtime=0)) == [
        ("archive", "is not a readable tar archive (invalid header)")
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"hello, world", "is not a zip, tar or tar.gz archive"),
        (b"%PDF-1.7\n" + b"x" * 600, "is not a zip, tar or tar.gz archive"),
        (b"BZh91AY&SY", "is a bzip2 file: only zip, tar and tar.gz archives are accepted"),
        (b"\xfd7zXZ\x00\x00", "is an xz file: only zip, tar and tar.gz archives are accepted"),
        (b"", "is empty"),
    ],
)
def test_what_is_not_an_archive_is_refused(data, message):
    assert refusal(data, filename="skills.zip") == [("archive", message)]


def test_empty_archives_are_refused():
    message = (
        "holds no file: expected one folder per skill, like my-skill/SKILL.md and "
        "my-skill/scripts/run.sh"
    )
    assert refusal(make_zip([])) == [("archive", message)]
    assert refusal(make_tar([], compress=True)) == [("archive", message)]
    assert refusal(make_zip([("s/", b"")])) == [("archive", message)]


# Every problem at once -------------------------------------------------------------------------


def test_every_problem_is_listed():
    data = raw_zip(
        [
            raw_entry("good/SKILL.md", b"ok"),
            raw_entry("SKILL.md", b"root"),
            raw_entry("good/../../etc/passwd", b"x"),
            raw_entry("good/link", b"/etc", mode=stat.S_IFLNK | 0o777),
            raw_entry("good/skill.md", b"case"),
            raw_entry("good/bad-crc", b"abc", crc=1),
            raw_entry("good/secret", b"abc", flags=0x1),
            raw_entry("good/a\x01b", b"ctl"),
        ]
    )
    with pytest.raises(DomainError) as caught:
        read_archive(data)
    assert caught.value.message == (
        "The archive was refused: 'good/../../etc/passwd' has a '..' segment, which leaves its "
        "folder (and 6 more problems)."
    )
    assert [(p.field, p.message) for p in caught.value.problems] == [
        ("archive/good/../../etc/passwd", "has a '..' segment, which leaves its folder"),
        ("archive/good/link", "is a symbolic link (links are refused)"),
        ("archive/good/secret", "is encrypted"),
        ("archive/good/a\\x01b", "has a control character in its name"),
        ("archive/SKILL.md", ROOT_MESSAGE),
        ("archive/good/skill.md", "differs only by case from 'good/SKILL.md'"),
        ("archive/good/bad-crc", "fails its CRC check (the data is corrupt)"),
    ]


def test_problems_are_shown_as_the_domain_error_expects():
    with pytest.raises(DomainError) as caught:
        read_archive(b"nope")
    assert caught.value.status == 400
    assert caught.value.message == (
        "The archive was refused: the archive is not a zip, tar or tar.gz archive."
    )
    assert [p.as_dict() for p in caught.value.problems] == [
        {"message": "is not a zip, tar or tar.gz archive", "field": "archive"}
    ]


# Writers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "folders",
    [
        [ArchiveFolder("a/b", {"x": ArchiveFile("x", b"", 0o644)})],
        [ArchiveFolder("a", {"../x": ArchiveFile("../x", b"", 0o644)})],
        [
            ArchiveFolder(
                "a", {"X": ArchiveFile("X", b"", 0o644), "x": ArchiveFile("x", b"", 0o644)}
            )
        ],
        [ArchiveFolder("a", {"x": ArchiveFile("y", b"", 0o644)})],
        [ArchiveFolder("a", {})],
        [ArchiveFolder("a", {"x": ArchiveFile("x", b"", 0o644)})] * 2,
    ],
)
def test_writers_refuse_what_the_reader_would_refuse(folders):
    with pytest.raises(ValueError):
        write_zip(folders)
    with pytest.raises(ValueError):
        write_tar_gz(folders)


# Nothing is written to disk --------------------------------------------------------------------


def test_reading_writes_nothing_to_disk(monkeypatch, tmp_path, zeros_300mb):
    samples = [
        write_zip(FOLDERS),
        write_tar_gz(FOLDERS),
        gzip.decompress(write_tar_gz(FOLDERS)),
        raw_zip([Raw(b"s/bomb", zeros_300mb[0], 100, zeros_300mb[2])]),
        make_tar([("../x", b"x"), tar_entry("s/l", tarfile.SYMTYPE, linkname="/etc")]),
        make_zip([("/etc/passwd", b"x")]),
    ]
    monkeypatch.chdir(tmp_path)
    opened: list[object] = []

    def no_open(*args: object, **kwargs: object) -> object:
        opened.append(args)
        raise AssertionError(f"read_archive opened a file: {args}")

    monkeypatch.setattr(builtins, "open", no_open)
    monkeypatch.setattr(io, "open", no_open)
    monkeypatch.setattr(os, "open", no_open)
    for data in samples:
        try:
            read_archive(data)
        except DomainError:
            pass
    monkeypatch.undo()
    assert opened == []
    assert list(tmp_path.iterdir()) == []


def test_a_leading_dot_slash_is_the_archive_root():
    """What `tar -C dir .` writes: "./", then "./skill/...": read as "skill/..."."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name in (".", "./my-skill"):
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE
            tar.addfile(info)
        info = tarfile.TarInfo("./my-skill/SKILL.md")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    folders = read_archive(buffer.getvalue())
    assert [f.name for f in folders] == ["my-skill"]
    assert list(folders[0].files) == ["SKILL.md"]


# A NUL inside a raw name ------------------------------------------------------------------

NUL_REFUSAL = [("archive/s/a\\x00b.md", "has a NUL character in its name")]


def test_a_zip_name_holding_a_nul_is_checked_whole():
    data = raw_zip([raw_entry("s/SKILL.md", b"x"), raw_entry("s/a\x00b.md", b"y")])
    assert refusal(data) == NUL_REFUSAL


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT])
def test_a_tar_name_holding_a_nul_is_checked_whole(fmt):
    # Regression: tarfile cuts header names at the first NUL, so "s/a\x00b.md" was stored as
    # "s/a" and passed the control-character check.
    data = make_tar([("s/SKILL.md", b"x"), ("s/a\x00b.md", b"y")], format=fmt)
    assert refusal(data) == NUL_REFUSAL


def test_a_gnu_long_tar_name_holding_a_nul_is_checked_whole():
    long_name = "s/" + "x" * 120 + "\x00b.md"
    data = make_tar([("s/SKILL.md", b"x"), (long_name, b"y")], format=tarfile.GNU_FORMAT)
    assert [message for _, message in refusal(data)] == ["has a NUL character in its name"]


def test_a_ustar_prefix_holding_a_nul_is_checked_whole():
    name = "s/" + "p" * 60 + "\x00q/" + "n" * 60 + ".md"
    data = make_tar([("s/SKILL.md", b"x"), (name, b"y")], format=tarfile.USTAR_FORMAT)
    assert [message for _, message in refusal(data)] == ["has a NUL character in its name"]
