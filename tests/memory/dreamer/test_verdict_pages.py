"""The Dreamer's verdicts on the souvenirs already on a page (resolvers/memory/dreamer/
verdicts.py, contradictions.py, lines.py): contradictions, confirmations, the caps and the
4,000 characters, the mission and other lines left alone, the grammar. No database."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from db.memory import LineRow
from resolvers.memory.content import mission_section, parse_content
from resolvers.memory.dreamer.lines import neutralised, one_line
from resolvers.memory.dreamer.reader import About, Candidate, PageLine, Voice
from resolvers.memory.grammar import has_control, parse
from tests.memory.dreamer.verdict_world import (
    ACME_ID,
    ACME_PAGE,
    AGENT_ID,
    AGENT_PROFILE,
    ALICE_PROFILE,
    BETA_ID,
    DAY,
    MEETING_ID,
    OUTSIDER,
    SCOUT,
    WORKSPACE_PROFILE,
    about_record,
    candidate,
    filler,
    gid,
    item,
    one,
    page,
    rec,
    scope,
    souvenir,
    stored,
)

YESTERDAY = DAY - timedelta(days=1)
TOMORROW = DAY + timedelta(days=1)
# A workspace source in which an agent's words reach its own profile: a learning not stated
# by a member can then meet the souvenirs of a shared page.
WORKSPACE_ITEM = scope(private=False, owner=None, source_kind="record", source_id=MEETING_ID)
OWN_PROFILE = About(kind="agent", id=gid("Agent", AGENT_ID))


def stated_by_person(key: str, text: str = "x") -> PageLine:
    """The batch's word that a person stated the line ``key``."""
    return PageLine(
        page_id="p",
        key=key,
        day=DAY,
        type="contexte",
        human=False,
        stated_by_person=True,
        text=text,
    )


def decided(the_candidate: Candidate, present, **kwargs: object):
    """The verdict of a candidate on Acme's page (or ``target``) holding ``present``
    (keyword ``lines``: the batch's lines)."""
    target = kwargs.pop("target", ACME_PAGE)
    return one(the_candidate, pages=[page(target, present)], **kwargs)  # type: ignore[arg-type]


def agents(the_candidate: Candidate, present, **kwargs: object):
    """The verdict of the agent's own words on its profile, from a workspace source."""
    scout = the_candidate.model_copy(update={"stated_by": SCOUT, "about": OWN_PROFILE})
    kwargs.setdefault("item", item(speaker=SCOUT))
    return decided(scout, present, target=AGENT_PROFILE, scope=WORKSPACE_ITEM, **kwargs)


# Contradictions ------------------------------------------------------------------------------


def test_a_human_line_is_kept_against_anyones_contradiction():
    lines = [souvenir("Le DAF valide seul", "k1", human=True, author="Bob")]
    verdict, decisions = decided(candidate(contradicts="k1", changes_over_time=True), lines)
    assert (verdict.verdict, verdict.reason, verdict.key) == (
        "refused",
        "person_version_kept",
        "k1",
    )
    assert decisions.pages == {}


def test_older_evidence_never_replaces_a_souvenir():
    lines = [souvenir("Le DAF valide seul", "k1", day=TOMORROW)]
    verdict, decisions = decided(candidate(contradicts="k1", changes_over_time=True), lines)
    assert (verdict.verdict, verdict.reason) == ("refused", "older_than_existing")
    assert decisions.pages == {}


def test_for_a_changing_fact_the_newest_event_wins():
    lines = [
        souvenir("x", "a"),
        souvenir("Relance le 3 mars", "k1", day=YESTERDAY),
        souvenir("y", "b"),
    ]
    changed = candidate("Relance le 10 mars", "contexte", contradicts="k1", changes_over_time=True)
    verdict, decisions = agents(changed, lines, lines=[stated_by_person("k1")])
    assert verdict.verdict == "written" and verdict.key != "k1"
    new = decisions.pages[AGENT_PROFILE]
    assert [line.key for line in new] == ["a", verdict.key, "b"]
    assert (new[1].text, new[1].author, new[1].day) == ("Relance le 10 mars", "Scout", DAY)


