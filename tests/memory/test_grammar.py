"""The souvenir grammar of DESIGN §5 (pure, no database): one line of memory rendered and
parsed exactly, every malformed line reported with why."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resolvers.memory.caps import (
    PROFILE_RECORD_SOUVENIR_CAP,
    PROFILE_SOUVENIR_CAP,
    RECORD_PAGE_SOUVENIR_CAP,
)
from resolvers.memory.content import (
    MISSION_HEADING,
    PAGE_CONTENT_MAX_CHARS,
    PageLine,
    parse_content,
    render_content,
)
from resolvers.memory.grammar import (
    HUMAN_MARK,
    SOUVENIR_TYPES,
    LineError,
    Reference,
    Souvenir,
    add_months,
    by_person,
    parse,
    render,
    review_day,
    souvenir_problems,
)
from resolvers.memory.system import PAGE_DESCRIPTION_MAX_CHARS, PAGE_NAME_MAX_CHARS

DAY = date(2026, 10, 2)
TYPES = ("relation", "contexte", "décision", "consigne", "préférence")
ONE_OF = (
    "one of [relation], [contexte] (or [context]), [décision] (or [decision]),"
    " [consigne] (or [instruction]), [préférence] (or [preference]), in any case"
)


def reasons_of(line: str, **options: bool) -> list[str]:
    """Why parse refuses a line (fails the test when it accepts it)."""
    with pytest.raises(LineError) as refused:
        parse(line, **options)
    assert str(refused.value) == "; ".join(refused.value.reasons)
    return refused.value.reasons


def render_reasons(souvenir: Souvenir) -> list[str]:
    """Why render refuses a souvenir (fails the test when it renders it)."""
    with pytest.raises(LineError) as refused:
        render(souvenir)
    assert refused.value.reasons == souvenir_problems(souvenir)
    return refused.value.reasons


# The documented constants --------------------------------------------------------------------


def test_the_five_types_and_the_page_limits_are_the_documented_ones():
    """§5: five types; a page's name 100, description 160, content 4,000 characters; caps 15
    (profile), 20 per record a profile mentions, 20 (record page)."""
    assert SOUVENIR_TYPES == TYPES
    assert (PAGE_NAME_MAX_CHARS, PAGE_DESCRIPTION_MAX_CHARS, PAGE_CONTENT_MAX_CHARS) == (
        100,
        160,
        4_000,
    )
    assert (PROFILE_SOUVENIR_CAP, PROFILE_RECORD_SOUVENIR_CAP, RECORD_PAGE_SOUVENIR_CAP) == (
        15,
        20,
        20,
    )
    assert HUMAN_MARK == "✍"
    assert MISSION_HEADING == "## Mission mémoire"


# Render and parse, field by field ------------------------------------------------------------

EXAMPLES = [
    pytest.param(
        Souvenir("Le DAF décide seul", "décision", "Claire", DAY, source="record:Rec_a1-B"),
        "- Le DAF décide seul → record:Rec_a1-B — Claire, 2026-10-02 [décision]",
        id="the-design-example-with-a-record-source",
    ),
    pytest.param(
        Souvenir("Préfère le tutoiement", "préférence", "Dreamer", DAY),
        "- Préfère le tutoiement — Dreamer, 2026-10-02 [préférence]",
        id="no-source",
    ),
    pytest.param(
        Souvenir("Bob quitte Acme", "relation", "Claire", DAY, source="mail from Bob, 2026-10-23"),
        "- Bob quitte Acme → mail from Bob, 2026-10-23 — Claire, 2026-10-02 [relation]",
        id="the-closed-form-of-a-source",
    ),
    pytest.param(
        Souvenir("Relancer en janvier", "consigne", "Claire", DAY, until=date(2027, 1, 31)),
        "- Relancer en janvier — Claire, 2026-10-02 [consigne] (jusqu'au 2027-01-31)",
        id="an-end-date",
    ),
    pytest.param(
        Souvenir("Relancer le jour même", "consigne", "Claire", DAY, until=DAY),
        "- Relancer le jour même — Claire, 2026-10-02 [consigne] (jusqu'au 2026-10-02)",
        id="an-end-date-on-its-day",
    ),
    pytest.param(
        Souvenir("Acme lève des fonds", "contexte", "Claire", DAY),
        "- Acme lève des fonds — Claire, 2026-10-02 [contexte] (revoir 2027-04-02)",
        id="a-contexte-is-reviewed-six-months-later",
    ),
    pytest.param(
        Souvenir("Gel des achats", "contexte", "Claire", DAY, until=date(2026, 12, 31)),
        "- Gel des achats — Claire, 2026-10-02 [contexte] (jusqu'au 2026-12-31)"
        " (revoir 2027-04-02)",
        id="end-date-then-review-date",
    ),
    pytest.param(
        Souvenir("Appeler après 10h", "consigne", "Claire", DAY, human=True),
        "- Appeler après 10h — Claire, 2026-10-02 [consigne] ✍",
        id="a-line-by-a-person",
    ),
    pytest.param(
        Souvenir("Budget serré", "contexte", "Claire", DAY, until=DAY, human=True),
        "- Budget serré — Claire, 2026-10-02 [contexte] (jusqu'au 2026-10-02)"
        " (revoir 2027-04-02) ✍",
        id="a-person-s-contexte-with-every-suffix",
    ),
    pytest.param(
        Souvenir(
            "Le DAF décide seul",
            "décision",
            "Claire",
            DAY,
            about=Reference("Acme", "record:Rec_1"),
        ),
        "- @[Acme](record:Rec_1) Le DAF décide seul — Claire, 2026-10-02 [décision]",
        id="a-profile-s-reference-to-a-record",
    ),
    pytest.param(
        Souvenir(
            "Signe vite",
            "relation",
            "Claire",
            DAY,
            source="meeting of 2026-10-01",
            about=Reference("Acme Inc.", "record:abc_DEF-09"),
        ),
        "- @[Acme Inc.](record:abc_DEF-09) Signe vite → meeting of 2026-10-01"
        " — Claire, 2026-10-02 [relation]",
        id="a-reference-and-a-source",
    ),
    pytest.param(
        Souvenir("a→b, a—b, [x] (y) ✍ok", "relation", "Dupont, Jean", DAY, source="x"),
        "- a→b, a—b, [x] (y) ✍ok → x — Dupont, Jean, 2026-10-02 [relation]",
        id="arrows-and-dashes-not-between-spaces-and-a-comma-in-the-author",
    ),
]


@pytest.mark.parametrize(("souvenir", "expected"), EXAMPLES)
def test_every_field_renders_and_parses_back_exactly(souvenir, expected):
    """§5: `- text [→ source] — author, day [type] [(jusqu'au …)] [(revoir …)] [✍]`, with a
    member profile's `@[label](record:<id>) ` prefix; parsing and rendering round-trip."""
    assert souvenir_problems(souvenir) == []
    assert render(souvenir) == expected
    assert parse(expected) == souvenir
    assert render(parse(expected)) == expected


