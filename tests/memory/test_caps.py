"""The caps of DESIGN §5 (pure, no database): how many souvenirs a page holds, ✍ lines not
counted."""

from __future__ import annotations

from datetime import date

from resolvers.common.errors import Problem
from resolvers.memory.caps import (
    cap_of,
    cap_problems,
    counted,
)
from resolvers.memory.content import (
    parse_content,
    render_content,
)
from resolvers.memory.grammar import (
    Reference,
    Souvenir,
    render,
)

DAY = date(2026, 10, 2)


# Caps -----------------------------------------------------------------------------------------

ACME = Reference("Acme", "record:R1")
BETA = Reference("Beta", "record:R2")


def many(n: int, *, human: bool = False, about: Reference | None = None) -> list[Souvenir]:
    return [Souvenir(f"s{i}", "relation", "A", DAY, about=about, human=human) for i in range(n)]


def test_counted_skips_person_lines_and_groups_by_reference():
    """§5: ✍ lines are not counted; a profile's souvenirs count per record they are about."""
    souvenirs_ = many(3) + many(4, human=True) + many(2, about=ACME) + many(5, about=BETA)
    souvenirs_ += many(1, about=ACME, human=True)
    assert counted(souvenirs_) == {None: 3, "record:R1": 2, "record:R2": 5}
    assert counted(many(3, human=True)) == {}
    assert counted([]) == {}


def test_counted_takes_stored_pairs_of_mark_and_reference():
    """counted also takes (human, about) pairs, as stored lines give them."""
    assert counted([(False, None), (True, None), (False, "r1"), (False, "r1")]) == {
        None: 1,
        "r1": 2,
    }


def test_cap_of_each_page_kind():
    """A record page 20 whatever the reference; a profile 15, 20 per record."""
    assert cap_of("record", None) == 20
    assert cap_of("profile", None) == 15
    assert cap_of("profile", "record:R1") == 20


def test_a_record_page_holds_20_souvenirs_not_21():
    """§5: a record page holds at most 20 souvenirs."""
    assert cap_problems("record", {}, counted(many(20))) == []
    problems = cap_problems("record", {}, counted(many(21)))
    assert problems == [
        Problem(
            "this page holds at most 20 souvenirs (✍ lines not counted), not 21;"
            " past it only a rewrite or a delete",
            field="content",
        )
    ]


def test_a_profile_holds_15_souvenirs_about_no_record_not_16():
    """§5: a profile holds at most 15 souvenirs (about no record)."""
    assert cap_problems("profile", {}, counted(many(15))) == []
    problems = cap_problems("profile", {}, counted(many(16)))
    assert [p.message for p in problems] == [
        "this page holds at most 15 souvenirs (✍ lines not counted), not 16;"
        " past it only a rewrite or a delete"
    ]
    assert problems[0].field == "content"


def test_a_profile_holds_20_souvenirs_per_record_not_21():
    """§5: and 20 per record it mentions, each record on its own."""
    assert cap_problems("profile", {}, counted(many(20, about=ACME))) == []
    full = many(15) + many(20, about=ACME) + many(20, about=BETA)
    assert cap_problems("profile", {}, counted(full)) == []
    problems = cap_problems("profile", {}, counted(many(21, about=ACME) + many(16)))
    assert sorted(p.message for p in problems) == [
        "this page holds at most 15 souvenirs (✍ lines not counted), not 16;"
        " past it only a rewrite or a delete",
        "this profile about record:R1 holds at most 20 souvenirs (✍ lines not counted),"
        " not 21; past it only a rewrite or a delete",
    ]


def test_person_lines_are_not_counted_toward_a_cap():
    """§5: ✍ lines are not counted: 20 ✍ lines plus 20 souvenirs fit a record page."""
    content = render_content(
        [render(s) for s in many(20, human=True)] + [render(s) for s in many(20)]
    )
    lines, problems = parse_content(content)
    assert problems == [] and len(lines) == 40
    counts = counted(pl.souvenir for pl in lines if pl.souvenir is not None)
    assert counts == {None: 20}
    assert cap_problems("record", {}, counts) == []
    assert cap_problems("profile", {}, counted(many(15) + many(30, human=True))) == []
    assert cap_problems("record", {}, counted(many(21) + many(30, human=True))) != []


def test_past_a_cap_only_a_rewrite_or_a_delete_is_accepted():
    """§5: over its cap a page may stay at its count or shrink, never grow."""
    before = {None: 22}
    assert cap_problems("record", before, {None: 22}) == []
    assert cap_problems("record", before, {None: 21}) == []
    assert cap_problems("record", before, {None: 20}) == []
    assert len(cap_problems("record", before, {None: 23})) == 1
    assert cap_problems("profile", {None: 17}, {None: 17}) == []
    assert len(cap_problems("profile", {None: 17}, {None: 18})) == 1


def test_past_a_cap_counts_are_compared_per_reference():
    """Shrinking one group does not let another grow past its cap."""
    before = {None: 22, "record:R1": 5}
    assert cap_problems("profile", before, {None: 22, "record:R1": 20}) == []
    assert len(cap_problems("profile", before, {None: 21, "record:R1": 21})) == 1
    before = {"record:R1": 25}
    assert cap_problems("profile", before, {"record:R1": 25, "record:R2": 20}) == []
    assert len(cap_problems("profile", before, {"record:R1": 24, "record:R2": 21})) == 1
    assert len(cap_problems("profile", before, {"record:R1": 26})) == 1
