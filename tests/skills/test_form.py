"""A skill body's form (from evo): sections, step counts, the L1 form check (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.skills.dormancy import DORMANT_AFTER_DAYS
from resolvers.skills.form import (
    CHECK_MIN,
    PURPOSE_MAX,
    PURPOSE_MIN,
    REFLEX_MAX_CHARS,
    STEPS_MIN,
    TRIGGER_MIN,
    FormCheck,
    count_steps,
    form_check,
    sections,
)
from resolvers.skills.polish import (
    POLISH_MAX_STEP_GROWTH,
    POLISH_MIN_LESSONS,
)
from tests.skills.bodies import TRIGGER, body

CHECK_NAMES = ["name", "purpose", "trigger", "steps", "check", "reflex"]


def checks(name: str = "deploy-workflow", text: str | None = None) -> dict[str, FormCheck]:
    found = form_check(name, body() if text is None else text)
    assert [check.name for check in found] == CHECK_NAMES
    return {check.name: check for check in found}


def test_constants():
    assert DORMANT_AFTER_DAYS == 21
    assert POLISH_MIN_LESSONS == 3
    assert POLISH_MAX_STEP_GROWTH == 0.5
    assert REFLEX_MAX_CHARS == 500
    assert (PURPOSE_MIN, PURPOSE_MAX, TRIGGER_MIN, CHECK_MIN, STEPS_MIN) == (10, 500, 10, 10, 2)


def test_sections_by_normalized_heading():
    text = (
        "# Title\nintro\n\n## Purpose\nDo it.\n\n##   When  To Use:  \nAlways.\n"
        "## **Check** ##\nIt worked.\n"
    )
    assert sections(text) == {"purpose": "Do it.", "when to use": "Always.", "check": "It worked."}


def test_sub_headings_belong_to_their_section_and_fenced_headings_are_not_headings():
    text = "## Steps\n1. a\n### Detail\n2. b\n```md\n## Not a heading\n```\n3. c\n"
    found = sections(text)
    assert list(found) == ["steps"]
    assert "### Detail" in found["steps"] and "## Not a heading" in found["steps"]
    assert count_steps(text) == 3


def test_text_before_the_first_section_and_level_one_or_three_headings_are_not_sections():
    assert sections("# Title\nSome text\n### Deep\nmore") == {}
    assert sections("") == {}
    assert sections("##NoSpace\ntext") == {}


def test_a_heading_given_twice_has_its_texts_joined():
    assert sections("## Lessons\n- a\n## Steps\n1. x\n## lessons\n- b\n")["lessons"] == "- a\n\n- b"


def test_crlf_bodies_are_read_like_lf_bodies():
    text = body().replace("\n", "\r\n")
    assert sections(text) == sections(body())
    assert all(check.passed for check in form_check("deploy-workflow", text))


@pytest.mark.parametrize(
    ("steps", "count"),
    [
        ("1. a\n2. b\n3. c", 3),
        ("1) a\n2) b", 2),
        ("- a\n* b\n+ c", 3),
        ("1. a\n   - sub one\n   - sub two\n2. b", 2),
        ("Intro paragraph.\n\n1. a\n\nSome text between.\n\n2. b", 2),
        ("```sh\n- not a step\n1. nor this\n```\n1. a", 1),
        ("---\n***\n- - -\n1. a", 1),
        ("Just prose, no list.", 0),
        ("-not an item\n1.nor this", 0),
    ],
)
def test_count_steps(steps, count):
    assert count_steps(body(steps=steps)) == count


def test_count_steps_reads_instructions_and_prefers_steps():
    assert count_steps("## Instructions\n1. a\n2. b\n") == 2
    assert count_steps("## Instructions\n1. a\n2. b\n## Steps\n- x\n") == 1
    assert count_steps("## What to avoid\n- a\n- b\n") == 0
    assert count_steps("") == 0


def test_a_well_formed_skill_passes_every_check():
    found = checks()
    assert all(check.passed for check in found.values()), found
    assert found["reflex"].why == "there is no reflex section (it is optional)"


def test_the_product_headings_are_read_too():
    found = checks(text=body(evo=False))
    assert all(check.passed for check in found.values()), found


def test_the_product_template_has_no_check_section():
    template = (
        "## Overview\nDeploys the app to production.\n\n## When to use\nBefore a release. "
        "Don't use when hotfixing.\n\n## Instructions\n1. Test\n2. Deploy\n\n## Examples\n"
        "Deploying version 2.3 to production.\n\n## What to avoid\n- Friday deploys\n"
    )
    found = checks(text=template)
    assert [name for name, check in found.items() if not check.passed] == ["check"]
    assert "## Check (or ## Verification)" in found["check"].why


@pytest.mark.parametrize("heading", ["Check", "check", "CHECK", "Verification", "verification:"])
def test_check_headings_are_case_insensitive(heading):
    text = body(check=None) + f"\n## {heading}\nThe page loads in under a second.\n"
    assert checks(text=text)["check"].passed


@pytest.mark.parametrize("name", ["deploy-workflow", "a", "x2-y3", "git-commit-workflow", "123"])
def test_kebab_case_names_pass(name):
    assert checks(name)["name"] == FormCheck("name", True, f"{name} is kebab-case")


@pytest.mark.parametrize(
    ("name", "like"),
    [
        ("DeployWorkflow", "deploy-workflow"),
        ("deploy_workflow", "deploy-workflow"),
        ("deploy workflow", "deploy-workflow"),
        ("-deploy", "deploy"),
        ("deploy-", "deploy"),
        ("deploy--workflow", "deploy-workflow"),
        ("HTTPServer", "http-server"),
        ("", "deploy-workflow"),
        ("déploi", "d-ploi"),
    ],
)
def test_names_that_are_not_kebab_case_fail_with_a_suggestion(name, like):
    check = checks(name)["name"]
    assert not check.passed
    assert check.why.startswith(f"{name!r} is not kebab-case")
    assert check.why.endswith(f"like {like}")


@pytest.mark.parametrize(
    ("size", "passed", "why"),
    [
        (7, False, "purpose has 7 characters; it needs 10 to 500"),
        (9, False, "purpose has 9 characters; it needs 10 to 500"),
        (10, True, "purpose has 10 characters, within 10 to 500"),
        (500, True, "purpose has 500 characters, within 10 to 500"),
        (501, False, "purpose has 501 characters; it needs 10 to 500"),
    ],
)
def test_purpose_length_boundaries(size, passed, why):
    assert checks(text=body(purpose="p" * size))["purpose"] == FormCheck("purpose", passed, why)


def test_purpose_counts_the_stripped_text_and_a_missing_or_empty_section_fails():
    assert checks(text=body(purpose="  \n" + "p" * 10 + "\n\n"))["purpose"].passed
    empty = checks(text=body(purpose=""))["purpose"]
    assert empty == FormCheck("purpose", False, "purpose has 0 characters; it needs 10 to 500")
    missing = checks(text=body(purpose=None))["purpose"]
    assert missing == FormCheck(
        "purpose", False, "there is no purpose section: add ## Purpose (or ## Overview)"
    )


def test_one_character_is_singular():
    assert checks(text=body(purpose="p"))["purpose"].why.startswith("purpose has 1 character;")


def test_trigger_length_boundary():
    short = checks(text=body(trigger="t" * 9))["trigger"]
    assert not short.passed
    assert short.why == (
        'trigger has 9 characters; it needs at least 10; trigger has no "don\'t use when" line'
    )
    ten = checks(text=body(trigger="t" * 10))["trigger"]
    assert not ten.passed
    assert ten.why == 'trigger has no "don\'t use when" line'


@pytest.mark.parametrize(
    "line",
    [
        "Don't use when: hotfixing.",
        "don’t use when hotfixing.",
        "Don‘t use when hotfixing.",
        "DON'T USE WHEN hotfixing.",
        "Do not use when hotfixing.",
        "do  not\tuse when hotfixing.",
        "Don't use it when hotfixing.",
        "Don't use this skill if hotfixing.",
        "- **Don't use when** the build is red",
    ],
)
def test_trigger_with_a_dont_use_when_line_passes(line):
    check = checks(text=body(trigger=f"Before a release.\n{line}"))["trigger"]
    assert check.passed, check
    assert "don't use when" in check.why


@pytest.mark.parametrize(
    "line",
    [
        "Use when the tests pass.",
        "Dont use when hotfixing.",
        "Never use when hotfixing.",
        "Don't use the staging database.",
        "Undo not use when.",
    ],
)
def test_trigger_without_a_dont_use_when_line_fails(line):
    check = checks(text=body(trigger=f"Before a release.\n{line}"))["trigger"]
    assert check == FormCheck("trigger", False, 'trigger has no "don\'t use when" line')


def test_trigger_from_when_to_use_and_missing():
    assert checks(text=f"## When to use\n{TRIGGER}\n")["trigger"].passed
    missing = checks(text=body(trigger=None))["trigger"]
    assert not missing.passed
    assert missing.why.startswith("there is no trigger section: add ## Trigger (or ## When to use)")


def test_steps_boundary():
    one = checks(text=body(steps="1. Deploy"))["steps"]
    assert one == FormCheck(
        "steps", False, "steps has 1 item; it needs at least 2 numbered or bulleted items"
    )
    two = checks(text=body(steps="- Test\n- Deploy"))["steps"]
    assert two == FormCheck("steps", True, "steps has 2 items")
    missing = checks(text=body(steps=None))["steps"]
    assert not missing.passed
    assert missing.why.startswith("there is no steps section: add ## Steps (or ## Instructions)")


def test_check_boundary():
    nine = checks(text=body(check="c" * 9))["check"]
    assert nine == FormCheck("check", False, "check has 9 characters; it needs at least 10")
    ten = checks(text=body(check="c" * 10))["check"]
    assert ten == FormCheck("check", True, "check has 10 characters")
    missing = checks(text=body(check=None))["check"]
    assert not missing.passed
    assert missing.why.startswith("there is no check section: add ## Check (or ## Verification)")


def test_reflex_boundary():
    at_limit = checks(text=body(reflex="r" * 500))["reflex"]
    assert at_limit == FormCheck("reflex", True, "reflex has 500 characters, within 500")
    over = checks(text=body(reflex="r" * 501))["reflex"]
    assert over == FormCheck("reflex", False, "reflex has 501 characters; it may have at most 500")


def test_every_failing_check_is_reported_at_once():
    found = form_check("Bad_Name", "")
    assert [check.name for check in found if not check.passed] == CHECK_NAMES[:5]


@given(st.text(), st.text())
def test_form_check_reads_any_text(name, text):
    found = form_check(name, text)
    assert [check.name for check in found] == CHECK_NAMES
    assert all(check.why for check in found)


@given(st.text(alphabet="abc xyz.", min_size=0, max_size=600))
def test_purpose_passes_exactly_within_its_bounds(text):
    stripped = text.strip()
    found = checks(text=f"## Purpose\n{text}\n")["purpose"]
    assert found.passed == (PURPOSE_MIN <= len(stripped) <= PURPOSE_MAX)
    assert f"purpose has {len(stripped)} character" in found.why