@pytest.mark.parametrize("type_", TYPES)
def test_each_of_the_five_types_round_trips(type_):
    """§5: each of relation, contexte, décision, consigne, préférence is a type."""
    souvenir = Souvenir("Dit en réunion", type_, "Claire", DAY)
    rendered = render(souvenir)
    review = " (revoir 2027-04-02)" if type_ == "contexte" else ""
    assert rendered == f"- Dit en réunion — Claire, 2026-10-02 [{type_}]{review}"
    assert parse(rendered) == souvenir
    assert parse(rendered).type == type_


def test_parse_reads_every_field():
    """Each part of the grammar lands in its own field."""
    souvenir = parse(
        "- @[Acme](record:R1) Gel des achats → mail from Bob, 2026-10-23 — Claire, 2026-10-24"
        " [contexte] (jusqu'au 2026-12-31) (revoir 2027-04-24)"
    )
    assert souvenir.text == "Gel des achats"
    assert souvenir.source == "mail from Bob, 2026-10-23"
    assert souvenir.author == "Claire"
    assert souvenir.day == date(2026, 10, 24)
    assert souvenir.type == "contexte"
    assert souvenir.until == date(2026, 12, 31)
    assert souvenir.review == date(2027, 4, 24)
    assert souvenir.about == Reference("Acme", "record:R1")
    assert souvenir.human is False
    assert parse("- Noté — Claire, 2026-10-24 [consigne] ✍").human is True


