"""The Dreamer's verdicts (resolvers/memory/dreamer/verdicts.py): refusals, routing, sharing,
who may shape a page, and a batch's candidates seeing each other's lines. No database.

What a learning does to the souvenirs on its page (contradictions, confirmations), the caps,
the mission and the grammar are in test_verdict_pages.py.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from uuid import UUID

import pytest

from resolvers.memory.dreamer.context import MailLine, Permissions
from resolvers.memory.dreamer.reader import About, Candidate, ItemLearnings, LinkedRecord, Voice
from resolvers.memory.dreamer.refusals import REASONS
from resolvers.memory.dreamer.verdicts import UNTRACED, vouched
from tests.memory.dreamer.verdict_world import (
    ACME,
    ACME_ID,
    ACME_PAGE,
    AGENT_ID,
    AGENT_PROFILE,
    ALICE,
    ALICE_ID,
    ALICE_PROFILE,
    BETA,
    BETA_ID,
    BOB,
    BOB_ID,
    DAY,
    DEAL,
    DEAL_ID,
    JOHN,
    JOHN_ID,
    MEETING,
    MEETING_ID,
    NOTE,
    NOTE_ID,
    OTHER_AGENT_ID,
    OUTSIDER,
    RECORDS,
    ROUTINE_ID,
    SCOUT,
    TASK,
    TASK_ID,
    WORKSPACE_PROFILE,
    about_record,
    candidate,
    filler,
    gid,
    item,
    one,
    page,
    rec,
    run,
    scope,
    stored,
)

SIDE_NOTE_ID = UUID("00000000-0000-4000-8000-000000000199")


def written(the_candidate: Candidate, **kwargs: object):
    verdict, decisions = one(the_candidate, **kwargs)
    assert (verdict.verdict, verdict.reason) == ("written", None), verdict
    return verdict, decisions


def refused(the_candidate: Candidate, reason: str, **kwargs: object):
    verdict, decisions = one(the_candidate, **kwargs)
    assert (verdict.verdict, verdict.reason) == ("refused", reason), verdict
    assert decisions.pages == {}
    return verdict


# Refusals from the reader's flags ------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "reason"),
    [
        ("already_in_record", "record_stores_it"),
        ("log", "log"),
        ("task", "task"),
        ("one_off", "one_off"),
        ("transient", "not_durable"),
    ],
)
def test_a_flag_refuses_and_without_it_the_learning_is_written(flag: str, reason: str):
    verdict = refused(candidate(**{flag: True}), reason)
    assert verdict.text == "Le DAF décide seul" and verdict.page is None
    written(candidate(**{flag: False}))


def test_an_inference_nobody_stated_is_refused():
    refused(candidate(stated_by=None), "inference")


def test_the_first_flag_in_the_rule_book_gives_the_reason():
    refused(
        candidate(already_in_record=True, log=True, task=True, stated_by=None), "record_stores_it"
    )
    refused(candidate(task=True, one_off=True, transient=True), "task")
    refused(candidate(transient=True, stated_by=None), "not_durable")


def test_every_reason_is_named_once():
    assert len(REASONS) == len(set(REASONS)) == 14


def test_an_item_with_no_candidate_gets_one_refusal():
    decisions = run([(item("i1"), []), (item("i2"), [candidate()])])
    first, second = decisions.verdicts
    assert (first.item_id, first.verdict, first.reason) == ("i1", "refused", "not_durable")
    assert first.page is None and first.key is None and first.text is None
    assert (second.item_id, second.verdict) == ("i2", "written")


def test_an_item_the_answer_leaves_out_gets_one_refusal():
    decisions = run([(item("i1"), [candidate()]), (item("i2"), [])], unanswered=["i1"])
    assert [(v.item_id, v.verdict, v.reason) for v in decisions.verdicts] == [
        ("i1", "refused", "not_durable"),
        ("i2", "refused", "not_durable"),
    ]
    assert decisions.pages == {}


def test_a_candidate_for_an_item_not_in_the_batch_is_ignored():
    stray = ItemLearnings(item_id="elsewhere", candidates=(candidate(),))
    decisions = run([(item("i1"), [])], strays=[stray])
    assert [v.item_id for v in decisions.verdicts] == ["i1"]
    assert decisions.pages == {}


def test_every_candidate_of_an_item_gets_its_verdict_in_order():
    decisions = run([(item("i1"), [candidate(log=True), candidate("Acme paie à 60 jours")])])
    assert [(v.verdict, v.reason) for v in decisions.verdicts] == [
        ("refused", "log"),
        ("written", None),
    ]


def test_an_item_code_knows_nothing_of_writes_nothing():
    decisions = run([(item("i1"), [candidate()])], scopes=[scope("other")])
    assert [(v.verdict, v.reason) for v in decisions.verdicts] == [("refused", "not_permitted")]


def test_an_end_date_before_the_items_day_is_not_durable():
    verdict = refused(candidate(until=DAY - timedelta(days=1)), "not_durable")
    assert verdict.page == ACME_PAGE
    _, decisions = written(candidate(until=DAY))
    assert "(jusqu'au 2026-10-02)" in stored(decisions.pages[ACME_PAGE])


def test_a_control_character_is_not_durable_and_line_breaks_become_spaces():
    refused(candidate("Le DAF\x07 décide seul"), "not_durable")
    refused(candidate(" \n\t "), "not_durable")
    verdict, _ = written(candidate("  Le DAF\n\tdécide   seul \r\n"))
    assert verdict.text == "Le DAF décide seul"


# Routing -------------------------------------------------------------------------------------


def test_a_record_of_the_item_gets_its_page_created_on_the_first_souvenir():
    verdict, decisions = written(candidate())
    assert verdict.page == ACME_PAGE
    [line] = decisions.pages[ACME_PAGE]
    assert (line.key, line.text, line.type, line.author, line.day) == (
        verdict.key,
        "Le DAF décide seul",
        "décision",
        "Alice",
        DAY,
    )
    assert (line.source_kind, line.source_id, line.about_id, line.human) == (
        "conversation",
        ALICE_ID,
        None,
        False,
    )


def test_a_record_not_among_the_items_records_is_no_subject():
    # Acme is in the batch (another item links it), never guessed for this one.
    refused(candidate(), "no_subject", item=item(records=(JOHN,)))
    refused(candidate(about=About(kind="record", id="not-an-id")), "no_subject")


def test_a_record_of_another_workspace_is_no_subject():
    foreign = LinkedRecord(id=gid("Record", ACME_ID, BOB_ID), object="companies", label="X")
    bad = candidate(about=About(kind="record", id=foreign.id))
    refused(bad, "no_subject", item=item(records=(foreign,)), records=(foreign,))


def about_satellite(*points_to: LinkedRecord) -> tuple[Candidate, dict[str, object]]:
    """A candidate about a note that points to these records, and the batch it comes in."""
    note = LinkedRecord(
        id=rec(SIDE_NOTE_ID),
        object="notes",
        label="A note",
        satellite=True,
        points_to=tuple(r.id for r in points_to),
    )
    kwargs: dict[str, object] = {"item": item(records=(note,)), "records": (*RECORDS, note)}
    return candidate(about=About(kind="record", id=note.id)), kwargs


def test_a_satellite_goes_to_a_deal_before_its_contact():
    # The note points to the contact first: the deal, which points to the contact, wins.
    assert NOTE.points_to == (JOHN.id, DEAL.id)
    verdict, decisions = written(candidate(about=about_record(NOTE_ID)))
    assert verdict.page == ("record", DEAL_ID)
    assert list(decisions.pages) == [("record", DEAL_ID)]


def test_a_satellite_goes_to_a_contact_before_its_company():
    the_candidate, kwargs = about_satellite(ACME, JOHN)
    assert written(the_candidate, **kwargs)[0].page == ("record", JOHN_ID)


def test_a_satellite_goes_to_the_most_specific_through_the_chain():
    # The deal points to the contact, the contact to the company: the deal reaches both.
    the_candidate, kwargs = about_satellite(ACME, JOHN, DEAL)
    assert written(the_candidate, **kwargs)[0].page == ("record", DEAL_ID)


def test_a_satellite_follows_another_satellite_to_its_records():
    the_candidate, kwargs = about_satellite(NOTE, ACME)
    assert written(the_candidate, **kwargs)[0].page == ("record", DEAL_ID)


def test_between_unrelated_records_a_satellite_goes_to_the_first_it_points_to():
    the_candidate, kwargs = about_satellite(BETA, ACME)
    assert written(the_candidate, **kwargs)[0].page == ("record", BETA_ID)


def test_a_satellite_with_nothing_to_point_to_refuses():
    assert TASK.points_to == ()
    refused(
        candidate(about=about_record(TASK_ID)), "satellite_no_record", item=item(records=(TASK,))
    )


def test_a_satellite_pointing_only_to_what_carries_no_page_refuses():
    the_candidate, kwargs = about_satellite(MEETING)
    refused(the_candidate, "satellite_no_record", **kwargs)


def test_a_satellite_skips_what_carries_no_page_for_the_next_most_specific():
    the_candidate, kwargs = about_satellite(MEETING, JOHN, ACME)
    assert written(the_candidate, **kwargs)[0].page == ("record", JOHN_ID)


def test_a_record_that_carries_no_page_refuses():
    meeting = candidate(about=about_record(MEETING_ID))
    refused(meeting, "satellite_no_record", item=item(records=(MEETING,)))
    # The same record once it may carry a page.
    carries = frozenset({MEETING_ID})
    may = {ALICE_ID: Permissions(records=carries)}
    verdict, _ = written(meeting, item=item(records=(MEETING,)), carries=carries, permissions=may)
    assert verdict.page == ("record", MEETING_ID)


def test_about_the_speaker_goes_to_their_profile():
    verdict, _ = written(candidate("Je préfère le mail", "préférence", About(kind="speaker")))
    assert verdict.page == ALICE_PROFILE
    # An agent speaking of itself, in a workspace source.
    scout = candidate("Je réponds en français", "consigne", About(kind="speaker"), SCOUT)
    verdict, _ = written(scout, item=item(speaker=SCOUT), scope=scope(private=False, owner=None))
    assert verdict.page == AGENT_PROFILE
    # A routine speaks as an agent, by its own id: its own profile, shaped by its own words
    # from a workspace source only.
    nightly = Voice(kind="agent", id=gid("Routine", ROUTINE_ID), name="Nightly")
    itself = scout.model_copy(update={"stated_by": nightly})
    workspace_run = scope(private=False, owner=None)
    verdict, _ = written(itself, item=item(speaker=nightly), scope=workspace_run)
    assert verdict.page == ("routine", ROUTINE_ID)
    refused(itself, "not_permitted", item=item(speaker=nightly))


def test_about_an_outsider_speaker_is_no_subject():
    about_them = candidate("Carol préfère le mail", "préférence", About(kind="speaker"), OUTSIDER)
    refused(about_them, "no_subject", item=item(speaker=OUTSIDER))


def test_about_an_agent_a_routine_the_workspace():
    agent = About(kind="agent", id=gid("Agent", AGENT_ID))
    assert written(candidate(type="consigne", about=agent))[0].page == AGENT_PROFILE
    routine = About(kind="routine", id=gid("Routine", ROUTINE_ID))
    assert written(candidate(type="consigne", about=routine))[0].page == ("routine", ROUTINE_ID)
    workspace = About(kind="workspace")
    assert written(candidate(type="consigne", about=workspace))[0].page == WORKSPACE_PROFILE


def test_about_nothing_or_an_id_of_the_wrong_kind_is_no_subject():
    refused(candidate(about=About(kind="nothing")), "no_subject")
    refused(candidate(about=About(kind="agent", id=gid("Routine", ROUTINE_ID))), "no_subject")
    refused(candidate(about=About(kind="routine", id="garbage")), "no_subject")


# Sharing from a private source ---------------------------------------------------------------


@pytest.mark.parametrize("kind", ["relation", "contexte", "décision"])
def test_a_private_relation_contexte_or_decision_reaches_the_records_page(kind: str):
    verdict, decisions = written(candidate(type=kind))
    assert verdict.page == ACME_PAGE
    assert decisions.pages[ACME_PAGE][0].about_id is None


@pytest.mark.parametrize("kind", ["consigne", "préférence"])
def test_a_private_consigne_or_preference_stays_on_the_owners_profile(kind: str):
    verdict, decisions = written(candidate("Toujours tutoyer John", kind))
    assert verdict.page == ALICE_PROFILE
    [line] = decisions.pages[ALICE_PROFILE]
    assert (line.about_id, line.about_label) == (ACME_ID, "Acme")
    assert stored([line]).startswith(f"- @[Acme](record:{rec(ACME_ID)}) Toujours tutoyer John →")


def test_with_sharing_off_a_decision_stays_on_the_owners_profile():
    verdict, decisions = written(candidate(), scope=scope(share=False))
    assert verdict.page == ALICE_PROFILE
    assert decisions.pages[ALICE_PROFILE][0].about_id == ACME_ID


def test_a_satellites_learning_kept_private_refers_to_its_record():
    verdict, decisions = written(candidate("Tutoyer", "consigne", about_record(NOTE_ID)))
    [line] = decisions.pages[ALICE_PROFILE]
    assert (line.about_id, line.about_label) == (DEAL_ID, "Acme renewal")


@pytest.mark.parametrize("kind", ["relation", "consigne"])
def test_a_sensitive_private_learning_never_reaches_a_record(kind: str):
    verdict = refused(candidate(type=kind, sensitive="health"), "sensitive_private_to_shared")
    assert verdict.page == ACME_PAGE


@pytest.mark.parametrize(
    "about",
    [About(kind="agent", id=gid("Agent", AGENT_ID)), About(kind="workspace")],
    ids=["agent", "workspace"],
)
def test_a_sensitive_private_learning_never_reaches_a_shared_profile(about: About):
    refused(candidate(type="consigne", about=about, sensitive="pay"), "sensitive_private_to_shared")


def test_a_sensitive_private_learning_stays_on_the_owners_own_profile():
    mine = candidate(
        "Je suis suivie le mardi", "contexte", About(kind="speaker"), sensitive="health"
    )
    assert written(mine)[0].page == ALICE_PROFILE


def test_a_private_item_with_no_owner_cannot_keep_a_learning_private():
    refused(candidate(type="consigne"), "not_permitted", scope=scope(owner=None))


def test_a_workspace_source_is_not_restricted_by_sharing():
    workspace = scope(private=False, owner=None, share=False)
    verdict, _ = written(candidate(type="consigne", sensitive="pay"), scope=workspace)
    assert verdict.page == ACME_PAGE


# Who may shape a page ------------------------------------------------------------------------


def shaped(the_candidate: Candidate, permissions: Permissions, **kwargs: object):
    return one(the_candidate, permissions={ALICE_ID: permissions, BOB_ID: permissions}, **kwargs)[0]


@pytest.mark.parametrize(
    ("about", "allowed", "denied"),
    [
        (about_record(), Permissions(records=frozenset({ACME_ID})), Permissions(workspace=True)),
        (
            About(kind="agent", id=gid("Agent", AGENT_ID)),
            Permissions(agents=frozenset({AGENT_ID})),
            Permissions(agents=frozenset({OTHER_AGENT_ID}), workspace=True),
        ),
        (
            About(kind="routine", id=gid("Routine", ROUTINE_ID)),
            Permissions(workspace=True),
            Permissions(agents=frozenset({ROUTINE_ID})),
        ),
        (
            About(kind="workspace"),
            Permissions(workspace=True),
            Permissions(records=frozenset({ACME_ID}), agents=frozenset({AGENT_ID})),
        ),
    ],
    ids=["record", "agent", "routine", "workspace"],
)
def test_own_words_reach_a_shared_page_the_member_may_shape(
    about: About, allowed: Permissions, denied: Permissions
):
    the_candidate = candidate(type="relation", about=about)
    assert shaped(the_candidate, allowed).verdict == "written"
    verdict = shaped(the_candidate, denied)
    assert (verdict.verdict, verdict.reason) == ("refused", "not_permitted")


def test_a_member_absent_from_the_permissions_shapes_nothing_shared():
    refused(candidate(), "not_permitted", permissions={})
    # Their own profile is never restricted.
    mine = candidate("Je préfère le mail", "préférence", About(kind="speaker"))
    assert written(mine, permissions={})[0].page == ALICE_PROFILE


def test_a_private_learning_on_a_colleagues_words_is_never_widened():
    bobs = candidate(stated_by=BOB)
    refused(
        bobs,
        "not_permitted",
        item=item(speaker=BOB),
        permissions={BOB_ID: Permissions(records=frozenset({ACME_ID}))},
    )
    # Kept private, it stays allowed: the owner's own profile.
    bobs_rule = candidate("Écrire à John en anglais", "consigne", stated_by=BOB)
    assert written(bobs_rule, item=item(speaker=BOB))[0].page == ALICE_PROFILE


def test_a_private_learning_on_an_agents_words_is_never_widened():
    refused(candidate(stated_by=SCOUT), "not_permitted", item=item(speaker=SCOUT))
    own_profile = About(kind="agent", id=gid("Agent", AGENT_ID))
    refused(candidate(type="consigne", about=own_profile, stated_by=SCOUT), "not_permitted")
    kept = candidate("Tutoyer John", "consigne", stated_by=SCOUT)
    assert written(kept, item=item(speaker=SCOUT))[0].page == ALICE_PROFILE


def test_a_private_learning_on_an_outsiders_words_stays_private():
    refused(candidate(stated_by=OUTSIDER), "not_permitted", item=item(speaker=OUTSIDER))
    kept = candidate("Écrire à Carol en anglais", "consigne", stated_by=OUTSIDER)
    assert written(kept, item=item(speaker=OUTSIDER))[0].page == ALICE_PROFILE


def test_another_members_profile_is_never_written_from_a_private_source():
    about_bob = candidate("Bob préfère le mail", "préférence", About(kind="speaker"), BOB)
    verdict = refused(about_bob, "not_permitted", item=item(speaker=BOB))
    assert verdict.page == ("member", BOB_ID)
    refused(
        about_bob.model_copy(update={"stated_by": ALICE}), "not_permitted", item=item(speaker=BOB)
    )


WORKSPACE_ITEM = scope(private=False, owner=None, source_kind="record", source_id=MEETING_ID)


def test_a_workspace_source_applies_the_speakers_permissions():
    bobs = candidate(stated_by=BOB)
    meeting = item(kind="meeting", text="Bob: le DAF décide seul.")
    may = {BOB_ID: Permissions(records=frozenset({ACME_ID}))}
    assert written(bobs, item=meeting, scope=WORKSPACE_ITEM, permissions=may)[0].page == ACME_PAGE
    # Alice's permissions do not lend themselves to Bob's words.
    refused(bobs, "not_permitted", item=meeting, scope=WORKSPACE_ITEM)


def test_the_reader_never_lends_a_members_rights_to_words_code_cannot_place():
    # The reader says Bob stated what Alice's message carries: code cannot place Bob there, so
    # they are words of someone it does not know, refused on a shared page even with Bob's
    # rights; and a meeting that never names Bob lends him nothing either.
    bobs = candidate(stated_by=BOB)
    may = {BOB_ID: Permissions(records=frozenset({ACME_ID}))}
    refused(bobs, "not_permitted", scope=WORKSPACE_ITEM, permissions=may)
    silent = item(kind="meeting", text="Alice: le DAF décide seul.")
    refused(bobs, "not_permitted", item=silent, scope=WORKSPACE_ITEM, permissions=may)
    # Nor does it widen an agent's proposal by saying its person stated it: the agent's words
    # from a private conversation never reach the record's shared page.
    proposal = item(speaker=SCOUT)
    verdict = refused(candidate(stated_by=ALICE), "not_permitted", item=proposal)
    assert verdict.page == ACME_PAGE


def test_a_workspace_source_lets_an_agent_shape_only_its_own_profile():
    own = About(kind="agent", id=gid("Agent", AGENT_ID))
    other = About(kind="agent", id=gid("Agent", OTHER_AGENT_ID))
    rule = candidate("Répondre en français", "consigne", own, SCOUT)
    scouts = item(speaker=SCOUT)
    assert written(rule, item=scouts, scope=WORKSPACE_ITEM)[0].page == AGENT_PROFILE
    other_rule = rule.model_copy(update={"about": other})
    refused(other_rule, "not_permitted", item=scouts, scope=WORKSPACE_ITEM)
    refused(candidate(stated_by=SCOUT), "not_permitted", item=scouts, scope=WORKSPACE_ITEM)


def test_a_workspace_source_gives_an_outsider_no_page():
    refused(candidate(stated_by=OUTSIDER), "not_permitted", scope=WORKSPACE_ITEM)
    workspace_rule = candidate(type="consigne", about=About(kind="workspace"), stated_by=OUTSIDER)
    refused(workspace_rule, "not_permitted", scope=WORKSPACE_ITEM)


def test_a_workspace_source_writes_a_members_profile_only_from_their_own_words():
    about_bob = candidate("Je préfère le mail", "préférence", About(kind="speaker"), BOB)
    verdict, _ = written(about_bob, item=item(speaker=BOB), scope=WORKSPACE_ITEM)
    assert verdict.page == ("member", BOB_ID)
    about_alice = candidate("Alice préfère le mail", "préférence", About(kind="speaker"), BOB)
    refused(about_alice, "not_permitted", scope=WORKSPACE_ITEM)


# A batch: later candidates see the pages as earlier ones left them ---------------------------


def test_a_second_candidate_sees_the_first_ones_line():
    first = candidate("Acme paie à 60 jours", "contexte")
    again = candidate("acme paie à 60 jours.", "contexte")
    decisions = run([(item("i1"), [first]), (item("i2"), [again])])
    one_, two = decisions.verdicts
    assert (one_.verdict, two.verdict) == ("written", "refreshed")
    assert two.key == one_.key and two.page == ACME_PAGE
    assert [line.key for line in decisions.pages[ACME_PAGE]] == [one_.key]


def test_a_later_item_moves_the_day_of_an_earlier_ones_line():
    later = DAY + timedelta(days=3)
    first, again = candidate("Acme paie à 60 jours"), candidate("Acme paie à 60 jours")
    decisions = run(
        [(item("i1"), [first]), (item("i2", at=later), [again])],
        scopes=[scope("i1"), scope("i2", day=later)],
    )
    assert [v.verdict for v in decisions.verdicts] == ["written", "refreshed"]
    [line] = decisions.pages[ACME_PAGE]
    assert line.day == later


def test_a_second_candidate_meets_the_cap_the_first_reached():
    row = page(ACME_PAGE, filler(19))
    decisions = run([(item("i1"), [candidate("Un"), candidate("Deux")])], pages=[row])
    assert [(v.verdict, v.reason) for v in decisions.verdicts] == [
        ("written", None),
        ("refused", "cap_reached"),
    ]
    assert [line.text for line in decisions.pages[ACME_PAGE]][-1] == "Un"
    assert len(decisions.pages[ACME_PAGE]) == 20


def test_pages_hold_only_what_changes():
    decisions = run(
        [(item("i1"), [candidate(log=True)]), (item("i2"), [candidate(type="consigne")])],
        pages=[page(ACME_PAGE, filler(2)), page(WORKSPACE_PROFILE, filler(1))],
    )
    assert list(decisions.pages) == [ALICE_PROFILE]


def test_nothing_in_the_batch_is_changed():
    original = filler(2)
    row = page(ACME_PAGE, original)
    run([(item("i1"), [candidate()])], pages=[row])
    assert row.lines == original and len(row.lines) == 2


def test_the_day_comes_from_the_items_context():
    other_day = date(2026, 9, 30)
    verdict, decisions = written(candidate(), scope=scope(day=other_day))
    assert decisions.pages[ACME_PAGE][0].day == other_day


def test_a_mails_learning_is_its_speakers_only_on_the_speakers_own_line():
    mail = item(kind="mail", text="[1] Bob <bob@x.example>: …\n[2] Alice: …")
    lines = (MailLine(own=False, label="Bob <bob@x.example>"), MailLine(own=True, label="Alice"))
    known = replace(scope(), mail_lines=lines)

    def voice(message: int | None, said: Voice | None = ALICE) -> Voice | None:
        said_by = candidate(stated_by=said).model_copy(update={"message": message})
        return vouched(mail, said_by, known).stated_by

    assert voice(2) == ALICE
    assert voice(1) == Voice(kind="person", id=None, name="Bob <bob@x.example>")
    unnamed = Voice(kind="person", id=None, name=UNTRACED)
    assert voice(None) == voice(0) == voice(3) == unnamed
    # The speaker's own line said to be someone else's: nobody's rights either.
    assert voice(2, Voice(kind="person", id=None, name="Alice")) == Voice(
        kind="person", id=None, name="Alice"
    )
    assert voice(2, None) is None
