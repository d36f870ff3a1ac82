"""A skill's drive (DESIGN §3): file paths at their boundaries, where a file is stored, scripts."""

from __future__ import annotations

import pytest

from resolvers.skills.drive import (
    drive_path,
    file_path_problems,
    is_script,
)
from tests.skills.folders import fields


def test_500_files_are_accepted_and_501_refused():
    assert file_path_problems([f"references/{i}.md" for i in range(500)]) == []
    problems = file_path_problems([f"references/{i}.md" for i in range(501)])
    assert fields(problems) == ["files"]
    assert "501" in problems[0].message


def test_five_folders_deep_is_accepted_and_six_refused():
    assert file_path_problems(["a/b/c/d/e/file.txt"]) == []
    problems = file_path_problems(["a/b/c/d/e/f/file.txt"])
    assert fields(problems) == ["files/a/b/c/d/e/f/file.txt"]
    assert "6 folders deep" in problems[0].message


@pytest.mark.parametrize("char", ["\x00", "\x01", "\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\x9f"])
def test_control_characters_in_a_path_are_refused(char):
    problems = file_path_problems([f"scripts/run{char}.sh"])
    assert len(problems) == 1
    assert "control character" in problems[0].message
    assert f"U+{ord(char):04X}" in problems[0].message
    assert char not in problems[0].field  # the field shows it escaped


@pytest.mark.parametrize("char", ["\u202e", "\u2028", "\ufeff"])
def test_disguising_characters_in_a_path_are_refused(char):
    assert file_path_problems([f"notes{char}.md"])


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("../escape.sh", "leaves"),
        ("a/../../escape.sh", "leaves"),
        ("a/..", "leaves"),
        ("/etc/passwd", "absolute"),
        ("C:/windows/x", "absolute"),
        ("./a.md", "'.'"),
        ("a/./b.md", "'.'"),
        ("a//b.md", "empty segment"),
        ("a/", "empty segment"),
        ("a\\..\\b.md", "backslash"),
        ("", "empty"),
        ("x" * 256, "255 bytes"),
    ],
)
def test_paths_that_leave_or_bend_the_folder_are_refused(path, fragment):
    problems = file_path_problems([path])
    assert any(fragment in p.message for p in problems), [p.message for p in problems]


def test_same_path_twice_is_refused_once():
    problems = file_path_problems(["a.md", "a.md", "b.md"])
    assert [(p.field, p.message) for p in problems] == [
        ("files/a.md", "The same path appears 2 times.")
    ]


def test_paths_differing_only_by_case_are_refused():
    problems = file_path_problems(["References/Guide.md", "references/guide.md"])
    assert fields(problems) == ["files/references/guide.md"]
    assert "only by case" in problems[0].message


def test_paths_differing_only_by_unicode_normalisation_are_refused():
    assert file_path_problems(["caf\u00e9.md", "cafe\u0301.md"])


def test_file_named_like_another_files_folder_is_refused():
    problems = file_path_problems(["docs", "docs/x.md"])
    assert fields(problems) == ["files/docs/x.md"]
    assert "'docs' is a file" in problems[0].message


def test_file_named_like_a_folder_in_another_case_is_refused():
    assert fields(file_path_problems(["Docs", "docs/a/x.md"])) == ["files/docs/a/x.md"]


@pytest.mark.parametrize("path", ["SKILL.md", "skill.md", "Skill.md", "SKILL.MD", "sKiLl.Md"])
def test_skill_md_at_the_drive_root_is_refused(path):
    problems = file_path_problems([path])
    assert fields(problems) == [f"files/{path}"]


def test_skill_md_below_the_root_is_an_ordinary_file():
    assert file_path_problems(["references/SKILL.md", "sub/skill.md"]) == []


def test_valid_drive_paths():
    paths = ["scripts/run.sh", "references/guide.md", "assets/logo.png", "notes é.md", "a b/c"]
    assert file_path_problems(paths) == []


def test_every_path_problem_at_once():
    problems = file_path_problems(["../a", "b\x00", "c", "c", "D", "d", "Skill.md"])
    assert set(fields(problems)) == {
        "files/../a",
        "files/b\\u0000",
        "files/c",
        "files/d",
        "files/Skill.md",
    }


@pytest.mark.parametrize(
    ("path", "stored"),
    [
        ("SKILL.md", "SKILL-2.md"),
        ("skill.md", "skill-2.md"),
        ("Skill.MD", "Skill-2.MD"),
        ("sKiLl.mD", "sKiLl-2.mD"),
        ("references/SKILL.md", "references/SKILL.md"),
        ("SKILL.md.bak", "SKILL.md.bak"),
        ("README.md", "README.md"),
    ],
)
def test_drive_path(path, stored):
    assert drive_path(path) == stored
    if stored != path:
        assert file_path_problems([stored]) == []


@pytest.mark.parametrize(
    ("path", "mode", "script"),
    [
        ("tools/run", 0o755, True),
        ("tools/run", 0o100744, True),
        ("scripts/helper.txt", 0o644, True),
        ("tools/build.sh", 0o644, True),
        ("x.PY", 0o644, True),
        ("a/b.js", 0o644, True),
        ("a/b.ts", 0o644, True),
        ("a/b.rb", 0o644, True),
        ("a/b.pl", 0o644, True),
        ("a/b.bash", 0o644, True),
        ("references/guide.md", 0o644, False),
        ("assets/scripts/x.txt", 0o644, False),
        (".sh", 0o644, False),
    ],
)
def test_is_script(path, mode, script):
    assert is_script(path, mode) is script