# Review dates: six months after the day --------------------------------------------------------


@pytest.mark.parametrize(
    ("day", "review"),
    [
        (date(2026, 1, 15), date(2026, 7, 15)),
        (date(2026, 7, 15), date(2027, 1, 15)),  # into the next year
        (date(2026, 12, 31), date(2027, 6, 30)),  # June has 30 days
        (date(2026, 8, 28), date(2027, 2, 28)),  # no clamping needed
        (date(2026, 8, 29), date(2027, 2, 28)),  # clamped: 2027 is not a leap year
        (date(2026, 8, 31), date(2027, 2, 28)),
        (date(2027, 8, 29), date(2028, 2, 29)),  # 2028 is a leap year: no clamping
        (date(2027, 8, 31), date(2028, 2, 29)),  # clamped to the leap day
        (date(2026, 3, 31), date(2026, 9, 30)),
        (date(2026, 2, 28), date(2026, 8, 28)),
    ],
)
def test_a_contexte_is_reviewed_six_months_after_its_day_on_the_month_s_last_day_if_need_be(
    day, review
):
    """§5: a contexte carries (revoir …) six months after its day; Aug 31 → Feb 28/29."""
    assert review_day(day) == review
    assert add_months(day, 6) == review
    assert Souvenir("x", "contexte", "A", day).review == review


def test_add_months_other_distances():
    """add_months: zero, a year, backward, with the same end-of-month clamping."""
    assert add_months(date(2026, 8, 31), 0) == date(2026, 8, 31)
    assert add_months(date(2028, 2, 29), 12) == date(2029, 2, 28)
    assert add_months(date(2026, 3, 31), -1) == date(2026, 2, 28)
    assert add_months(date(2026, 1, 31), -1) == date(2025, 12, 31)
    assert add_months(date(2026, 1, 31), 1) == date(2026, 2, 28)


@given(st.dates(min_value=date(1900, 1, 1), max_value=date(2999, 12, 31)))
def test_review_day_is_six_calendar_months_later_property(day):
    """The review day is in the sixth month after, on the same day or the month's last."""
    review = review_day(day)
    months = (review.year - day.year) * 12 + review.month - day.month
    assert months == 6
    assert review.day == day.day or (review.day < day.day and (review + timedelta(1)).day == 1)


def test_only_a_dated_contexte_has_a_review_date():
    """§5: a contexte carries a review date; other types and an undated line do not."""
    for type_ in TYPES:
        expected = review_day(DAY) if type_ == "contexte" else None
        assert Souvenir("x", type_, "A", DAY).review == expected
    assert Souvenir("x", "contexte", None, None).review is None


def test_a_contexte_of_august_31_is_parsed_only_with_the_clamped_review_date():
    """The review date a parser expects is the clamped one, not day + 183 days."""
    base = "- x — A, 2026-08-31 [contexte]"
    assert parse(f"{base} (revoir 2027-02-28)").review == date(2027, 2, 28)
    assert reasons_of(f"{base} (revoir 2027-03-03)") == [
        "a contexte of 2026-08-31 is reviewed on 2027-02-28 (revoir 2027-02-28)"
    ]
    assert parse("- x — A, 2027-08-31 [contexte] (revoir 2028-02-29)").review == date(2028, 2, 29)


# Render refuses what the grammar cannot write ------------------------------------------------


