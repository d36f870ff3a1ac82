"""SKILL.md read and written: parse_skill_md's refusals and the render round trip."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from resolvers.skills.fields import (
    SKILL_TEMPLATE,
)
from resolvers.skills.folder import check_folder
from resolvers.skills.skill_md import SkillDraft, draft_problems, parse_skill_md, render_skill_md
from tests.skills.folders import DRAFTS, GOOD_MD, TEXT, fields


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
