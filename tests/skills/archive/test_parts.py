"""A skill folder uploaded as files (resolvers/skills/archive/parts.py): the archive's path and
layout rules and limits, every problem listed, the one folder the parts make."""

from __future__ import annotations

import pytest

from resolvers.common.errors import DomainError
from resolvers.skills.archive import limits
from resolvers.skills.archive.members import ArchiveFile
from resolvers.skills.archive.parts import Part, read_parts


def problems(parts: list[Part]) -> list[tuple[str | None, str]]:
    with pytest.raises(DomainError) as refused:
        read_parts(parts)
    return [(p.field, p.message) for p in refused.value.problems]


def test_the_parts_make_one_folder_sorted_by_path():
    folder = read_parts([Part("tidy/scripts/run.sh", b"run"), Part("tidy/SKILL.md", b"body")])
    assert folder.name == "tidy"
    assert folder.files == {
        "SKILL.md": ArchiveFile("SKILL.md", b"body", 0o644),
        "scripts/run.sh": ArchiveFile("scripts/run.sh", b"run", 0o644),
    }


def test_every_problem_is_listed():
    found = problems(
        [
            Part("a/SKILL.md", b""),
            Part("a/../../etc/passwd", b""),
            Part("b/SKILL.md", b""),
            Part("a/Notes.md", b""),
            Part("a/notes.md", b""),
            Part(None, b"bare"),
            Part("loose.md", b""),
        ]
    )
    assert found == [
        ("files[]/a/../../etc/passwd", "has a '..' segment, which leaves its folder"),
        (
            "files[]",
            "part 6 has no file name: expected one folder holding SKILL.md, each file "
            "named by its path, like my-skill/SKILL.md",
        ),
        ("files[]/a/notes.md", "differs only by case from 'a/Notes.md'"),
        (
            "files[]/loose.md",
            "is in no folder: expected one folder holding SKILL.md, each file "
            "named by its path, like my-skill/SKILL.md",
        ),
        ("files[]", "every file sits in one top-level folder, these sit in 2: a, b"),
    ]


def test_nothing_uploaded_is_refused():
    assert problems([]) == [
        (
            "files[]",
            "no file was uploaded: expected one folder holding SKILL.md, each file "
            "named by its path, like my-skill/SKILL.md",
        ),
    ]


def test_the_limits_hold(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ENTRIES", 2)
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 10)
    monkeypatch.setattr(limits, "MAX_TOTAL_BYTES", 15)
    found = problems([Part("a/SKILL.md", b"x" * 11), Part("a/b", b"1"), Part("a/c", b"2345")])
    assert found == [
        ("files[]/a/SKILL.md", "is 11 bytes, more than the limit of 10"),
        ("files[]", "3 files, more than the limit of 2"),
        ("files[]", "16 bytes of files, more than the limit of 15"),
    ]
