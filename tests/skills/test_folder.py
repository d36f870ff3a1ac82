"""The rules of a skill folder (DESIGN §3), each at its boundary, and the SKILL.md round trip."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resolvers.skills.drive import (
    MAX_FILES,
    MAX_FOLDER_DEPTH,
    drive_path,
    file_path_problems,
    is_script,
)
from resolvers.skills.fields import (
    COMPATIBILITY_MAX_CHARS,
    DESCRIPTION_MAX_CHARS,
    EXTRA_FIELDS,
    NAME_MAX_CHARS,
    RESERVED_NAMES,
    SKILL_TEMPLATE,
    body_problems,
    description_problems,
    extra_frontmatter_problems,
    name_problems,
)
from resolvers.skills.folder import check_folder
from resolvers.skills.skill_md import SkillDraft, draft_problems, parse_skill_md, render_skill_md


def fields(problems):
    return [p.field for p in problems]


def skill_md(frontmatter: str, body: str = "Body.\n") -> bytes:
    return f"---\n{frontmatter}---\n{body}".encode()


GOOD_MD = skill_md("name: demo\ndescription: A demo skill.\n")


# constants -------------------------------------------------------------------------------


def test_constants():
    assert (NAME_MAX_CHARS, DESCRIPTION_MAX_CHARS, COMPATIBILITY_MAX_CHARS) == (64, 1024, 500)
    assert (MAX_FILES, MAX_FOLDER_DEPTH) == (500, 5)
    assert {"ui", "skill-creator", "agent-browser", "agent-desktop"} <= RESERVED_NAMES
    assert EXTRA_FIELDS == (
        "license",
        "compatibility",
        "allowed-tools",
        "metadata",
        "disable-model-invocation",
    )


def test_template_has_the_five_sections_in_order():
    headings = [line for line in SKILL_TEMPLATE.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Overview",
        "## When to use",
        "## Instructions",
        "## Examples",
        "## What to avoid",
    ]


# name ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "pdf", "my-skill", "a1-b2-c3", "123", "x" * 64])
def test_valid_names(name):
    assert name_problems(name) == []


def test_name_of_64_characters_is_accepted_and_65_refused():
    assert name_problems("a" * 64) == []
    problems = name_problems("a" * 65)
    assert len(problems) == 1
    assert problems[0].field == "name"
    assert "65" in problems[0].message


@pytest.mark.parametrize("name", sorted(RESERVED_NAMES))
def test_each_reserved_name_is_refused(name):
    problems = name_problems(name)
    assert [p.message for p in problems] == [f"The name '{name}' is reserved."]


def test_reserved_name_in_capitals_is_refused_as_reserved_too():
    messages = [p.message for p in name_problems("UI")]
    assert "The name must be lowercase." in messages
    assert "The name 'ui' is reserved." in messages


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "required"),
        ("My-Skill", "lowercase"),
        ("café", "ASCII"),
        ("навык", "ASCII"),
        ("技能", "ASCII"),
        ("ｐｄｆ", "ASCII"),  # fullwidth: NFKC makes it "pdf", skills-ref accepts it
        ("ﬁle", "ASCII"),  # ligature: NFKC makes it "file"
        ("-skill", "hyphen"),
        ("skill-", "hyphen"),
        ("my--skill", "two hyphens"),
        ("my_skill", "'_'"),
        ("my skill", "' '"),
        ("my.skill", "'.'"),
    ],
)
def test_invalid_names(name, fragment):
    problems = name_problems(name)
    assert problems, name
    assert all(p.field == "name" for p in problems)
    assert any(fragment in p.message for p in problems), [p.message for p in problems]


@pytest.mark.parametrize("value", [None, 3, ["a"], {"a": "b"}])
def test_name_must_be_text(value):
    assert [p.message for p in name_problems(value)][0].startswith("The name must be text")


def test_every_name_problem_at_once():
    problems = name_problems("-Café--x_")
    messages = " | ".join(p.message for p in problems)
    for fragment in ("ASCII", "lowercase", "'_'", "start or end", "two hyphens"):
        assert fragment in messages


@given(st.text(alphabet=string.ascii_lowercase + string.digits + "-", min_size=1, max_size=70))
def test_name_rule_matches_its_definition(name):
    expected = (
        len(name) <= 64
        and not name.startswith("-")
        and not name.endswith("-")
        and "--" not in name
        and name not in RESERVED_NAMES
    )
    assert (name_problems(name) == []) is expected


# description -----------------------------------------------------------------------------


def test_description_of_1024_characters_is_accepted_and_1025_refused():
    assert description_problems("d" * 1024) == []
    problems = description_problems("d" * 1025)
    assert fields(problems) == ["description"]
    assert "1025" in problems[0].message


@pytest.mark.parametrize("value", ["", "   ", "\n\t"])
def test_blank_description_is_refused(value):
    assert [p.message for p in description_problems(value)] == ["The description is required."]


@pytest.mark.parametrize("value", [None, 1, ["a"], {"a": "b"}])
def test_description_must_be_text(value):
    assert fields(description_problems(value)) == ["description"]


def test_description_with_a_lone_surrogate_is_refused():
    assert fields(description_problems("bad \ud800")) == ["description"]


# body ------------------------------------------------------------------------------------


def test_body_accepts_tabs_newlines_and_unicode():
    assert body_problems(SKILL_TEMPLATE + "\tcode\n技能 🙂\n") == []


@pytest.mark.parametrize("body", ["a\r\nb", "a\x00b", "a\x1bb", "a\x85b", "a\ud800", 3])
def test_body_that_an_export_cannot_write_back_is_refused(body):
    assert fields(body_problems(body)) == ["body"]
    assert fields(body_problems(body, field_name="content")) == ["content"]


# extra frontmatter -----------------------------------------------------------------------


def test_extra_frontmatter_accepts_every_field():
    extra = {
        "license": "MIT",
        "compatibility": "Python 3.11",
        "allowed-tools": "Read Grep",
        "metadata": {"author": "me", "standards-parent": "parent"},
        "disable-model-invocation": True,
    }
    assert extra_frontmatter_problems(extra) == []
    assert extra_frontmatter_problems({}) == []


def test_allowed_tools_as_a_list_is_accepted_as_skills_ref_does():
    assert extra_frontmatter_problems({"allowed-tools": ["Read", "Bash(git:*)"]}) == []


def test_compatibility_of_500_characters_is_accepted_and_501_refused():
    assert extra_frontmatter_problems({"compatibility": "c" * 500}) == []
    problems = extra_frontmatter_problems({"compatibility": "c" * 501})
    assert fields(problems) == ["frontmatter.compatibility"]
    assert "501" in problems[0].message


@pytest.mark.parametrize("value", [["a"], {"a": "b"}, 3, None])
def test_compatibility_must_be_text(value):
    assert fields(extra_frontmatter_problems({"compatibility": value})) == [
        "frontmatter.compatibility"
    ]


@pytest.mark.parametrize(
    "value", [{"nested": {"a": "b"}}, {"items": ["a", "b"]}, {"n": 3}, {"flag": True}]
)
def test_metadata_value_that_is_not_text_is_refused(value):
    key = next(iter(value))
    problems = extra_frontmatter_problems({"metadata": value})
    assert fields(problems) == [f"frontmatter.metadata.{key}"]
    assert "must be text" in problems[0].message


@pytest.mark.parametrize("value", ["text", ["a"], {}, None])
def test_metadata_must_be_a_non_empty_mapping(value):
    assert fields(extra_frontmatter_problems({"metadata": value})) == ["frontmatter.metadata"]


def test_metadata_may_not_hold_disable_model_invocation():
    problems = extra_frontmatter_problems({"metadata": {"disable-model-invocation": "true"}})
    assert fields(problems) == ["frontmatter.metadata.disable-model-invocation"]


@pytest.mark.parametrize("value", ["true", 1, None])
def test_disable_model_invocation_must_be_a_boolean(value):
    problems = extra_frontmatter_problems({"disable-model-invocation": value})
    assert fields(problems) == ["frontmatter.disable-model-invocation"]


def test_unknown_extra_fields_are_refused_each_by_name():
    problems = extra_frontmatter_problems({"version": "1", "tags": "a", "license": "MIT"})
    assert fields(problems) == ["frontmatter.version", "frontmatter.tags"]


def test_extra_frontmatter_must_be_a_mapping():
    assert fields(extra_frontmatter_problems(["license"])) == ["frontmatter"]


@pytest.mark.parametrize("value", [[], {}, 3, True, ["a", 1]])
def test_license_that_cannot_be_written_is_refused(value):
    assert extra_frontmatter_problems({"license": value})


# file paths ------------------------------------------------------------------------------


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


# drive_path and is_script ----------------------------------------------------------------


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


# parse_skill_md ----------------------------------------------------------------------------


def test_parse_a_plain_skill():
    draft, problems = parse_skill_md(GOOD_MD.decode(), folder_name="demo")
    assert problems == []
    assert draft == SkillDraft("demo", "A demo skill.", "Body.\n", {})


def test_parse_takes_the_body_after_one_blank_line():
    text = "---\nname: demo\ndescription: d\n---\n\n\n# Title\n\ntext  \n"
    draft, _ = parse_skill_md(text, folder_name=None)
    assert draft is not None and draft.body == "\n# Title\n\ntext  \n"


def test_parse_reads_crlf_as_skills_ref_does():
    text = "---\r\nname: demo\r\ndescription: d\r\n---\r\nline 1\r\nline 2\r\n"
    draft, problems = parse_skill_md(text, folder_name="demo")
    assert problems == []
    assert draft == SkillDraft("demo", "d", "line 1\nline 2\n", {})


def test_parse_maps_disable_model_invocation_out_of_metadata():
    text = (
        "---\nname: demo\ndescription: d\nmetadata:\n"
        '  disable-model-invocation: "true"\n  standards-parent: parent\n---\n'
    )
    draft, problems = parse_skill_md(text, folder_name="demo")
    assert problems == []
    assert draft is not None
    assert draft.extra_frontmatter == {
        "disable-model-invocation": True,
        "metadata": {"standards-parent": "parent"},
    }


def test_parse_drops_metadata_left_empty():
    text = "---\nname: demo\ndescription: d\nmetadata:\n  disable-model-invocation: false\n---\n"
    draft, _ = parse_skill_md(text, folder_name="demo")
    assert draft is not None and draft.extra_frontmatter == {"disable-model-invocation": False}


def test_parse_refuses_another_disable_model_invocation_value():
    text = "---\nname: demo\ndescription: d\nmetadata:\n  disable-model-invocation: yes\n---\n"
    _, problems = parse_skill_md(text, folder_name="demo")
    assert fields(problems) == ["frontmatter.metadata.disable-model-invocation"]


def test_parse_refuses_top_level_disable_model_invocation_as_skills_ref_does():
    text = "---\nname: demo\ndescription: d\ndisable-model-invocation: true\n---\n"
    draft, problems = parse_skill_md(text, folder_name="demo")
    assert draft is None
    assert fields(problems) == ["frontmatter.disable-model-invocation"]
    assert "metadata" in problems[0].message


def test_parse_refuses_unknown_fields_each_by_name():
    text = "---\nname: demo\ndescription: d\nversion: 1\ntags: a\n---\n"
    _, problems = parse_skill_md(text, folder_name="demo")
    assert fields(problems) == ["frontmatter.version", "frontmatter.tags"]


def test_parse_refuses_metadata_not_text():
    text = (
        "---\nname: demo\ndescription: d\nmetadata:\n  nested:\n    a: b\n  list:\n    - x\n---\n"
    )
    _, problems = parse_skill_md(text, folder_name="demo")
    assert fields(problems) == ["frontmatter.metadata.nested", "frontmatter.metadata.list"]


def test_parse_strips_the_name_as_skills_ref_does():
    draft, problems = parse_skill_md(
        '---\nname: " demo "\ndescription: d\n---\n', folder_name="demo"
    )
    assert problems == [] and draft is not None and draft.name == "demo"


def test_parse_compares_the_folder_after_nfkc():
    text = "---\nname: file\ndescription: d\n---\n"
    assert parse_skill_md(text, folder_name="\ufb01le")[1] == []  # "ﬁle" folds to "file"
    _, problems = parse_skill_md(text, folder_name="other")
    assert fields(problems) == ["name"]
    assert "folder" in problems[0].message


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("name: demo\n---\n", 1),
        ("---\nname: demo\n", None),
        ("---\nname: demo\nname: other\ndescription: d\n---\n", 3),
        ("---\nname: demo\ndescription: {a: b}\n---\n", 3),
        ("---\nname: demo\n\tdescription: d\n---\n", 3),
        ("---\n- a\n- b\n---\n", None),
        ("---\n---\n", None),
    ],
)
def test_parse_refuses_what_skills_ref_cannot_read(text, line):
    draft, problems = parse_skill_md(text, folder_name=None)
    assert draft is None
    assert len(problems) == 1
    assert problems[0].field == "frontmatter"
    assert problems[0].line == line


def test_parse_refuses_control_characters_with_their_line():
    _, problems = parse_skill_md("---\nname: demo\ndescription: d\x01\n---\n", folder_name=None)
    assert [(p.field, p.line) for p in problems] == [("SKILL.md", 3)]
    _, problems = parse_skill_md("---\nname: demo\ndescription: d\n---\nA\x00\n", folder_name=None)
    assert [(p.field, p.line) for p in problems] == [("SKILL.md", 5)]


def test_parse_reports_each_control_character_once():
    text = "---\nname: demo\ndescription: d\n---\n" + "\x00\x01" * 1000
    _, problems = parse_skill_md(text, folder_name=None)
    assert [p.message for p in problems] == [
        "SKILL.md holds a control character (U+0000, 1000 times).",
        "SKILL.md holds a control character (U+0001, 1000 times).",
    ]


def test_parse_refuses_a_byte_order_mark():
    _, problems = parse_skill_md("\ufeff---\nname: demo\ndescription: d\n---\n", folder_name=None)
    assert "byte-order mark" in problems[0].message


# check_folder ----------------------------------------------------------------------------


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


# render and the round trip -----------------------------------------------------------------


def test_render_writes_a_readable_skill_md():
    draft = SkillDraft(
        "demo",
        "Use when: the user asks # for it",
        SKILL_TEMPLATE,
        {
            "disable-model-invocation": True,
            "metadata": {"standards-parent": "parent"},
            "license": "MIT",
            "allowed-tools": ["Read", "Grep"],
        },
    )
    assert render_skill_md(draft) == (
        "---\n"
        "name: demo\n"
        'description: "Use when: the user asks # for it"\n'
        "license: MIT\n"
        "allowed-tools:\n"
        "  - Read\n"
        "  - Grep\n"
        "metadata:\n"
        "  standards-parent: parent\n"
        '  disable-model-invocation: "true"\n'
        "---\n"
        "\n" + SKILL_TEMPLATE
    )


def test_render_escapes_three_hyphens():
    draft = SkillDraft("demo", "a --- b\n---\nname: evil", "---\nbody\n", {})
    text = render_skill_md(draft)
    assert text.count("---") == 3  # the two fences and the body's own
    assert parse_skill_md(text, folder_name="demo") == (draft, [])


def test_render_refuses_an_invalid_draft():
    with pytest.raises(ValueError, match="reserved"):
        render_skill_md(SkillDraft("ui", "d", "", {}))


NAMES = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,5}", fullmatch=True).filter(
    lambda n: n not in RESERVED_NAMES
)
TRICKY = st.sampled_from(
    [":", ": ", "#", " #", "'", '"', "\\", "---", "- ", "\n", "\t", " ", "{", "[", "&", "*", "!",
     "|", ">", "%", "@", "`", "é", "ﬁ", "技", "🙂", "\u00a0", "\u2028", "\x85", "\x00", "\x1b",
     "\ufeff", "true", "null", "yes", "~", "1", "0x1f", ".inf", "...", "? "]
)  # fmt: skip
TEXT = st.lists(
    st.one_of(TRICKY, st.text(st.characters(exclude_categories=("Cs",)), max_size=6)),
    max_size=12,
).map("".join)
DESCRIPTIONS = TEXT.filter(lambda d: d.strip() != "" and len(d) <= DESCRIPTION_MAX_CHARS)
BODIES = TEXT.map(lambda b: b.replace("\r", "")).filter(lambda b: body_problems(b) == [])
TREE = st.recursive(
    TEXT,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(TEXT, inner, min_size=1, max_size=3),
    ),
    max_leaves=6,
)
METADATA = st.dictionaries(
    TEXT.filter(lambda k: k != "disable-model-invocation"), TEXT, min_size=1, max_size=4
)
EXTRAS = st.fixed_dictionaries(
    {},
    optional={
        "license": TREE,
        "compatibility": TEXT.filter(lambda c: len(c) <= COMPATIBILITY_MAX_CHARS),
        "allowed-tools": TREE,
        "metadata": METADATA,
        "disable-model-invocation": st.booleans(),
    },
)


DRAFTS = st.builds(SkillDraft, NAMES, DESCRIPTIONS, BODIES, EXTRAS)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(DRAFTS)
def test_render_then_parse_gives_the_draft_back(draft):
    assert draft_problems(draft) == []
    text = render_skill_md(draft)
    assert parse_skill_md(text, folder_name=draft.name) == (draft, [])
    files = {"SKILL.md": text.encode(), "scripts/run.sh": b"#!/bin/sh\n"}
    assert check_folder(draft.name, files) == (draft, {"scripts/run.sh": b"#!/bin/sh\n"}, [])


@given(TEXT)
def test_description_survives_whatever_it_holds(description):
    draft = SkillDraft("demo", description, "", {})
    if draft_problems(draft):
        return
    assert parse_skill_md(render_skill_md(draft), folder_name="demo")[0] == draft