def test_for_a_fixed_fact_the_version_a_person_stated_is_kept():
    lines = [souvenir("Le DAF valide seul", "k1", day=YESTERDAY)]
    fixed = candidate("Le DAF ne valide rien", contradicts="k1")
    verdict, decisions = agents(fixed, lines, lines=[stated_by_person("k1")])
    assert (verdict.reason, verdict.key, verdict.page) == (
        "person_version_kept",
        "k1",
        AGENT_PROFILE,
    )
    assert decisions.pages == {}


def test_for_a_fixed_fact_in_doubt_nothing_changes():
    lines = [souvenir("Le DAF valide seul", "k1", day=YESTERDAY, author="Scout")]
    verdict, decisions = agents(candidate("Le DAF ne valide rien", contradicts="k1"), lines)
    assert (verdict.reason, verdict.key) == ("contradiction_in_doubt", "k1")
    assert decisions.pages == {}


def test_a_persons_correction_the_same_day_replaces_the_line():
    lines = [souvenir("Le DAF valide seul", "k1", author="Alice"), souvenir("Autre", "k2")]
    verdict, decisions = decided(
        candidate("Le DAF ne valide rien", contradicts="k1"), lines, lines=[stated_by_person("k1")]
    )
    assert verdict.verdict == "written"
    assert [line.text for line in decisions.pages[ACME_PAGE]] == ["Le DAF ne valide rien", "Autre"]


def test_two_peoples_versions_of_a_fixed_fact_leave_it_in_doubt():
    # Bob stated it; Alice says otherwise: neither is a correction of one's own words.
    lines = [souvenir("Le DAF valide seul", "k1", author="Bob")]
    verdict, decisions = decided(
        candidate("Le DAF ne valide rien", contradicts="k1"), lines, lines=[stated_by_person("k1")]
    )
    assert (verdict.reason, verdict.key) == ("contradiction_in_doubt", "k1")
    assert decisions.pages == {}


def test_a_persons_correction_from_the_day_before_is_older_evidence():
    lines = [souvenir("Le DAF valide seul", "k1")]
    verdict, _ = decided(
        candidate("Le DAF ne valide rien", contradicts="k1"), lines, scope=scope(day=YESTERDAY)
    )
    assert verdict.reason == "older_than_existing"


def test_an_outsiders_word_never_replaces_a_persons_on_the_owners_profile():
    lines = [souvenir("Tutoyer John", "k1", type="consigne", about_id=ACME_ID, about_label="Acme")]
    outsider = candidate("Vouvoyer John", "consigne", stated_by=OUTSIDER, contradicts="k1")
    verdict, _ = decided(
        outsider,
        lines,
        target=ALICE_PROFILE,
        item=item(speaker=OUTSIDER),
        lines=[stated_by_person("k1")],
    )
    assert (verdict.page, verdict.reason) == (ALICE_PROFILE, "person_version_kept")


def test_a_contradicted_key_not_on_the_page_makes_a_new_souvenir():
    lines = [souvenir("Le DAF valide seul", "k1")]
    verdict, decisions = decided(candidate("Le DAF ne valide rien", contradicts="gone"), lines)
    assert verdict.verdict == "written"
    assert [line.key for line in decisions.pages[ACME_PAGE]] == ["k1", verdict.key]


# Confirmations -------------------------------------------------------------------------------


def test_a_confirmation_moves_the_day_and_the_review_date():
    spring = date(2026, 4, 1)
    lines = [souvenir("Acme change de DAF en mars", "k1", day=spring), souvenir("Autre", "k2")]
    before = stored(lines)
    assert "(revoir 2026-10-01)" in before
    verdict, decisions = decided(candidate("Acme change de DAF", "contexte", confirms="k1"), lines)
    assert (verdict.verdict, verdict.key, verdict.text) == (
        "refreshed",
        "k1",
        "Acme change de DAF en mars",
    )
    new = decisions.pages[ACME_PAGE]
    assert [line.key for line in new] == ["k1", "k2"] and new[1] is lines[1]
    assert new[0].day == DAY and new[0].text == lines[0].text
    shown = parse(stored(new).split("\n")[0])
    assert shown.day == DAY and shown.review == date(2027, 4, 2)
    assert stored(new) == before.replace("2026-04-01", "2026-10-02").replace(
        "revoir 2026-10-01", "revoir 2027-04-02"
    )


