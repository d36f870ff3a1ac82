"""A skill folder checked whole (DESIGN §3): SKILL.md and its drive, every problem at once."""

from __future__ import annotations

from resolvers.skills.folder import check_folder
from resolvers.skills.skill_md import SkillDraft
from tests.skills.folders import GOOD_MD, fields, skill_md


def test_check_a_valid_folder():
    files = {"SKILL.md": GOOD_MD, "scripts/run.sh": b"#!/bin/sh\n", "references/a.md": b"a"}
    draft, drive, problems = check_folder("demo", files)
    assert problems == []
    assert draft == SkillDraft("demo", "A demo skill.", "Body.\n", {})
    assert drive == {"scripts/run.sh": b"#!/bin/sh\n", "references/a.md": b"a"}


def test_check_accepts_lowercase_skill_md():
    draft, drive, problems = check_folder("demo", {"skill.md": GOOD_MD})
    assert problems == [] and draft is not None and drive == {}


def test_check_refuses_a_missing_skill_md():
    draft, drive, problems = check_folder("demo", {"README.md": b"x"})
    assert draft is None and drive == {"README.md": b"x"}
    assert fields(problems) == ["SKILL.md"]


def test_check_refuses_skill_md_in_another_case_like_skills_ref_on_linux():
    _, _, problems = check_folder("demo", {"Skill.md": GOOD_MD})
    assert "SKILL.md" in fields(problems)
    assert "found 'Skill.md'" in problems[0].message


def test_check_refuses_both_skill_md_and_lowercase():
    _, drive, problems = check_folder("demo", {"SKILL.md": GOOD_MD, "skill.md": GOOD_MD})
    assert list(drive) == ["skill.md"]
    assert fields(problems) == ["files/skill.md"]


def test_check_refuses_a_second_skill_md_in_any_case():
    _, _, problems = check_folder("demo", {"SKILL.md": GOOD_MD, "Skill.MD": b"x"})
    assert fields(problems) == ["files/Skill.MD"]


def test_check_refuses_skill_md_not_utf8():
    _, _, problems = check_folder("demo", {"SKILL.md": b"---\nname: demo\xff\n---\n"})
    assert fields(problems) == ["SKILL.md"]
    assert "UTF-8" in problems[0].message


def test_check_counts_drive_files_against_the_limit():
    files = {"SKILL.md": GOOD_MD} | {f"r/{i}.md": b"" for i in range(500)}
    assert check_folder("demo", files)[2] == []
    files["r/500.md"] = b""
    assert fields(check_folder("demo", files)[2]) == ["files"]


def test_check_lists_every_problem_at_once():
    files = {
        "SKILL.md": skill_md("name: Demo\ndescription: d\nmetadata:\n  nested:\n    a: b\n"),
        "../escape.sh": b"",
        "scripts/a\x07.sh": b"",
    }
    draft, _, problems = check_folder("Demo", files)
    assert draft is None
    assert fields(problems) == [
        "name",
        "frontmatter.metadata.nested",
        "files/../escape.sh",
        "files/scripts/a\\u0007.sh",
    ]


def test_check_refuses_a_folder_not_named_like_the_skill():
    _, _, problems = check_folder("other", {"SKILL.md": GOOD_MD})
    assert fields(problems) == ["name"]
