"""Who may shape a shared page (resolvers/memory/dreamer/sharing.py), permission by page kind.
Whole cases through ``decide`` are in test_verdicts.py."""

from __future__ import annotations

from uuid import uuid4

from resolvers.memory.dreamer.context import Permissions
from resolvers.memory.dreamer.sharing import may_shape, owns
from tests.memory.dreamer.verdict_world import ALICE_ID, BOB_ID, scope

RECORD, AGENT = uuid4(), uuid4()


def test_each_page_kind_asks_its_own_permission():
    records = Permissions(records=frozenset({RECORD}))
    agents = Permissions(agents=frozenset({AGENT}))
    settings = Permissions(workspace=True)
    assert may_shape(records, ("record", RECORD))
    assert not may_shape(records, ("record", uuid4()))
    assert not may_shape(settings, ("record", RECORD))
    assert may_shape(agents, ("agent", AGENT)) and not may_shape(settings, ("agent", AGENT))
    assert may_shape(settings, ("routine", uuid4())) and not may_shape(agents, ("routine", AGENT))
    assert may_shape(settings, ("workspace", None)) and not may_shape(records, ("workspace", None))
    # A member's profile is no shared page anyone shapes by permission.
    assert not may_shape(
        Permissions(records=frozenset({ALICE_ID}), workspace=True), ("member", ALICE_ID)
    )


def test_only_the_owners_own_profile_is_theirs():
    assert owns(("member", ALICE_ID), scope())
    assert not owns(("member", BOB_ID), scope())
    assert not owns(("member", ALICE_ID), scope(owner=None))
    assert not owns(("agent", ALICE_ID), scope())
