"""The tar reader treats uploads as hostile: modes, entry types, corruption, raw names."""

from __future__ import annotations

import gzip
import os
import tarfile

import pytest

from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.write import write_tar_gz
from tests.skills.archive.archives import FOLDERS, NUL_REFUSAL, make_tar, refusal, tar_entry


def test_plain_tar_is_read():
    assert read_archive(gzip.decompress(write_tar_gz(FOLDERS))) == FOLDERS


def test_an_old_tar_without_signature_is_read_when_hinted():
    data = bytearray(make_tar([("s/SKILL.md", b"x")], format=tarfile.USTAR_FORMAT))
    data[257:265] = b"\0" * 8  # v7 headers have no "ustar" signature
    data[148:156] = b"%06o\0 " % (sum(data[:148]) + 256 + sum(data[156:512]))
    assert refusal(bytes(data)) == [("archive", "is not a zip, tar or tar.gz archive")]
    folders = read_archive(bytes(data), filename="skills.TAR")
    assert folders == [ArchiveFolder("s", {"SKILL.md": ArchiveFile("SKILL.md", b"x", 0o644)})]


@pytest.mark.parametrize(
    ("mode", "expected"), [(0o755, 0o755), (0o700, 0o755), (0o711, 0o755), (0o600, 0o644)]
)
def test_tar_modes_are_normalized(mode, expected):
    info = tarfile.TarInfo("s/run.sh")
    info.mode, info.size = mode, 0
    assert read_archive(make_tar([info]))[0].files["run.sh"].mode == expected


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


def test_a_truncated_tar_gz_is_refused():
    data = write_tar_gz(FOLDERS)[:-30]
    assert refusal(data) == [
        ("archive", "is not a readable gzip file (the compressed data ends early)")
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
