"""Archive limits: sizes, entry counts, compression ratios and bombs."""

from __future__ import annotations

import os
import struct

from resolvers.skills.archive import limits
from resolvers.skills.archive.limits import MAX_FILE_BYTES
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.zip import zip_entry_count
from tests.skills.archive.archives import (
    ROOT_MESSAGE,
    Raw,
    make_tar,
    make_zip,
    raw_entry,
    raw_zip,
    refusal,
)

MB = 1024 * 1024


TOTAL_MESSAGE = (
    f"unpacks to more than {limits.MAX_TOTAL_BYTES} bytes, the limit for the whole archive"
)


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
