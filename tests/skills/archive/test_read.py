"""Reading an archive (pure, in memory): the format told by its bytes, round trips, every
problem at once, nothing written to disk."""

from __future__ import annotations

import builtins
import gzip
import io
import os
import stat
import tarfile
import unicodedata
import zipfile
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resolvers.common.errors import DomainError
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.write import entries_to_write, write_tar_gz, write_zip
from tests.skills.archive.archives import (
    FOLDERS,
    ROOT_MESSAGE,
    Raw,
    deflate,
    make_tar,
    make_zip,
    raw_entry,
    raw_zip,
    refusal,
    tar_entry,
    text,
)


def test_zip_round_trip_keeps_files_contents_and_modes():
    assert read_archive(write_zip(FOLDERS)) == FOLDERS


def test_tar_gz_round_trip_keeps_files_contents_and_modes():
    assert read_archive(write_tar_gz(FOLDERS)) == FOLDERS


def test_format_is_told_by_magic_bytes_not_hints():
    data = write_zip(FOLDERS)
    assert read_archive(data, filename="x.tar.gz", content_type="application/gzip") == FOLDERS
    tgz = write_tar_gz(FOLDERS)
    assert read_archive(tgz, filename="x.zip", content_type="application/zip") == FOLDERS


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
