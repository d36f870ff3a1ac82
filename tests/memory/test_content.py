"""A page's content (DESIGN §5; pure, no database): souvenirs, headings and blank lines, the
workspace's mission section, and the keys kept lines keep."""

from __future__ import annotations

import pytest

from resolvers.common.errors import Problem
from resolvers.memory.content import (
    PageLine,
    kept_keys,
    mission_section,
    parse_content,
    render_content,
)
from resolvers.memory.grammar import (
    Souvenir,
    parse,
)

ONE_OF = (
    "one of [relation], [contexte] (or [context]), [décision] (or [decision]),"
    " [consigne] (or [instruction]), [préférence] (or [preference]), in any case"
)


# A page's content ----------------------------------------------------------------------------


def test_a_page_of_4000_characters_is_accepted_and_of_4001_refused():
    """§5: a page's content is at most 4,000 characters; over it, a problem on 'content'."""
    heading = "# " + "x" * 3_998
    assert len(heading) == 4_000
    assert parse_content(heading) == ([PageLine("heading", heading)], [])
    lines, problems = parse_content(heading + "x")
    assert problems == [Problem("a page holds at most 4000 characters, not 4001", field="content")]
    assert lines == []  # a content over the limit is not read line by line


def test_a_huge_content_answers_one_problem_not_one_per_line():
    """An oversized content is refused whole: the answer does not grow with it."""
    lines, problems = parse_content("x\n" * 100_000)
    assert lines == []
    assert problems == [
        Problem("a page holds at most 4000 characters, not 200000", field="content")
    ]


def test_a_page_of_souvenirs_headings_and_blank_lines():
    """A page's lines: souvenirs, headings and blank lines, each with its kind."""
    souvenir = "- Le DAF décide seul — Claire, 2026-10-02 [décision]"
    content = f"# Acme\n\n## Décisions\n{souvenir}\n###### Petit titre\n"
    lines, problems = parse_content(content)
    assert problems == []
    assert lines == [
        PageLine("heading", "# Acme"),
        PageLine("blank", ""),
        PageLine("heading", "## Décisions"),
        PageLine("souvenir", souvenir, parse(souvenir)),
        PageLine("heading", "###### Petit titre"),
        PageLine("blank", ""),
    ]
    assert parse_content("") == ([PageLine("blank", "")], [])


@pytest.mark.parametrize("heading", ["#Acme", "####### Acme", "##  Acme", "## Acme ", "#", "## "])
def test_a_malformed_heading_is_a_problem(heading):
    """A heading is '#' to '######', one space, a title, and no trailing space."""
    lines, problems = parse_content(f"- x — A, 2026-10-02 [relation]\n{heading}")
    if heading.strip("# "):
        assert lines[1] == PageLine("heading", heading)
    assert problems == [Problem("a heading is '#' to '######', a space, a title", "content", 2)]


def test_a_whitespace_only_line_is_a_problem_an_empty_one_is_not():
    """A blank line holds no spaces: '' is fine, '  ' or a tab is a problem on its line."""
    lines, problems = parse_content("# A\n\n  \n\t\n# B")
    assert [pl.kind for pl in lines] == ["heading", "blank", "blank", "blank", "heading"]
    assert problems == [
        Problem("a blank line holds no spaces", "content", 3),
        Problem("a blank line holds no spaces", "content", 4),
    ]


def test_a_line_neither_souvenir_nor_heading_nor_blank_is_a_problem():
    """Free text outside the mission section is refused with its line number."""
    lines, problems = parse_content("# A\nDu texte libre\n* puce")
    assert lines == [PageLine("heading", "# A")]
    assert problems == [
        Problem("a line is a souvenir ('- …'), a heading ('## …') or blank", "content", 2),
        Problem("a line is a souvenir ('- …'), a heading ('## …') or blank", "content", 3),
    ]


def test_a_line_with_a_control_character_is_a_problem():
    """A page line holding a control character is refused on its line."""
    _, problems = parse_content("# A\n- x\x0b — A, 2026-10-02 [relation]")
    assert problems == [Problem("the line holds a control character", "content", 2)]


