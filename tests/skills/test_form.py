"""A skill body's form (from evo): sections, the L1 form check, dormancy, lessons, polish (pure)."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resolvers.common.errors import Problem
from resolvers.skills.dormancy import DORMANT_AFTER_DAYS, is_dormant
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
from resolvers.skills.lessons import Lesson, render_lessons
from resolvers.skills.polish import (
    POLISH_MAX_STEP_GROWTH,
    POLISH_MIN_LESSONS,
    absolute_paths,
    polish,
    polish_problems,
)

CHECK_NAMES = ["name", "purpose", "trigger", "steps", "check", "reflex"]
TRIGGER = "When all tests pass.\nDon't use when: hotfixing a critical bug."


def body(
    purpose: str | None = "Deploy the application to production safely.",
    trigger: str | None = TRIGGER,
    steps: str | None = "1. Run the tests\n2. Build the bundle\n3. Deploy",
    check: str | None = "The health check answers 200 within a minute.",
    reflex: str | None = None,
    *,
    evo: bool = True,
) -> str:
    """A skill body with the given section texts, under evo's headings or the product's."""
    names = (
        ("Purpose", "Trigger", "Steps", "Check")
        if evo
        else ("Overview", "When to use", "Instructions", "Verification")
    )
    parts = ["# Deploy workflow", ""]
    for heading, text in zip(names, (purpose, trigger, steps, check), strict=True):
        if text is not None:
            parts += [f"## {heading}", "", text, ""]
    if reflex is not None:
        parts += ["## Reflex", "", reflex, ""]
    return "\n".join(parts)


def checks(name: str = "deploy-workflow", text: str | None = None) -> dict[str, FormCheck]:
    found = form_check(name, body() if text is None else text)
    assert [check.name for check in found] == CHECK_NAMES
    return {check.name: check for check in found}


def steps_body(count: int) -> str:
    return body(steps="\n".join(f"{i}. Step {i}" for i in range(1, count + 1)))


def lessons(count: int) -> list[Lesson]:
    return [Lesson(date(2024, 3, 1 + i), f"Lesson number {i}") for i in range(count)]


def test_constants():
    assert DORMANT_AFTER_DAYS == 21
    assert POLISH_MIN_LESSONS == 3
    assert POLISH_MAX_STEP_GROWTH == 0.5
    assert REFLEX_MAX_CHARS == 500
    assert (PURPOSE_MIN, PURPOSE_MAX, TRIGGER_MIN, CHECK_MIN, STEPS_MIN) == (10, 500, 10, 10, 2)


# sections ---------------------------------------------------------------------------------


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


# count_steps ------------------------------------------------------------------------------


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


# form_check -------------------------------------------------------------------------------


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


# dormancy ---------------------------------------------------------------------------------

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("uses", "age", "dormant"),
    [
        (0, timedelta(days=20, hours=23, minutes=59), False),
        (0, timedelta(days=21), True),
        (0, timedelta(days=90), True),
        (1, timedelta(days=20, hours=23, minutes=59), False),
        (1, timedelta(days=21), False),
        (5, timedelta(days=365), False),
        (0, timedelta(0), False),
    ],
)
def test_dormancy(uses, age, dormant):
    assert is_dormant(uses, NOW - age, NOW) is dormant


def test_dormancy_with_naive_datetimes():
    now = datetime(2024, 6, 1)
    assert is_dormant(0, now - timedelta(days=21), now)
    assert not is_dormant(0, now - timedelta(days=21) + timedelta(microseconds=1), now)


# lessons ----------------------------------------------------------------------------------


def test_render_lessons():
    rendered = render_lessons(
        [
            Lesson(date(2024, 3, 20), "Run database migrations before starting new pods"),
            Lesson(date(2024, 3, 15), "Always check disk space\n  before deploying "),
        ]
    )
    assert rendered == (
        "- 2024-03-20: Run database migrations before starting new pods\n"
        "- 2024-03-15: Always check disk space before deploying"
    )
    assert render_lessons([]) == ""
    assert render_lessons([Lesson(date(7, 1, 2), "old")]) == "- 0007-01-02: old"


def test_render_lessons_takes_the_day_of_a_datetime():
    assert render_lessons([Lesson(datetime(2024, 3, 15, 9, 30), "x")]) == "- 2024-03-15: x"


# polish -----------------------------------------------------------------------------------


def test_polish_adds_a_lessons_section_at_the_end():
    old = body()
    new = polish(old, lessons(3))
    assert new == old.rstrip("\n") + (
        "\n\n## Lessons\n\n"
        "- 2024-03-01: Lesson number 0\n"
        "- 2024-03-02: Lesson number 1\n"
        "- 2024-03-03: Lesson number 2\n"
    )
    assert polish("", lessons(1)) == "## Lessons\n\n- 2024-03-01: Lesson number 0\n"


def test_polish_appends_to_an_existing_lessons_section_and_leaves_the_rest_alone():
    old = (
        "## Purpose\nDeploy.\n\n## Lessons\n\nNotes from use:\n- 2024-01-01: Older lesson\n\n"
        "## Steps\n1. a\n2. b\n"
    )
    new = polish(old, [Lesson(date(2024, 3, 1), "Newer lesson"), *lessons(0)])
    assert new == (
        "## Purpose\nDeploy.\n\n## Lessons\n\nNotes from use:\n- 2024-01-01: Older lesson\n"
        "- 2024-03-01: Newer lesson\n\n## Steps\n1. a\n2. b\n"
    )
    only_heading = polish("## Lessons\n## Steps\n1. a\n", lessons(1))
    assert only_heading == "## Lessons\n\n- 2024-03-01: Lesson number 0\n## Steps\n1. a\n"


def test_polish_orders_new_lessons_by_day_whatever_the_order_given():
    given_order = lessons(5)
    shuffled = given_order[:]
    random.Random(3).shuffle(shuffled)
    assert polish(body(), shuffled) == polish(body(), given_order)


def test_polishing_the_same_lessons_twice_does_not_duplicate_them():
    once = polish(body(), lessons(3))
    assert polish(once, lessons(3)) == once
    more = polish(once, lessons(4))
    assert more.count("Lesson number") == 4
    assert more == polish(body(), lessons(4))


def test_a_lesson_text_is_folded_once_whatever_its_day_case_or_spacing():
    found = polish(
        body(),
        [
            Lesson(date(2024, 3, 20), "Check  disk space"),
            Lesson(date(2024, 3, 15), "check disk SPACE"),
            Lesson(date(2024, 3, 16), "   "),
        ],
    )
    assert found.endswith("## Lessons\n\n- 2024-03-15: check disk SPACE\n")


def test_polish_without_new_lessons_returns_the_body_unchanged():
    old = "## Purpose\nx  \n```\nunclosed"
    assert polish(old, []) == old
    assert polish(old, [Lesson(date(2024, 1, 1), " \n ")]) == old


def test_polish_closes_a_fence_left_open_so_the_lessons_are_found_again():
    old = "## Steps\n1. a\n2. b\n\n~~~~sh\nrun it\n\n"
    new = polish(old, lessons(1))
    assert new == "## Steps\n1. a\n2. b\n\n~~~~sh\nrun it\n~~~~\n\n## Lessons\n\n" + (
        "- 2024-03-01: Lesson number 0\n"
    )
    assert "lessons" in sections(new)
    assert polish(new, lessons(1)) == new


def test_polish_never_moves_the_steps_and_passes_its_guards_with_clean_lessons():
    old = body(reflex="Announce deployments.")
    new = polish(old, lessons(3))
    assert count_steps(new) == count_steps(old)
    assert sections(new)["reflex"] == sections(old)["reflex"]
    assert polish_problems(old, new, lessons(3)) == []


LINES = st.sampled_from(
    [
        "",
        "# Title",
        "## Purpose",
        "## Lessons",
        "## lessons learned",
        "## Steps",
        "1. a step",
        "- a bullet",
        "- 2024-01-01: an old lesson",
        "```",
        "~~~",
        "some prose",
        "\r",
    ]
)
LESSONS = st.lists(
    st.builds(Lesson, st.dates(), st.text(alphabet=st.characters(), max_size=20)), max_size=6
)


@settings(max_examples=300)
@given(st.lists(LINES, max_size=12).map("\n".join), LESSONS)
def test_polish_is_deterministic_and_idempotent(old, given_lessons):
    once = polish(old, given_lessons)
    assert polish(old, given_lessons) == once
    assert polish(once, given_lessons) == once
    assert polish(once, list(reversed(given_lessons))) == once
    assert count_steps(once) == count_steps(old)


@settings(max_examples=200)
@given(st.lists(LINES, max_size=12).map("\n".join), LESSONS)
def test_polish_keeps_every_lesson_text(old, given_lessons):
    found = sections(polish(old, given_lessons))
    lesson_text = (found.get("lessons", "") + found.get("lessons learned", "")).casefold()
    for lesson in given_lessons:
        assert " ".join(lesson.text.split()).casefold() in lesson_text


# polish guards ----------------------------------------------------------------------------


def test_two_lessons_are_refused_three_accepted():
    assert polish_problems(body(), body(), lessons(2)) == [
        Problem(
            "polish needs at least 3 lessons (non-blank, each text once); it has 2",
            field="lessons",
        )
    ]
    assert polish_problems(body(), body(), lessons(3)) == []


def test_blank_and_repeated_lessons_do_not_count():
    repeated = [Lesson(date(2024, 3, i), "Same lesson") for i in range(1, 4)]
    blank = [*lessons(2), Lesson(date(2024, 4, 1), "  ")]
    for given_lessons in (repeated, blank):
        problems = polish_problems(body(), body(), given_lessons)
        assert [problem.field for problem in problems] == ["lessons"]


@pytest.mark.parametrize(
    ("old", "new", "refused"),
    [
        (2, 3, False),  # +50%
        (2, 4, True),  # +100%
        (100, 150, False),  # +50%
        (100, 151, True),  # +51%
        (4, 6, False),
        (4, 7, True),
        (3, 4, False),  # +33%
        (3, 5, True),  # +67%
        (5, 2, False),  # shrinking is fine
        (0, 0, False),
        (0, 1, True),  # from nothing any step is too much growth
    ],
)
def test_step_growth_guard(old, new, refused):
    problems = polish_problems(steps_body(old), steps_body(new), lessons(3))
    assert [problem.field for problem in problems] == (["body"] if refused else [])


def test_step_growth_message():
    [problem] = polish_problems(steps_body(100), steps_body(151), lessons(3))
    assert problem == Problem(
        "steps grew from 100 to 151 (+51%); polish may grow them by at most 50%, to 150",
        field="body",
    )


@pytest.mark.parametrize(
    "path",
    [
        "/usr/local/bin",
        "/usr/...",
        "/home/ana/notes.md",
        "/etc/passwd",
        "/tmp/",
        "/workspace/skills/deploy/",
        "C:\\Users\\ana",
        "C:\\",
        "D:/data/file.txt",
        "\\\\server\\share\\x",
    ],
)
def test_an_absolute_path_introduced_is_refused(path):
    new = body(steps=f"1. Open `{path}`\n2. Check it\n3. Close it")
    problems = polish_problems(body(), new, lessons(3))
    assert problems == [
        Problem(
            f"the polished body introduces the absolute path {path}; use ~/ or a relative path",
            field="body",
        )
    ]


@pytest.mark.parametrize(
    "text",
    [
        "https://x/y",
        "see https://example.com/home/ana/x",
        "http://localhost:8080/usr/share",
        "file:///etc/passwd",
        "~/notes/today.md",
        "./scripts/run.sh",
        "../shared/x",
        "scripts/run.sh",
        "$HOME/.standards/skills/x",
        "${HOME}/.standards/skills/x",
        "read and/or write",
        "run /compact then /clear",
        "a 50/50 split, 3/4 done",
        "glob **/*.py and cron */5",
        "</div> closes a tag",
        "version 1.2/3.4",
        "key:/value and https:/x",
    ],
)
def test_urls_home_relative_and_prose_are_not_absolute_paths(text):
    assert absolute_paths(text) == []
    new = body(steps=f"1. {text}\n2. Check it")
    assert polish_problems(body(), new, lessons(3)) == []


def test_an_absolute_path_already_in_the_old_body_is_not_counted():
    old = body(steps="1. Open /usr/local/bin\n2. Check it")
    new = body(steps="1. Open /usr/local/bin\n2. Check it\n3. Open /usr/local/bin again")
    assert polish_problems(old, new, lessons(3)) == []
    newer = body(steps="1. Open /usr/local/bin\n2. Check /usr/local/lib")
    [problem] = polish_problems(old, newer, lessons(3))
    assert "/usr/local/lib" in problem.message


def test_a_lesson_with_an_absolute_path_makes_its_polish_refused():
    given_lessons = [*lessons(2), Lesson(date(2024, 4, 1), "Logs are in /var/log/app")]
    old = body()
    problems = polish_problems(old, polish(old, given_lessons), given_lessons)
    assert [problem.message for problem in problems] == [
        "the polished body introduces the absolute path /var/log/app; use ~/ or a relative path"
    ]


def test_each_introduced_path_is_its_own_problem_once():
    new = body(steps="1. /opt/a/b\n2. /opt/a/b\n3. C:\\x")
    problems = polish_problems(body(), new, lessons(3))
    assert [problem.message.split(" path ")[1].split(";")[0] for problem in problems] == [
        "/opt/a/b",
        "C:\\x",
    ]


@given(
    st.sampled_from(["https", "http", "ftp", "s3"]),
    st.from_regex(r"[a-z0-9]{1,10}(\.[a-z]{2,5})?(:[0-9]{2,5})?", fullmatch=True),
    st.lists(st.from_regex(r"[A-Za-z0-9._-]{1,8}", fullmatch=True), max_size=5),
)
def test_urls_are_never_absolute_paths(scheme, host, segments):
    assert absolute_paths(f"see {scheme}://{host}/{'/'.join(segments)} now") == []


@given(
    st.sampled_from(["~/", "./", "../", "", "$HOME/"]),
    st.lists(st.from_regex(r"[A-Za-z0-9._-]{1,8}", fullmatch=True), min_size=1, max_size=5),
)
def test_home_and_relative_paths_are_never_absolute_paths(prefix, segments):
    assert absolute_paths(f"open {prefix}{'/'.join(segments)} now") == []


@given(st.lists(st.from_regex(r"[a-z][a-z0-9._-]{0,7}", fullmatch=True), min_size=2, max_size=5))
def test_posix_absolute_paths_are_found(segments):
    path = "/" + "/".join(segments)
    assert absolute_paths(f"open {path} now") == [path]


def test_reflex_over_500_is_refused():
    assert polish_problems(body(), body(reflex="r" * 500), lessons(3)) == []
    assert polish_problems(body(), body(reflex="r" * 501), lessons(3)) == [
        Problem("reflex has 501 characters; it may have at most 500", field="body")
    ]


def test_every_problem_is_reported_at_once():
    new = body(
        steps="1. a\n2. b\n3. c\n4. d\n5. e\n6. /home/ana/x",
        reflex="r" * 501,
    )
    problems = polish_problems(steps_body(3), new, lessons(2))
    assert [problem.field for problem in problems] == ["lessons", "body", "body", "body"]
    assert problems[1].message.startswith("steps grew from 3 to 6")
    assert "/home/ana/x" in problems[2].message
    assert problems[3].message.startswith("reflex has 501 characters")