@pytest.mark.parametrize(
    ("souvenir", "reason"),
    [
        (Souvenir("", "relation", "A", DAY), "what was said is empty"),
        (Souvenir("   ", "relation", "A", DAY), "what was said is empty"),
        (Souvenir(" x", "relation", "A", DAY), "what was said starts or ends with a space"),
        (Souvenir("x ", "relation", "A", DAY), "what was said starts or ends with a space"),
        (Souvenir("a\tb", "relation", "A", DAY), "what was said holds a control character"),
        (Souvenir("a\nb", "relation", "A", DAY), "what was said holds a control character"),
        (Souvenir("a → b", "relation", "A", DAY), "what was said may not hold '→' between spaces"),
        (Souvenir("a — b", "relation", "A", DAY), "what was said may not hold '—' between spaces"),
        (Souvenir("a ✍", "relation", "A", DAY), "what was said may not end with ✍"),
        (Souvenir("✍", "relation", "A", DAY), "what was said may not end with ✍"),
        (
            Souvenir("@[Acme](record:R1) x", "relation", "A", DAY),
            "what was said may not open with a record reference",
        ),
        (Souvenir("x", "idée", "A", DAY), f"unknown type [idée]: {ONE_OF}"),
        (Souvenir("x", "Relation", "A", DAY), f"unknown type [Relation]: {ONE_OF}"),
        (Souvenir("x", "relation", None, DAY), "a souvenir names its author and its day"),
        (Souvenir("x", "relation", "A", None), "a souvenir names its author and its day"),
        (
            Souvenir("x", "relation", " A", DAY),
            "the author is empty or starts or ends with a space",
        ),
        (Souvenir("x", "relation", "", DAY), "the author is empty or starts or ends with a space"),
        (
            Souvenir("x", "relation", "A—B", DAY),
            "the author may not hold '—' or a control character",
        ),
        (
            Souvenir("x", "relation", "A\x00", DAY),
            "the author may not hold '—' or a control character",
        ),
        (
            Souvenir("x", "relation", "A", DAY, source=""),
            "the source is empty or starts or ends with a space",
        ),
        (
            Souvenir("x", "relation", "A", DAY, source="s "),
            "the source is empty or starts or ends with a space",
        ),
        (
            Souvenir("x", "relation", "A", DAY, source="a→b"),
            "the source may not hold '→', '—' or a control character",
        ),
        (
            Souvenir("x", "relation", "A", DAY, source="a—b"),
            "the source may not hold '→', '—' or a control character",
        ),
        (
            Souvenir("x", "relation", "A", DAY, source="a\x1bb"),
            "the source may not hold '→', '—' or a control character",
        ),
        (
            Souvenir("x", "relation", "A", DAY, source="mail", human=True),
            "a ✍ line carries no source",
        ),
        (
            Souvenir("x", "relation", "A", DAY, about=Reference("", "record:R1")),
            "a record reference's label may not hold '→', '—' or a control character",
        ),
        (
            Souvenir("x", "relation", "A", DAY, about=Reference("Acme", "contact:R1")),
            "a record reference is @[label](record:<id>)",
        ),
        (
            Souvenir("x", "relation", "A", DAY, about=Reference("Ac]me", "record:R1")),
            "a record reference is @[label](record:<id>)",
        ),
        (
            Souvenir("x", "relation", "A", DAY, until=DAY - timedelta(days=1)),
            "its end date (jusqu'au) is before its day",
        ),
    ],
)
def test_render_refuses_a_field_the_grammar_cannot_write(souvenir, reason):
    """Render raises LineError, with why, rather than write a line that would not parse back."""
    assert render_reasons(souvenir) == [reason]


def test_render_lists_every_reason_at_once():
    """Several bad fields: all of them are listed."""
    souvenir = Souvenir(" a — b", "idée", None, None, source="m", human=True)
    assert render_reasons(souvenir) == [
        "what was said starts or ends with a space",
        "what was said may not hold '—' between spaces",
        f"unknown type [idée]: {ONE_OF}",
        "a souvenir names its author and its day",
        "a ✍ line carries no source",
    ]