def test_problems_are_numbered_by_line_and_every_reason_of_a_line_is_kept():
    """Each malformed line's reasons become problems carrying its line number (from 1)."""
    content = "\n".join(
        [
            "- Bon — Claire, 2026-10-02 [relation]",
            "- Mauvais — Claire, 2026-13-01 [idée]",
            "",
            "-Collé — Claire, 2026-10-02 [relation]",
            "- Bon aussi — Claire, 2026-10-02 [consigne]",
        ]
    )
    lines, problems = parse_content(content)
    assert [pl.kind for pl in lines] == ["souvenir", "blank", "souvenir"]
    assert problems == [
        Problem(f"unknown type [idée]: {ONE_OF}", "content", 2),
        Problem("the day is not a date YYYY-MM-DD: '2026-13-01'", "content", 2),
        Problem("a souvenir starts with '- '", "content", 4),
    ]


def test_parse_content_passes_by_person_to_each_line():
    """A person's edit may leave out attribution; the page's stored form may not."""
    content = "# A\n- Le DAF décide seul [décision]"
    lines, problems = parse_content(content, by_person=True)
    assert problems == []
    assert lines[1].souvenir == Souvenir("Le DAF décide seul", "décision", None, None)
    _, problems = parse_content(content)
    assert problems == [
        Problem("what was said is followed by ' — author, YYYY-MM-DD'", "content", 2)
    ]


MISSION_PAGE = "\n".join(
    [
        "# Espace de travail",
        "## Mission mémoire",
        "Retenir ce qui aide à vendre.",
        "- Ne pas retenir la vie privée",
        "",
        "Texte libre après la section",
        "- Le DAF décide seul — Claire, 2026-10-02 [décision]",
    ]
)


def test_the_mission_section_holds_free_text_up_to_the_first_blank_line():
    """mission=True: free text under '## Mission mémoire' is kept, to the first blank line."""
    lines, problems = parse_content(MISSION_PAGE, mission=True)
    assert lines[:5] == [
        PageLine("heading", "# Espace de travail"),
        PageLine("heading", "## Mission mémoire"),
        PageLine("mission", "Retenir ce qui aide à vendre."),
        PageLine("mission", "- Ne pas retenir la vie privée"),
        PageLine("blank", ""),
    ]
    assert lines[5].kind == "souvenir"
    assert problems == [
        Problem("a line is a souvenir ('- …'), a heading ('## …') or blank", "content", 6)
    ]


def test_the_mission_section_ends_at_the_next_heading():
    """mission=True: a heading ends the section; free text after it is a problem."""
    content = "## Mission mémoire\nRetenir l'essentiel\n## Autre\nPlus libre"
    lines, problems = parse_content(content, mission=True)
    assert [pl.kind for pl in lines] == ["heading", "mission", "heading"]
    assert problems == [
        Problem("a line is a souvenir ('- …'), a heading ('## …') or blank", "content", 4)
    ]
    lines, _ = parse_content("## Mission mémoire\nA\n# Autre\nB", mission=True)
    assert [pl.kind for pl in lines] == ["heading", "mission", "heading"]


def test_a_deeper_heading_inside_the_mission_belongs_to_it():
    """DESIGN §6, seed 000: the section ends at the first blank line or the next '##' heading;
    a '###' line inside it is part of it, kept as written (never read as a heading)."""
    content = (
        "## Mission mémoire\nRetenir l'essentiel\n### Priorités\nLes clients d'abord\n## Autre"
    )
    lines, problems = parse_content(content, mission=True)
    assert lines == [
        PageLine("heading", "## Mission mémoire"),
        PageLine("mission", "Retenir l'essentiel"),
        PageLine("mission", "### Priorités"),
        PageLine("mission", "Les clients d'abord"),
        PageLine("heading", "## Autre"),
    ]
    assert problems == []
    assert mission_section(content) == "Retenir l'essentiel\n### Priorités\nLes clients d'abord"
    assert mission_section("## Mission mémoire\n#### Détail\nA\n\nB") == "#### Détail\nA"


def test_without_mission_the_same_lines_are_souvenirs():
    """mission=False: the mission heading is an ordinary heading and its lines souvenirs."""
    lines, problems = parse_content(MISSION_PAGE)
    assert [pl.kind for pl in lines] == ["heading", "heading", "blank", "souvenir"]
    assert problems == [
        Problem("a line is a souvenir ('- …'), a heading ('## …') or blank", "content", 3),
        Problem(f"a souvenir ends with its type in brackets, {ONE_OF}", "content", 4),
        Problem("a line is a souvenir ('- …'), a heading ('## …') or blank", "content", 6),
    ]