def test_a_confirmation_from_an_earlier_day_changes_nothing():
    lines = [souvenir("Acme change de DAF", "k1", day=TOMORROW)]
    verdict, decisions = decided(candidate("Acme change de DAF", confirms="k1"), lines)
    assert (verdict.verdict, verdict.key) == ("refreshed", "k1")
    assert decisions.pages == {}


def test_a_confirmed_human_line_is_left_as_it_is():
    lines = [souvenir("Acme change de DAF", "k1", day=YESTERDAY, human=True)]
    verdict, decisions = decided(candidate("Acme change de DAF", confirms="k1"), lines)
    assert verdict.verdict == "refreshed" and decisions.pages == {}


def test_a_confirmed_key_not_on_the_page_makes_a_new_souvenir():
    lines = [souvenir("Autre chose", "k1", day=YESTERDAY)]
    verdict, decisions = decided(candidate(confirms="elsewhere"), lines)
    assert verdict.verdict == "written"
    assert [line.key for line in decisions.pages[ACME_PAGE]] == ["k1", verdict.key]


@pytest.mark.parametrize(
    "said", ["le daf décide seul.", "  Le DAF   décide seul !", "LE DAF DÉCIDE SEUL…"]
)
def test_the_same_words_again_refresh_the_line(said: str):
    lines = [souvenir("Le DAF décide seul", "k1", day=YESTERDAY)]
    verdict, decisions = decided(candidate(said), lines)
    assert (verdict.verdict, verdict.key) == ("refreshed", "k1")
    assert decisions.pages[ACME_PAGE][0].day == DAY


@pytest.mark.parametrize(
    "said", ["Le DAF decide seul", "Le DAF décide seul, parfois", "Le, DAF décide seul"]
)
def test_other_words_are_a_new_souvenir(said: str):
    lines = [souvenir("Le DAF décide seul", "k1", day=YESTERDAY)]
    verdict, decisions = decided(candidate(said), lines)
    assert verdict.verdict == "written"
    assert len(decisions.pages[ACME_PAGE]) == 2


def test_the_same_words_about_another_record_are_a_new_souvenir():
    lines = [souvenir("Tutoyer", "k1", type="consigne", about_id=BETA_ID, about_label="Beta")]
    verdict, decisions = decided(candidate("Tutoyer", "consigne"), lines, target=ALICE_PROFILE)
    assert verdict.verdict == "written"
    assert [line.about_id for line in decisions.pages[ALICE_PROFILE]] == [BETA_ID, ACME_ID]
    again, _ = decided(
        candidate("Tutoyer", "consigne"), decisions.pages[ALICE_PROFILE], target=ALICE_PROFILE
    )
    assert (again.verdict, again.key) == ("refreshed", verdict.key)


def test_a_line_confirmed_past_its_end_takes_the_new_end_or_none():
    lines = [souvenir("Promo Acme", "k1", day=date(2026, 5, 1), until=date(2026, 6, 1))]
    _, decisions = decided(candidate("Promo Acme", confirms="k1"), lines)
    assert decisions.pages[ACME_PAGE][0].until is None
    end = date(2026, 12, 31)
    _, decisions = decided(candidate("Promo Acme", confirms="k1", until=end), lines)
    assert decisions.pages[ACME_PAGE][0].until == end
    # An end still ahead is kept.
    ahead = [souvenir("Promo Acme", "k1", day=date(2026, 5, 1), until=end)]
    _, decisions = decided(candidate("Promo Acme", confirms="k1"), ahead)
    assert decisions.pages[ACME_PAGE][0].until == end


# Caps and the 4,000 characters ---------------------------------------------------------------