def test_a_record_reference_label_holding_an_arrow_is_never_written():
    """Parsing and rendering round-trip exactly (§5): a label with ' → ' would read back as a
    source, so render refuses it (the pages replace such characters in labels first)."""
    souvenir = Souvenir("x", "relation", "A", DAY, about=Reference("Acme → Europe", "record:R1"))
    with pytest.raises(LineError) as refused:
        render(souvenir)
    assert refused.value.reasons == [
        "a record reference's label may not hold '→', '—' or a control character"
    ]


def test_a_record_reference_label_with_a_control_character_is_refused_by_render():
    """Render never writes a line it cannot parse back: a label may not hold a control
    character (a newline would even split the line in two on the page).

    BUG: souvenir_problems only checks the label against `[^\\[\\]()]+`, which lets '\\n' and
    other control characters through; render writes the line and parse refuses it.
    """
    souvenir = Souvenir("x", "relation", "A", DAY, about=Reference("Ac\nme", "record:R1"))
    assert souvenir_problems(souvenir) != []


# Hypothesis: parse(render(s)) == s and render(parse(line)) == line --------------------------

_PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs"))
_TRICKY = st.sampled_from(list("aé Z→—✍,[]()@:-#.'"))
_CHARS = st.one_of(_TRICKY, _PRINTABLE)


def _trimmed(value: str) -> bool:
    return bool(value.strip()) and value == value.strip()


def _documented_text(text: str) -> bool:
    """What was said: not empty, no leading or trailing space, no ' → ' or ' — ', not ending
    with ' ✍', not opening with a record reference (the module's documented rules)."""
    return (
        _trimmed(text)
        and " → " not in text
        and " — " not in text
        and not text.endswith(" ✍")
        and text != "✍"
        and not text.startswith("@[")
    )


texts = st.text(_CHARS, min_size=1, max_size=30).filter(_documented_text)
authors = st.text(_CHARS, min_size=1, max_size=20).filter(lambda a: _trimmed(a) and "—" not in a)
sources = st.text(_CHARS, min_size=1, max_size=25).filter(
    lambda s: _trimmed(s) and "—" not in s and "→" not in s
)
labels = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="[]()→—"),
    min_size=1,
    max_size=15,
).filter(str.strip)  # a blank label is refused (souvenir_problems), like a blank author
references = st.builds(
    Reference,
    labels,
    st.from_regex(r"record:[A-Za-z0-9_-]{1,12}", fullmatch=True),
)
days = st.dates(min_value=date(1000, 1, 1), max_value=date(2999, 12, 31))


@st.composite
def souvenirs(draw: st.DrawFn) -> Souvenir:
    day = draw(days)
    human = draw(st.booleans())
    until = draw(st.none() | st.integers(0, 3_650).map(lambda n: day + timedelta(days=n)))
    return Souvenir(
        text=draw(texts),
        type=draw(st.sampled_from(TYPES)),
        author=draw(authors),
        day=day,
        source=None if human else draw(st.none() | sources),
        about=draw(st.none() | references),
        until=until,
        human=human,
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(souvenirs())
def test_round_trip_property(souvenir):
    """§5: parsing and rendering round-trip exactly, for any souvenir the rules allow."""
    assert souvenir_problems(souvenir) == []
    rendered = render(souvenir)
    assert "\n" not in rendered
    assert parse(rendered) == souvenir
    assert render(parse(rendered)) == rendered
    assert parse(rendered, by_person=True) == souvenir


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(souvenirs(), max_size=6))
def test_a_page_of_rendered_souvenirs_parses_back_property(items):
    """A page made of rendered souvenirs has no problem and gives the same souvenirs back."""
    content = render_content(render(s) for s in items)
    lines, problems = parse_content(content)
    if not items:
        assert lines == [PageLine("blank", "")]
    else:
        assert [pl.souvenir for pl in lines] == items
    assert problems == []


