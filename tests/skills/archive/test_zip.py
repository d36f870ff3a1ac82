"""The zip reader treats uploads as hostile: modes, entry types, corruption, raw names."""

from __future__ import annotations

import gzip
import stat

import pytest

from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.write import write_tar_gz, write_zip
from tests.skills.archive.archives import FOLDERS, NUL_REFUSAL, raw_entry, raw_zip, refusal


def test_a_zip_with_bytes_before_it_is_read():
    assert read_archive(b"#!/bin/sh\nexit 0\n" + write_zip(FOLDERS)) == FOLDERS


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


def test_an_encrypted_zip_entry_is_refused():
    data = raw_zip([raw_entry("s/a", b"secret", flags=0x1)])
    assert refusal(data) == [("archive/s/a", "is encrypted")]


def test_a_truncated_zip_is_refused():
    data = write_zip(FOLDERS)[:-30]
    assert refusal(data) == [("archive", "is not a readable zip archive (File is not a zip file)")]


def test_a_tar_gz_of_several_gzip_members_is_read():
    tar = gzip.decompress(write_tar_gz(FOLDERS))
    data = gzip.compress(tar[:5000], mtime=0) + gzip.compress(tar[5000:], mtime=0)
    assert read_archive(data) == FOLDERS
    assert read_archive(write_tar_gz(FOLDERS) + b"\0" * 100) == FOLDERS


def test_data_after_a_gzip_stream_is_refused():
    assert refusal(write_tar_gz(FOLDERS) + b"junk") == [
        ("archive", "is not a readable gzip file (data after the end of the gzip stream)")
    ]


def test_gzip_that_holds_no_tar_is_refused():
    assert refusal(gzip.compress(b"just some text " * 100, mtime=0)) == [
        ("archive", "is not a readable tar archive (invalid header)")
    ]


def test_a_zip_name_holding_a_nul_is_checked_whole():
    data = raw_zip([raw_entry("s/SKILL.md", b"x"), raw_entry("s/a\x00b.md", b"y")])
    assert refusal(data) == NUL_REFUSAL
