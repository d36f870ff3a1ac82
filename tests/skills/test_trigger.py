"""A skill's trigger: its When to use section on one line, the "don't use when" part kept (pure)."""

from __future__ import annotations

import pytest

from resolvers.skills.trigger import trigger

SEED_BODY = """# Deploy Workflow

## Purpose
Deploy application to production safely.

## When to use
- When all tests pass and changes are reviewed
- Don't use when: hotfixing a critical bug (use emergency deploy instead)

## Steps
1. Run the full test suite
2. Deploy
"""


def test_the_seed_trigger_keeps_its_dont_use_part():
    assert trigger(SEED_BODY) == (
        "When all tests pass and changes are reviewed; "
        "Don't use when: hotfixing a critical bug (use emergency deploy instead)"
    )


def test_a_trigger_without_a_dont_use_part_is_its_text_on_one_line():
    body = "## When to use\n\nWhen an invoice is\n  thirty days late.\n\n## Steps\n\n1. Chase.\n"
    assert trigger(body) == "When an invoice is thirty days late."


@pytest.mark.parametrize(
    "body",
    [
        "## Purpose\n\nNo trigger here.\n\n## Steps\n\n1. a\n2. b\n",
        "## When to use\n\n## Steps\n\n1. a\n",
        "",
        "```\n## When to use\nin code\n```\n",
    ],
    ids=["missing", "empty", "blank body", "heading in code"],
)
def test_no_trigger_section_no_trigger(body):
    assert trigger(body) is None


def test_a_trigger_heading_and_continued_items_and_code_left_out():
    body = (
        "## Trigger:\n"
        "* When a customer\n  writes twice\n"
        "```\nnot = this\n```\n"
        "Do not use when the invoice is disputed.\n"
    )
    assert trigger(body) == (
        "When a customer writes twice; Do not use when the invoice is disputed."
    )


def test_when_to_use_is_read_after_trigger_like_the_form_check():
    body = "## When to use\n\nlater\n\n## Trigger\n\nfirst\n"
    assert trigger(body) == "first"
