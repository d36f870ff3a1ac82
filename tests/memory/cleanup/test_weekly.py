"""The Monday removal's pure rules: Mondays in UTC, the review cutoff against review_day at
every day, what a page keeps and when it is empty."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from uuid import uuid4

from hypothesis import given
from hypothesis import strategies as st

from db.removal import CandidateRow, StoredPage
from resolvers.memory.cleanup.weekly import (
    day_of,
    is_empty,
    is_monday,
    plan_page,
    review_before,
)
from resolvers.memory.content import MISSION_HEADING
from resolvers.memory.grammar import review_day
from tests.memory.cleanup.removal_world import blank, heading, line, mission


def test_a_monday_is_a_monday_in_utc():
    assert is_monday(datetime(2026, 11, 2, 0, 0, tzinfo=UTC))
    assert is_monday(datetime(2026, 11, 2, 23, 59, tzinfo=UTC))
    assert not is_monday(datetime(2026, 11, 1, 23, 59, tzinfo=UTC))
    assert not is_monday(datetime(2026, 11, 3, 0, 0, tzinfo=UTC))
    # Monday 00:30 in Paris is still Sunday in UTC; Sunday 23:30 in New York is Monday.
    assert not is_monday(datetime(2026, 11, 2, 0, 30, tzinfo=timezone(timedelta(hours=1))))
    assert is_monday(datetime(2026, 11, 1, 23, 30, tzinfo=timezone(timedelta(hours=-5))))


def test_the_day_runs_from_midnight_to_midnight_utc():
    start, end = day_of(datetime(2026, 11, 2, 15, 0, tzinfo=timezone(timedelta(hours=2))))
    assert (start, end) == (
        datetime(2026, 11, 2, tzinfo=UTC),
        datetime(2026, 11, 3, tzinfo=UTC),
    )


def test_the_review_cutoff_at_its_boundary():
    # A contexte of 2026-05-01 is reviewed on 2026-11-01: passed on Monday 2026-11-02; one of
    # 2026-05-02 is reviewed that Monday: not passed yet.
    assert review_before(date(2026, 11, 2)) == date(2026, 5, 2)
    # Month ends: on 2027-02-28 the contexts of 2026-08-28 to 08-31 are all reviewed that day.
    assert review_before(date(2027, 2, 28)) == date(2026, 8, 28)
    assert review_before(date(2027, 3, 1)) == date(2026, 9, 1)


@given(st.dates(date(2001, 1, 1), date(2099, 1, 1)), st.integers(-400, 400))
def test_the_cutoff_splits_the_days_exactly_as_review_day_does(today, offset):
    day = today - timedelta(days=200 + offset)
    assert (review_day(day) < today) == (day < review_before(today))


def test_headings_and_blank_lines_alone_make_an_empty_page():
    assert is_empty([], "record")
    assert is_empty([heading("## Contacts"), blank()], "record")
    assert not is_empty([heading("## Contacts"), line("Claire decides")], "record")


def test_the_mission_keeps_the_workspace_profile_even_without_text():
    assert not is_empty([heading(MISSION_HEADING), mission("Serve the customers")], "workspace")
    assert not is_empty([heading(MISSION_HEADING), blank()], "workspace")
    # Elsewhere the heading is a heading like any other.
    assert is_empty([heading(MISSION_HEADING)], "record")


def _candidate(page_id, found, reason="ended"):  # type: ignore[no-untyped-def]
    return CandidateRow(page_id, found.key, found.text, reason)


def test_a_page_keeps_every_line_but_those_taken_in_order():
    page_id = uuid4()
    first, second, third = line("one"), line("two"), line("three")
    page = StoredPage(page_id, "record", None, [heading("## A"), first, second, blank(), third])
    plan = plan_page(page, {second.key: _candidate(page_id, second)})  # type: ignore[dict-item]
    assert plan is not None
    assert [x.text for x in plan.lines] == ["## A", "one", "", "three"]
    assert [c.text for c in plan.removed] == ["two"]
    assert not plan.emptied and plan.audience is None


def test_a_page_left_with_headings_only_is_emptied_and_a_human_line_is_never_taken():
    page_id, member = uuid4(), uuid4()
    gone, human = line("gone"), line("mine", human=True)
    taken = {gone.key: _candidate(page_id, gone), human.key: _candidate(page_id, human)}
    plan = plan_page(StoredPage(page_id, "member", member, [heading("## A"), gone]), taken)  # type: ignore[arg-type]
    assert plan is not None and plan.emptied and plan.lines == [] and plan.audience == member
    assert plan_page(StoredPage(page_id, "member", member, [human]), taken) is None  # type: ignore[arg-type]