# Malformed lines, each reported with why ------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "reasons"),
    [
        pytest.param(
            "Le DAF — Claire, 2026-10-02 [relation]",
            ["a souvenir starts with '- '"],
            id="no-dash",
        ),
        pytest.param(
            "-Le DAF — Claire, 2026-10-02 [relation]",
            ["a souvenir starts with '- '"],
            id="dash-without-space",
        ),
        pytest.param(
            "* Le DAF — Claire, 2026-10-02 [relation]",
            ["a souvenir starts with '- '"],
            id="another-bullet",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02",
            [f"a souvenir ends with its type in brackets, {ONE_OF}"],
            id="missing-type",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [relation] (revoir 2027-04-02) (jusqu'au 2027-01-01)",
            [f"a souvenir ends with its type in brackets, {ONE_OF}"],
            id="suffixes-in-the-wrong-order",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [relation]✍",
            [f"a souvenir ends with its type in brackets, {ONE_OF}"],
            id="mark-without-its-space",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [idée]",
            [f"unknown type [idée]: {ONE_OF}"],
            id="unknown-type",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [décisions]",
            [f"unknown type [décisions]: {ONE_OF}"],
            id="a-type-s-plural",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 []",
            [f"unknown type []: {ONE_OF}"],
            id="empty-type",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-13-01 [relation]",
            ["the day is not a date YYYY-MM-DD: '2026-13-01'"],
            id="month-13",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-02-30 [relation]",
            ["the day is not a date YYYY-MM-DD: '2026-02-30'"],
            id="february-30",
        ),
        pytest.param(
            "- Le DAF — Claire, 2027-02-29 [relation]",
            ["the day is not a date YYYY-MM-DD: '2027-02-29'"],
            id="february-29-of-a-common-year",
        ),
        pytest.param(
            "- Le DAF — Claire, 26-1-1 [relation]",
            ["the day is not a date YYYY-MM-DD: '26-1-1'"],
            id="short-date",
        ),
        pytest.param(
            "- Le DAF — Claire, 20261002 [relation]",
            ["the day is not a date YYYY-MM-DD: '20261002'"],
            id="basic-iso-date",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [relation] (jusqu'au 2026-02-30)",
            ["the end date (jusqu'au) is not a date YYYY-MM-DD: '2026-02-30'"],
            id="bad-end-date",
        ),
        pytest.param(
            "- Le DAF [relation]",
            ["what was said is followed by ' — author, YYYY-MM-DD'"],
            id="missing-attribution",
        ),
        pytest.param(
            "- Le DAF → record:R1 [relation]",
            ["what was said is followed by ' — author, YYYY-MM-DD'"],
            id="source-but-no-attribution",
        ),
        pytest.param(
            "- Le DAF — Claire [relation]",
            [
                "what was said is followed by ' — author, YYYY-MM-DD'",
                "what was said may not hold '—' between spaces",
            ],
            id="attribution-without-day",
        ),
        pytest.param(
            "- Le DAF —  Claire, 2026-10-02 [relation]",
            ["the author is empty or starts or ends with a space"],
            id="author-with-a-leading-space",
        ),
        pytest.param(
            "- Le DAF → record:R1 — Claire, 2026-10-02 [relation] ✍",
            ["a ✍ line carries no source"],
            id="mark-with-a-source",
        ),
        pytest.param(
            "- Le DAF →  mail — Claire, 2026-10-02 [relation]",
            ["the source is empty or starts or ends with a space"],
            id="source-with-a-leading-space",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [relation] (revoir 2027-04-02)",
            ["only a contexte carries a review date (revoir)"],
            id="review-on-a-relation",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [décision] (jusqu'au 2027-01-01) (revoir 2027-04-02)",
            ["only a contexte carries a review date (revoir)"],
            id="review-on-a-décision-with-an-end-date",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [contexte] (revoir 2027-04-03)",
            ["a contexte of 2026-10-02 is reviewed on 2027-04-02 (revoir 2027-04-02)"],
            id="review-a-day-late",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [contexte] (revoir 2027-04-01)",
            ["a contexte of 2026-10-02 is reviewed on 2027-04-02 (revoir 2027-04-02)"],
            id="review-a-day-early",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [contexte]",
            ["a contexte of 2026-10-02 is reviewed on 2027-04-02 (revoir 2027-04-02)"],
            id="contexte-without-review",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [contexte] (revoir 2027-4-2)",
            [
                "the review date (revoir) is not a date YYYY-MM-DD: '2027-4-2'",
                "a contexte of 2026-10-02 is reviewed on 2027-04-02 (revoir 2027-04-02)",
            ],
            id="review-not-a-date",
        ),
        pytest.param(
            "- Le DAF — Claire, 2026-10-02 [consigne] (jusqu'au 2026-10-01)",
            ["its end date (jusqu'au) is before its day"],
            id="end-date-before-day",
        ),
        pytest.param(
            "-  — Claire, 2026-10-02 [relation]",
            ["what was said is empty"],
            id="empty-text",
        ),
        pytest.param(
            "-   — Claire, 2026-10-02 [relation]",
            ["what was said is empty"],
            id="blank-text",
        ),
        pytest.param(
            "-  Le DAF — Claire, 2026-10-02 [relation]",
            ["what was said starts or ends with a space"],
            id="text-with-a-leading-space",
        ),
        pytest.param(
            "- Le\x07DAF — Claire, 2026-10-02 [relation]",
            ["what was said holds a control character"],
            id="control-character-in-text",
        ),
        pytest.param(
            "- Le\tDAF — Claire, 2026-10-02 [relation]",
            ["what was said holds a control character"],
            id="tab-in-text",
        ),
        pytest.param(
            "- Le DAF — Cl\x7fa, 2026-10-02 [relation]",
            ["the author may not hold '—' or a control character"],
            id="control-character-in-author",
        ),
        pytest.param(
            "- Le DAF — seul — Claire, 2026-10-02 [relation]",
            ["what was said may not hold '—' between spaces"],
            id="dash-between-spaces-in-text",
        ),
        pytest.param(
            "- Le DAF → seul → record:R1 — Claire, 2026-10-02 [relation]",
            ["what was said may not hold '→' between spaces"],
            id="arrow-between-spaces-in-text",
        ),
        pytest.param(
            "- Le DAF ✍ — Claire, 2026-10-02 [relation]",
            ["what was said may not end with ✍"],
            id="text-ending-with-the-mark",
        ),
    ],
)
def test_a_malformed_line_is_refused_with_why(bad, reasons):
    """Every malformed line raises LineError whose reasons say what is wrong."""
    assert reasons_of(bad) == reasons


@pytest.mark.parametrize(
    "good",
    [
        "- Le DAF — Claire, 2026-02-28 [relation]",
        "- Le DAF — Claire, 2028-02-29 [relation]",
        "- Le DAF — Claire, 2026-12-01 [relation]",
        "- Le DAF — Claire, 2026-10-02 [consigne] (jusqu'au 2026-10-02)",
        "- Le DAF — Claire, 2026-10-02 [contexte] (revoir 2027-04-02)",
        "- Le DAF — Claire, 2026-10-02 [relation] ✍",
        "- Le DAF → record:R1 — Claire, 2026-10-02 [relation]",
        "- x — Claire, 2026-10-02 [relation]",
        "- Le—DAF→seul — Claire, 2026-10-02 [relation]",
        "- Le DAF → — Claire, 2026-10-02 [relation]",
    ],
)
def test_the_well_formed_side_of_each_boundary_is_accepted(good):
    """The valid neighbour of each refusal above parses and renders back word for word (an
    arrow or a dash not between spaces is part of what was said)."""
    assert render(parse(good)) == good


def test_several_problems_in_one_line_are_all_listed():
    """A line wrong in many ways reports every reason, not only the first."""
    bad = "- Le — DAF\x07 → mail — Claire, 2026-13-01 [idée] (jusqu'au 2026-02-30) ✍"
    assert sorted(reasons_of(bad)) == sorted(
        [
            f"unknown type [idée]: {ONE_OF}",
            "the end date (jusqu'au) is not a date YYYY-MM-DD: '2026-02-30'",
            "the day is not a date YYYY-MM-DD: '2026-13-01'",
            "a ✍ line carries no source",
            "what was said may not hold '—' between spaces",
            "what was said holds a control character",
        ]
    )


def test_several_date_problems_in_one_line_are_all_listed():
    """An end date before the day and a review on a non-contexte are both reported."""
    assert reasons_of(
        "- x — A, 2026-10-02 [relation] (jusqu'au 2026-01-01) (revoir 2027-04-02)"
    ) == [
        "its end date (jusqu'au) is before its day",
        "only a contexte carries a review date (revoir)",
    ]


# Lines a person writes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        pytest.param(
            "- Le DAF décide seul [décision]",
            Souvenir("Le DAF décide seul", "décision", None, None),
            id="no-attribution",
        ),
        pytest.param(
            "- Le DAF décide seul [décision] ✍",
            Souvenir("Le DAF décide seul", "décision", None, None, human=True),
            id="no-attribution-marked",
        ),
        pytest.param(
            "- Bob part → mail from Bob, 2026-10-23 [relation]",
            Souvenir("Bob part", "relation", None, None, source="mail from Bob, 2026-10-23"),
            id="a-source-and-no-attribution",
        ),
        pytest.param(
            "- Acme lève des fonds [contexte]",
            Souvenir("Acme lève des fonds", "contexte", None, None),
            id="contexte-without-review-nor-day",
        ),
        pytest.param(
            "- Acme lève des fonds — Claire, 2026-10-02 [contexte]",
            Souvenir("Acme lève des fonds", "contexte", "Claire", DAY),
            id="dated-contexte-without-review",
        ),
        pytest.param(
            "- Gel [contexte] (jusqu'au 2027-01-01)",
            Souvenir("Gel", "contexte", None, None, until=date(2027, 1, 1)),
            id="end-date-without-day",
        ),
        pytest.param(
            "- @[Acme](record:R1) Signe vite [relation]",
            Souvenir("Signe vite", "relation", None, None, about=Reference("Acme", "record:R1")),
            id="a-reference",
        ),
    ],
)
def test_a_person_may_leave_out_attribution_source_and_review(written, expected):
    """parse(by_person=True): source, author, day and review date may be left out."""
    assert parse(written, by_person=True) == expected


