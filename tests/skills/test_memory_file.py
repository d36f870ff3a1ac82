"""`.memory.md` and `AGENT_MEMORY.md` as text (pure): written, read back, refused."""

from __future__ import annotations

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from resolvers.skills.lessons import Lesson
from resolvers.skills.memory_file import (
    MAX_MEMORY_LESSONS,
    CatalogLine,
    new_lessons,
    parse_memory_file,
    render_agent_memory,
    render_memory_file,
)
from resolvers.skills.writing import MAX_LESSON_CHARS

FIELD = "deploy-workflow/.memory.md"


def test_the_seed_example_is_written_newest_last():
    lessons = [
        Lesson(date(2024, 3, 20), "Run database migrations before starting new pods"),
        Lesson(date(2024, 3, 15), "Always check disk space before deploying"),
    ]
    assert render_memory_file("deploy-workflow", lessons) == (
        "# Lessons: deploy-workflow\n\n"
        "- 2024-03-15: Always check disk space before deploying\n"
        "- 2024-03-20: Run database migrations before starting new pods\n"
    )


lesson_texts = st.text(
    st.characters(
        min_codepoint=0x20, max_codepoint=0x2FFF, exclude_categories=("Cc", "Cf", "Cs", "Zl", "Zp")
    ),
    min_size=1,
    max_size=60,
).filter(lambda t: bool(t.strip()))


@given(st.lists(st.tuples(st.dates(date(1990, 1, 1), date(2100, 1, 1)), lesson_texts), max_size=8))
def test_a_written_file_reads_back_as_its_lessons(pairs):
    lessons = [Lesson(day, " ".join(text.split())) for day, text in pairs]
    read, problems = parse_memory_file(render_memory_file("demo", lessons).encode(), FIELD)
    assert problems == []
    assert sorted((x.day, x.text.casefold()) for x in read) == sorted(
        {(x.day, x.text.casefold()) for x in lessons}
    )


def test_headings_blank_lines_and_other_markers_are_read():
    text = b"# Lessons\r\n\r\n## More\n* 2024-01-02: star\n+ 2024-01-03:  plus  \n"
    lessons, problems = parse_memory_file(text, FIELD)
    assert problems == []
    assert lessons == [Lesson(date(2024, 1, 2), "star"), Lesson(date(2024, 1, 3), "plus")]


def test_a_lesson_given_twice_is_read_once():
    text = b"- 2024-01-02: Check disk\n- 2024-01-02: check   DISK\n- 2024-01-03: Check disk\n"
    lessons, _ = parse_memory_file(text, FIELD)
    assert lessons == [
        Lesson(date(2024, 1, 2), "Check disk"),
        Lesson(date(2024, 1, 3), "Check disk"),
    ]


def test_every_bad_line_is_listed_and_no_lesson_kept():
    text = (
        "# Lessons\n"
        "- 2024-01-02: fine\n"
        "a loose sentence\n"
        "- 2024-02-30: no such day\n"
        "- 2024-01-05:   \n"
        f"- 2024-01-06: {'x' * (MAX_LESSON_CHARS + 1)}\n"
        "- 2024-01-07: a \x01 control\n"
    ).encode()
    lessons, problems = parse_memory_file(text, FIELD)
    assert lessons == []
    assert {p.field for p in problems} == {FIELD}
    messages = [p.message for p in problems]
    assert [m.split()[1].rstrip(":") for m in messages if m.startswith("line")] == [
        "3",
        "4",
        "5",
        "6",
        "7",
    ], messages


def test_a_file_that_is_not_utf8_or_holds_too_many_lessons_is_refused():
    _, problems = parse_memory_file(b"- 2024-01-02: caf\xe9\n", FIELD)
    assert [p.message for p in problems] == [".memory.md is not valid UTF-8 (byte 17)"]
    at_cap = "".join(f"- 2024-01-01: lesson {n}\n" for n in range(MAX_MEMORY_LESSONS))
    lessons, problems = parse_memory_file(at_cap.encode(), FIELD)
    assert (len(lessons), problems) == (MAX_MEMORY_LESSONS, [])
    over = at_cap + "- 2024-01-01: one more\n"
    lessons, problems = parse_memory_file(over.encode(), FIELD)
    assert lessons == [] and len(problems) == 1 and "at most 1000" in problems[0].message


def test_new_lessons_leaves_out_what_the_skill_keeps():
    kept = [(date(2024, 1, 2), "Check  disk")]
    lessons = [Lesson(date(2024, 1, 2), "check disk"), Lesson(date(2024, 1, 3), "check disk")]
    assert new_lessons(lessons, kept) == [Lesson(date(2024, 1, 3), "check disk")]


def test_agent_memory_lists_each_skill_a_dormant_one_without_its_trigger():
    lines = [
        CatalogLine("deploy-workflow", "When ready; Don't use when: hot", dormant=False),
        CatalogLine("old-report", "When the month ends", dormant=True),
        CatalogLine("bare-skill", None, dormant=False),
    ]
    assert render_agent_memory(lines) == (
        "# Available skills (Read SKILL.md on use)\n\n"
        "- **deploy-workflow**: When ready; Don't use when: hot → `deploy-workflow/SKILL.md`\n"
        "- **old-report** → `old-report/SKILL.md`\n"
        "- **bare-skill** → `bare-skill/SKILL.md`\n"
    )
