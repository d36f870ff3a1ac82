"""Polish folds lessons into a body, and its guards refuse a bad draft (pure)."""

from __future__ import annotations

import random
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resolvers.common.errors import Problem
from resolvers.skills.form import (
    count_steps,
    sections,
)
from resolvers.skills.lessons import Lesson
from resolvers.skills.polish import (
    absolute_paths,
    polish,
    polish_problems,
)
from tests.skills.bodies import body


def steps_body(count: int) -> str:
    return body(steps="\n".join(f"{i}. Step {i}" for i in range(1, count + 1)))


def lessons(count: int) -> list[Lesson]:
    return [Lesson(date(2024, 3, 1 + i), f"Lesson number {i}") for i in range(count)]


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
