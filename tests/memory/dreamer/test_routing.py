"""Routing's pieces (resolvers/memory/dreamer/routing.py): global ids read back, and the most
specific record a satellite points to. Routing through whole batches is in test_verdicts.py."""

from __future__ import annotations

from resolvers.memory.dreamer.reader import LinkedRecord, Voice
from resolvers.memory.dreamer.routing import actor_of, local_id, member_of, most_specific
from tests.memory.dreamer.verdict_world import (
    AGENT_ID,
    ALICE,
    ALICE_ID,
    BOB_ID,
    OUTSIDER,
    ROUTINE_ID,
    SCOUT,
    WS,
    gid,
)


def linked(*records: LinkedRecord) -> dict[str, LinkedRecord]:
    return {record.id: record for record in records}


def record(name: str, *points_to: str, satellite: bool = False) -> LinkedRecord:
    return LinkedRecord(
        id=name, object="x", label=name, satellite=satellite, points_to=tuple(points_to)
    )


def everything(_: str) -> bool:
    return True


def test_a_global_id_reads_back_only_as_its_own_type_and_workspace():
    assert local_id(gid("Member", ALICE_ID), "Member", WS) == ALICE_ID
    assert local_id(gid("Agent", ALICE_ID), "Member", WS) is None
    assert local_id(gid("Member", ALICE_ID, BOB_ID), "Member", WS) is None
    assert local_id("not an id", "Member", WS) is None
    assert local_id(None, "Member", WS) is None


def test_a_voice_is_a_member_an_agent_a_routine_or_neither():
    assert member_of(ALICE, WS) == ALICE_ID and actor_of(ALICE, WS) is None
    assert member_of(SCOUT, WS) is None and actor_of(SCOUT, WS) == ("agent", AGENT_ID)
    nightly = Voice(kind="agent", id=gid("Routine", ROUTINE_ID), name="Nightly")
    assert member_of(nightly, WS) is None and actor_of(nightly, WS) == ("routine", ROUTINE_ID)
    assert member_of(OUTSIDER, WS) is None and actor_of(OUTSIDER, WS) is None
    assert member_of(None, WS) is None and actor_of(None, WS) is None
    impostor = Voice(kind="person", id=gid("Agent", ALICE_ID), name="Eve")
    assert member_of(impostor, WS) is None


def test_the_most_specific_is_the_one_reaching_the_most_others():
    records = linked(
        record("company"),
        record("contact", "company"),
        record("deal", "contact"),
        record("note", "company", "contact", "deal", satellite=True),
    )
    assert most_specific("note", records, everything) == "deal"
    assert most_specific("note", records, lambda found: found != "deal") == "contact"
    assert most_specific("note", records, lambda found: found == "company") == "company"
    assert most_specific("note", records, lambda found: False) is None


def test_records_not_in_the_batch_count_as_unrelated():
    records = linked(record("note", "elsewhere", "deal", satellite=True), record("deal"))
    assert most_specific("note", records, everything) == "elsewhere"


def test_satellites_pointing_in_a_circle_end():
    records = linked(
        record("a", "b", satellite=True),
        record("b", "a", "deal", satellite=True),
        record("deal", "contact"),
        record("contact", "deal"),
    )
    assert most_specific("a", records, everything) == "deal"
    assert most_specific("a", linked(record("a", "a", satellite=True)), everything) is None
