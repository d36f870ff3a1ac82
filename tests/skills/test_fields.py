"""The fields of SKILL.md (DESIGN §3), each rule at its boundary: name, description, body,
extra frontmatter, and the constants they are held to."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.skills.drive import (
    MAX_FILES,
    MAX_FOLDER_DEPTH,
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
from tests.skills.folders import fields


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


def test_body_accepts_tabs_newlines_and_unicode():
    assert body_problems(SKILL_TEMPLATE + "\tcode\n技能 🙂\n") == []


@pytest.mark.parametrize("body", ["a\r\nb", "a\x00b", "a\x1bb", "a\x85b", "a\ud800", 3])
def test_body_that_an_export_cannot_write_back_is_refused(body):
    assert fields(body_problems(body)) == ["body"]
    assert fields(body_problems(body, field_name="content")) == ["content"]


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