def test_a_full_record_page_refuses_and_human_lines_are_not_counted():
    full = [*filler(3, human=True), *filler(20)]
    verdict, decisions = decided(candidate(), full)
    assert (verdict.verdict, verdict.reason, verdict.page) == ("refused", "cap_reached", ACME_PAGE)
    assert decisions.pages == {}
    # One less counted souvenir, and more ✍ lines than ever: the 20th is written.
    room = [*filler(5, human=True), *filler(19)]
    verdict, decisions = decided(candidate(), room)
    assert verdict.verdict == "written"
    new = decisions.pages[ACME_PAGE]
    assert new[:-1] == room and len([line for line in new if not line.human]) == 20


def test_a_page_of_human_lines_still_takes_a_souvenir():
    verdict, _ = decided(candidate(), filler(30, human=True))
    assert verdict.verdict == "written"


def test_a_profile_holds_fifteen_of_its_own_and_twenty_per_record():
    mine = candidate("Je préfère le mail", "préférence", About(kind="speaker"))
    assert decided(mine, filler(14), target=ALICE_PROFILE)[0].verdict == "written"
    assert decided(mine, filler(15), target=ALICE_PROFILE)[0].reason == "cap_reached"
    about_acme = [
        souvenir(f"acme {n}", f"a{n}", type="consigne", about_id=ACME_ID, about_label="Acme")
        for n in range(20)
    ]
    # Twenty about Acme (the page's length leaves room for few others: references are long):
    # a consigne about Acme is one too many, one about Beta or of its own is not.
    present = [*filler(3), *about_acme]
    rule = candidate("Tutoyer", "consigne")
    assert decided(rule, present, target=ALICE_PROFILE)[0].reason == "cap_reached"
    assert decided(rule, present[:-1], target=ALICE_PROFILE)[0].verdict == "written"
    beta_rule = candidate("Tutoyer", "consigne", about_record(BETA_ID))
    assert decided(beta_rule, present, target=ALICE_PROFILE)[0].verdict == "written"
    assert decided(mine, present, target=ALICE_PROFILE)[0].verdict == "written"


def test_a_page_over_its_cap_still_takes_a_replacement():
    present = filler(24)
    verdict, decisions = decided(candidate("Autrement", contradicts=present[3].key), present)
    assert verdict.verdict == "written"
    assert len(decisions.pages[ACME_PAGE]) == 24
    assert decisions.pages[ACME_PAGE][3].text == "Autrement"


def test_the_page_holds_4000_characters_as_stored_not_4001():
    def with_padding(width: int):
        pad = souvenir("p" * width, "pad", type="relation", author="Bob")
        return decided(candidate(), [pad])

    verdict, decisions = with_padding(100)
    length = len(stored(decisions.pages[ACME_PAGE]))
    fill = 100 + 4000 - length
    verdict, decisions = with_padding(fill)
    assert verdict.verdict == "written"
    assert len(stored(decisions.pages[ACME_PAGE])) == 4000
    verdict, decisions = with_padding(fill + 1)
    assert (verdict.verdict, verdict.reason) == ("refused", "cap_reached")
    assert decisions.pages == {}


# Lines that are not souvenirs, and human lines ------------------------------------------------


def workspace_rule(text: str = "Les devis partent signés"):
    return candidate(text, "consigne", About(kind="workspace"))


def test_mission_headings_and_human_lines_are_never_touched():
    present = [
        LineRow(kind="heading", text="# Équipe"),
        LineRow(kind="heading", text="## Mission mémoire"),
        LineRow(kind="mission", text="Retenir nos règles de prix."),
        LineRow(kind="blank", text=""),
        LineRow(kind="heading", text="## Règles"),
        souvenir("Tutoyer les clients", "k0", type="consigne", human=True),
        souvenir("Remise max 10 %", "k1", type="consigne", author="Scout"),
        LineRow(kind="blank", text=""),
        LineRow(kind="heading", text="## Archives"),
    ]
    verdict, decisions = decided(workspace_rule(), present, target=WORKSPACE_PROFILE)
    new = decisions.pages[WORKSPACE_PROFILE]
    assert new[:7] == present[:7] and new[8:] == present[7:]
    assert new[7].key == verdict.key
    content = stored(new)
    assert mission_section(content) == "Retenir nos règles de prix."
    parsed, problems = parse_content(content, mission=True)
    assert problems == []
    assert [line.kind for line in parsed][5:9] == ["souvenir", "souvenir", "souvenir", "blank"]


