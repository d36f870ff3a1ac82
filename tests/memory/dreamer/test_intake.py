"""What every source shares on arrival (resolvers/memory/dreamer/intake.py): the status rules
and the input checks, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from uuid import uuid4

import pytest

from resolvers.common import ids
from resolvers.memory.dreamer.intake import (
    AGENT_READ_ANOTHER,
    MAX_CLOCK_AHEAD,
    NO_LINKED_RECORDS,
    RUN_NOT_READ,
    TOO_FEW_MESSAGES,
    WAITING,
    Status,
    conversation_status,
    decode_records,
    external_id_problems,
    meeting_status,
    mentions,
    proposal_item,
    proposal_status,
    run_status,
    text_problems,
    time_problems,
)
from resolvers.memory.dreamer.sources import RunSource


def test_a_conversation_waits_from_its_second_message_or_a_cue():
    assert conversation_status([], False) == Status("not_read", TOO_FEW_MESSAGES)
    assert conversation_status(["Acme pays late."], False) == Status("not_read", TOO_FEW_MESSAGES)
    assert conversation_status(["Acme pays late.", "Really."], False) == WAITING
    assert conversation_status(["Retiens : Acme paie tard."], False) == WAITING
    assert conversation_status(["Remember this.", "And this."], True) == Status(
        "not_read", AGENT_READ_ANOTHER
    )


@pytest.mark.parametrize(
    ("run", "status"),
    [
        (RunSource(), Status("not_read", RUN_NOT_READ)),
        (RunSource(retried=True), WAITING),
        (RunSource(failed_before=True), WAITING),
        (RunSource(answered_after_mission=True), WAITING),
        (
            RunSource(retried=True, conversation_agent_read_another=True),
            Status("not_read", AGENT_READ_ANOTHER),
        ),
        (RunSource(conversation_agent_read_another=True), Status("not_read", AGENT_READ_ANOTHER)),
    ],
)
def test_a_run_waits_when_retried_failed_or_answered(run, status):
    assert run_status(run) == status


def test_a_meeting_waits_for_its_records_and_a_proposal_always():
    assert meeting_status([uuid4()]) == WAITING
    assert meeting_status([]) == Status("not_read", NO_LINKED_RECORDS)
    assert proposal_status(False) == WAITING
    assert proposal_status(True) == Status("not_read", AGENT_READ_ANOTHER)


def test_a_proposals_item_is_its_persons_or_the_workspaces():
    at = datetime(2026, 3, 2, tzinfo=UTC)
    person = uuid4()
    mine = proposal_item(uuid4(), person, at, WAITING)
    assert (mine.owner_kind, mine.owner_id, mine.payer_kind, mine.payer_id) == (
        "member",
        person,
        "member",
        person,
    )
    assert mine.private_to == mine.share_person == person and mine.urgent
    theirs = proposal_item(uuid4(), None, at, WAITING)
    assert (theirs.owner_kind, theirs.payer_kind, theirs.share_person) == (
        "workspace",
        "workspace",
        None,
    )


@pytest.mark.parametrize("value", ["", " ", "x" * 201, "a\nb", "a\x00b", "\ud800"])
def test_an_external_id_is_short_visible_text(value):
    assert [p.field for p in external_id_problems(value, "messageId")] == ["messageId"]


def test_a_good_external_id_and_none_pass():
    assert external_id_problems("x" * 200, "id") == []
    assert external_id_problems(None, "id") == []


def test_a_text_says_something_within_its_cap():
    assert text_problems("x" * 20_000, "text") == []
    assert [p.message for p in text_problems("x" * 20_001, "text")] == ["at most 20000 characters"]
    assert len(text_problems("  \n ", "text")) == 1
    assert len(text_problems("a\x00b", "text")) == 1
    assert len(text_problems("a\ud800b", "text")) == 1
    assert text_problems("tabs\tand\nlines are fine", "text") == []


def test_a_time_carries_its_offset():
    assert time_problems(datetime(2026, 3, 2), "at")[0].field == "at"
    assert time_problems(datetime(2026, 3, 2, tzinfo=timezone(timedelta(hours=1))), "at") == []
    assert time_problems(None, "at") == []


def test_a_time_is_at_most_five_minutes_ahead_of_now(stand):
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    stand(now)
    assert MAX_CLOCK_AHEAD == timedelta(minutes=5)
    assert time_problems(now + MAX_CLOCK_AHEAD, "at") == []
    assert time_problems(datetime(2020, 1, 1, tzinfo=UTC), "at") == []
    [late] = time_problems(now + MAX_CLOCK_AHEAD + timedelta(seconds=1), "heldAt")
    assert (late.field, late.message) == (
        "heldAt",
        "not in the future (at most 5 minutes after now)",
    )
    # The same instant in another offset is the same time.
    tokyo = timezone(timedelta(hours=9))
    assert time_problems(datetime(2026, 3, 2, 18, 5, tzinfo=tokyo), "at") == []
    assert len(time_problems(datetime(2026, 3, 2, 18, 6, tzinfo=tokyo), "at")) == 1


def test_named_records_are_decoded_once_in_order():
    workspace, other = uuid4(), uuid4()
    a, b = uuid4(), uuid4()
    problems: list = []
    gids = [ids.encode("Record", workspace, r) for r in (a, b, a)]
    named = decode_records(workspace, [*gids, "garbage"], "recordIds", problems)
    assert named.ids == [a, b] and not named.missing
    assert [p.field for p in problems] == ["recordIds"]
    elsewhere = decode_records(workspace, [ids.encode("Record", other, a)], "r", problems)
    assert elsewhere.missing and elsewhere.ids == []
    text = f"@[A](record:{gids[0]}) and @[X](record:{ids.encode('Member', workspace, b)})"
    found = mentions(workspace, text, problems)
    assert found.ids == [a] and found.missing
