"""An archive's layout: entry paths, names that collide, the archive root."""

from __future__ import annotations

import io
import tarfile
import unicodedata

import pytest

from resolvers.skills.archive.problems import shown
from resolvers.skills.archive.read import read_archive
from tests.skills.archive.archives import (
    ROOT_MESSAGE,
    make_tar,
    make_zip,
    raw_entry,
    raw_zip,
    refusal,
)

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