def test_a_souvenir_never_joins_a_mission_that_ends_the_page():
    present = [
        LineRow(kind="heading", text="## Mission mémoire"),
        LineRow(kind="mission", text="Retenir nos règles de prix."),
    ]
    _, decisions = decided(workspace_rule(), present, target=WORKSPACE_PROFILE)
    new = decisions.pages[WORKSPACE_PROFILE]
    assert new[:2] == present and new[2].kind == "blank" and new[3].kind == "souvenir"
    content = stored(new)
    assert mission_section(content) == "Retenir nos règles de prix."
    parsed, problems = parse_content(content, mission=True)
    assert problems == [] and parsed[-1].kind == "souvenir"


def test_a_replacement_leaves_the_human_lines_around_it():
    present = [
        souvenir("Mine", "h1", human=True, author="Alice"),
        souvenir("Le DAF valide seul", "k1"),
        souvenir("Mine too", "h2", human=True, author="Alice"),
    ]
    _, decisions = decided(candidate("Le DAF ne valide rien", contradicts="k1"), present)
    new = decisions.pages[ACME_PAGE]
    assert new[0] is present[0] and new[2] is present[2]


# The grammar ---------------------------------------------------------------------------------


def rendered(the_candidate: Candidate, **kwargs: object) -> str:
    verdict, decisions = one(the_candidate, **kwargs)
    assert verdict.verdict == "written", verdict
    return stored(decisions.pages[verdict.page])


def test_what_breaks_the_grammar_is_neutralised_not_refused():
    line = rendered(candidate("Prix → remise — validé [ok]"))
    souvenir_ = parse(line)
    assert souvenir_.text == "Prix -> remise - validé (ok)"
    assert (souvenir_.author, souvenir_.day, souvenir_.type) == ("Alice", DAY, "décision")


def test_a_mention_opening_the_text_is_shown_by_its_label():
    text = f"@[Acme]({'record:' + rec(ACME_ID)}) signe en mars"
    assert parse(rendered(candidate(text))).text == "Acme signe en mars"
    # Inside the text, a mention is kept as said.
    inside = f"Signé avec @[Acme](record:{rec(ACME_ID)})"
    assert parse(rendered(candidate(inside))).text == inside


def test_a_closing_human_mark_is_dropped():
    assert parse(rendered(candidate("Le DAF décide seul ✍"))).text == "Le DAF décide seul"
    verdict, _ = one(candidate("✍"))
    assert (verdict.verdict, verdict.reason) == ("refused", "not_durable")


def test_the_author_and_the_source_follow_the_grammar():
    claire = Voice(kind="person", id=None, name="Claire — DAF")
    kept = candidate("Écrire en anglais", "consigne", stated_by=claire)
    line = rendered(kept, item=item(speaker=claire))
    assert parse(line).author == "Claire - DAF"
    meeting = scope(source_kind="record", source_id=MEETING_ID)
    assert f"→ record:{rec(MEETING_ID)} — Alice" in rendered(candidate(), scope=meeting)
    assert (
        parse(rendered(candidate(), scope=scope(source_kind=None, source_id=None))).source is None
    )


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=80))
def test_any_text_is_written_as_one_line_of_the_grammar_or_refused(text: str):
    verdict, decisions = one(candidate(text))
    if verdict.verdict == "refused":
        # Nothing durable: empty once made one line, a control character, or only a ✍.
        assert verdict.reason == "not_durable"
        assert not neutralised(one_line(text)) or has_control(one_line(text))
        return
    assert verdict.verdict == "written"
    line = stored(decisions.pages[ACME_PAGE])
    assert "\n" not in line
    assert parse(line).text == verdict.text
    assert verdict.text in (one_line(text), neutralised(one_line(text)))
