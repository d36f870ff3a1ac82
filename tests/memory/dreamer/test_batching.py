"""When a pass is due and the reading order (resolvers/memory/dreamer/batching.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from resolvers.memory.dreamer.batching import (
    FULL_BATCH,
    BatchTiming,
    Waiting,
    due_at,
    reading_order,
)

T0 = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)


def _at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def test_the_defaults():
    timing = BatchTiming()
    assert timing.group_wait == timedelta(hours=1)
    assert timing.quick_wait == timedelta(minutes=5)
    assert timing.full_batch == FULL_BATCH == 20


def test_nothing_waiting_is_never_due():
    assert due_at([]) is None


def test_one_plain_item_waits_an_hour():
    assert due_at([Waiting(T0, "conversation")]) == datetime(2025, 3, 10, 10, 0, tzinfo=UTC)


def test_the_hour_counts_from_the_oldest_arrival():
    waiting = [Waiting(_at(30), "run"), Waiting(_at(10), "meeting"), Waiting(_at(50), "mail")]
    assert due_at(waiting) == datetime(2025, 3, 10, 10, 10, tzinfo=UTC)


def test_an_urgent_item_waits_five_minutes():
    waiting = [Waiting(T0, "conversation"), Waiting(_at(20), "conversation", urgent=True)]
    assert due_at(waiting) == datetime(2025, 3, 10, 9, 25, tzinfo=UTC)


def test_a_proposal_marked_urgent_waits_five_minutes():
    assert due_at([Waiting(T0, "proposal", urgent=True)]) == _at(5)


def test_the_earliest_urgent_item_counts():
    waiting = [Waiting(_at(40), "proposal", urgent=True), Waiting(_at(12), "run", urgent=True)]
    assert due_at(waiting) == _at(17)


def test_an_urgent_item_late_in_the_hour_does_not_delay_the_group():
    waiting = [Waiting(T0, "conversation"), Waiting(_at(58), "conversation", urgent=True)]
    assert due_at(waiting) == _at(60)


def test_nineteen_items_still_wait_the_hour():
    waiting = [Waiting(_at(minute), "conversation") for minute in range(19)]
    assert due_at(waiting) == _at(60)


def test_the_twentieth_item_makes_the_pass_due_at_its_arrival():
    waiting = [Waiting(_at(minute), "conversation") for minute in range(20)]
    assert due_at(waiting) == _at(19)


def test_the_twentieth_by_arrival_not_by_list_order():
    waiting = [Waiting(_at(minute), "run") for minute in reversed(range(25))]
    assert due_at(waiting) == _at(19)


def test_the_durations_are_settings():
    timing = BatchTiming(group_wait=timedelta(minutes=30), quick_wait=timedelta(minutes=1))
    assert due_at([Waiting(T0, "meeting")], timing) == _at(30)
    assert due_at([Waiting(T0, "meeting", urgent=True)], timing) == _at(1)
    full = [Waiting(_at(minute), "mail") for minute in range(3)]
    assert due_at(full, BatchTiming(full_batch=3)) == _at(2)


def test_mail_is_read_last_each_group_by_arrival():
    mail_early = Waiting(_at(0), "mail")
    run = Waiting(_at(5), "run")
    meeting = Waiting(_at(3), "meeting")
    conversation = Waiting(_at(9), "conversation")
    mail_late = Waiting(_at(1), "mail")
    ordered = reading_order([mail_late, run, mail_early, conversation, meeting])
    assert ordered == [meeting, run, conversation, mail_early, mail_late]


def test_the_order_is_stable_for_items_arrived_together():
    first = Waiting(T0, "conversation", urgent=True)
    second = Waiting(T0, "run")
    third = Waiting(T0, "meeting")
    assert reading_order([first, second, third]) == [first, second, third]
    assert reading_order([third, first, second]) == [third, first, second]


def test_nothing_waiting_has_no_order():
    assert reading_order([]) == []