@pytest.mark.parametrize(
    ("written", "reasons"),
    [
        ("- Le DAF [idée]", [f"unknown type [idée]: {ONE_OF}"]),
        ("- Le DAF — seul [relation]", ["what was said may not hold '—' between spaces"]),
        ("-  [relation]", ["what was said is empty"]),
        ("Le DAF [relation]", ["a souvenir starts with '- '"]),
        ("- Le DAF", [f"a souvenir ends with its type in brackets, {ONE_OF}"]),
        (
            "- Le DAF [relation] (jusqu'au 2026-13-01)",
            ["the end date (jusqu'au) is not a date YYYY-MM-DD: '2026-13-01'"],
        ),
        (
            "- Le DAF — Claire, 2026-02-30 [relation]",
            ["the day is not a date YYYY-MM-DD: '2026-02-30'"],
        ),
        (
            "- Le DAF [relation] (revoir 2027-04-02)",
            ["only a contexte carries a review date (revoir)"],
        ),
        (
            "- Le DAF [contexte] (revoir demain)",
            ["the review date (revoir) is not a date YYYY-MM-DD: 'demain'"],
        ),
        ("- Le DAF →  x [relation]", ["the source is empty or starts or ends with a space"]),
    ],
)
def test_what_a_person_does_write_must_still_be_well_formed(written, reasons):
    """parse(by_person=True) still refuses, with why, any part that is written but wrong."""
    assert reasons_of(written, by_person=True) == reasons


def test_by_person_fills_in_author_and_day_drops_the_source_and_marks_the_line():
    """§5: a line written by a person ends with ✍ and carries no source; code sets its day."""
    written = parse("- Bob part → mail from Bob, 2026-10-23 [contexte]", by_person=True)
    with pytest.raises(LineError):
        render(written)  # not yet attributed
    rendered = render(by_person(written, "Claire", DAY))
    assert rendered == "- Bob part — Claire, 2026-10-02 [contexte] (revoir 2027-04-02) ✍"
    assert parse(rendered) == by_person(written, "Claire", DAY)