def test_free_text_under_another_heading_is_not_mission():
    """mission=True only opens for the exact '## Mission mémoire' heading."""
    for heading in ("## Mission", "### Mission mémoire", "# Mission mémoire"):
        _, problems = parse_content(f"{heading}\nTexte libre", mission=True)
        assert problems == [
            Problem("a line is a souvenir ('- …'), a heading ('## …') or blank", "content", 2)
        ]


def test_render_content_joins_lines_in_order():
    """A page's content is its lines joined by newlines, in order."""
    assert render_content(["# A", "", "- x"]) == "# A\n\n- x"
    assert render_content([]) == ""


# The mission section ---------------------------------------------------------------------------


def test_mission_section_present():
    """The text under '## Mission mémoire', line by line, to the first blank line."""
    assert mission_section(MISSION_PAGE) == (
        "Retenir ce qui aide à vendre.\n- Ne pas retenir la vie privée"
    )


def test_mission_section_absent():
    """No '## Mission mémoire' heading: None (not an empty section)."""
    assert mission_section("# Espace\nRetenir") is None
    assert mission_section("") is None
    assert mission_section("### Mission mémoire\nRetenir") is None


def test_mission_section_empty():
    """The heading followed by a blank line or at the end: an empty section."""
    assert mission_section("## Mission mémoire\n\nRetenir") == ""
    assert mission_section("## Mission mémoire") == ""


def test_mission_section_ends_at_a_blank_line():
    """A blank (or whitespace-only) line ends the section."""
    assert mission_section("## Mission mémoire\nA\nB\n\nC") == "A\nB"
    assert mission_section("## Mission mémoire\nA\n  \nC") == "A"


def test_mission_section_ends_at_the_next_level_2_heading():
    """The next '## …' heading ends the section."""
    assert mission_section("## Mission mémoire\nA\n## Autre\nC") == "A"
    # A deeper heading belongs to the section (DESIGN §6).
    assert mission_section("## Mission mémoire\nA\n### Détail\nC") == "A\n### Détail\nC"


def test_mission_section_ends_at_a_level_1_heading_too():
    """mission_section: a '# Autre' heading (above '##') ends it, as it ends the mission in
    parse_content(mission=True)."""
    content = "## Mission mémoire\nA\n# Autre\nC"
    assert mission_section(content) == "A"
    lines, _ = parse_content(content, mission=True)
    assert [pl.text for pl in lines if pl.kind == "mission"] == ["A"]


# Kept keys ------------------------------------------------------------------------------------


def test_lines_repeated_word_for_word_keep_their_keys():
    """A submitted line equal to a shown one keeps its key, in any order."""
    shown = [("k1", "- a"), ("k2", "- b"), ("k3", "- c")]
    assert kept_keys(shown, ["- c", "- a", "- b"]) == ["k3", "k1", "k2"]
    assert kept_keys(shown, ["- b"]) == ["k2"]
    assert kept_keys(shown, []) == []


def test_duplicate_lines_are_each_matched_once_first_come_first_served():
    """Two shown lines alike keep two keys in order; a third copy is new."""
    shown = [("k1", "- a"), ("k2", "- b"), ("k3", "- a")]
    assert kept_keys(shown, ["- a", "- a", "- a", "- b", "- b"]) == [
        "k1",
        "k3",
        None,
        "k2",
        None,
    ]


def test_a_reworded_line_gets_no_key():
    """A line not repeated word for word (one letter, a space, a suffix) is new: None."""
    shown = [("k1", "- Le DAF décide seul — Claire, 2026-10-02 [décision]")]
    for reworded in (
        "- Le DAF décide seule — Claire, 2026-10-02 [décision]",
        "- Le DAF décide seul — Claire, 2026-10-02 [décision] ✍",
        "- Le DAF décide seul — Claire, 2026-10-02 [décision] ",
        "- le DAF décide seul — Claire, 2026-10-02 [décision]",
    ):
        assert kept_keys(shown, [reworded]) == [None]
    assert kept_keys([], ["- a"]) == [None]
