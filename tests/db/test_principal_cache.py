"""The principal cache's own rules (db/principal_cache.py), without a database: bounded in
size and age, keyed by token hash, dropped by workspace, serving nothing unless listening."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest

from db.events import Listener
from db.identity import PrincipalRow
from db.principal_cache import CHANNEL, PrincipalCache

A, B = uuid.uuid4(), uuid.uuid4()


def row(workspace_id: uuid.UUID) -> PrincipalRow:
    nobody = uuid.uuid4()
    return PrincipalRow(
        workspace_id, "W", nobody, "member", nobody, "M", "m@w.example", nobody, "M", nobody,
        "member", False, False, frozenset(), frozenset(), frozenset(), frozenset(),
    )  # fmt: skip


def digest(n: int) -> str:
    return f"{n:064x}"


@pytest.fixture
def setup() -> tuple[PrincipalCache, Listener, list[float]]:
    listener = Listener("postgresql://nowhere/none")
    listener.connections = 1
    listener.listening.set()
    now = [0.0]
    return PrincipalCache(listener, ttl=5.0, size=3, clock=lambda: now[0]), listener, now


def test_entries_end_with_their_ttl_and_beyond_the_size(setup):
    cache, _, now = setup
    for n in range(4):
        cache.store(digest(n), row(A), 1, 1)
    assert cache.lookup(digest(0)) is None  # the least recently used went first
    assert cache.lookup(digest(1)) is not None
    now[0] = 4.99
    assert cache.lookup(digest(2)) is not None
    now[0] = 5.0
    assert cache.lookup(digest(3)) is None
    assert len(cache.entries) == 2  # ended entries are dropped as they are met


def test_nothing_is_served_or_kept_unless_listening_on_the_same_connection(setup):
    cache, listener, _ = setup
    cache.store(digest(1), row(A), 1, 1)
    listener.listening.clear()
    assert cache.epoch() is None
    assert cache.lookup(digest(1)) is None
    cache.store(digest(2), row(A), 1, 1)
    assert digest(2) not in cache.entries
    listener.listening.set()
    cache.store(digest(3), row(A), 1, 1)
    listener.connections = 2  # listening again: a notification may have been missed
    assert cache.lookup(digest(3)) is None
    cache.store(digest(4), row(A), 1, 1)  # read while connection 1 listened: not kept
    assert digest(4) not in cache.entries


def test_a_notification_drops_its_workspace_only(setup):
    cache, listener, _ = setup
    cache.store(digest(1), row(A), 1, 1)
    cache.store(digest(2), row(B), 1, 1)
    listener.channels[CHANNEL](str(A))
    assert list(cache.entries) == [digest(2)]
    cache.store(digest(1), row(A), 1, 1)
    listener.channels[CHANNEL]("")  # not a workspace (a TRUNCATE): everything goes
    assert cache.entries == {}


def test_an_entry_keeps_its_workspace_and_counter(setup):
    cache, _, _ = setup
    cache.store(digest(7), replace(row(B), workspace_name="Rival"), 42, 1)
    found = cache.lookup(digest(7))
    assert found is not None and found.row.workspace_id == B and found.generation == 42
    assert str(B) in found.prelude
    assert f"app_begin_cached('{B}', '{found.row.token_id}', 42)" in found.prelude
    assert digest(7) not in found.prelude  # the token's hash never goes into statement text
    with pytest.raises(ValueError):
        cache.store("not a digest", row(A), 1, 1)
