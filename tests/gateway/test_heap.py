"""The serving process settles its heap once started (gateway/heap.py): what exists then is
frozen, so the collector's full passes no longer walk it."""

from __future__ import annotations

import gc

from gateway import heap
from schema.schema import schema


def test_settle_freezes_what_exists_and_leaves_new_objects_to_the_collector():
    try:
        frozen = heap.settle()
        # The modules, the schema, ... (a frozen object may still be freed: counts only drop).
        assert frozen > 10_000 and gc.get_freeze_count() > 10_000
        tracked = {id(o) for o in gc.get_objects()}  # the generations the collector walks
        assert id(schema._schema.type_map) not in tracked
        made_after = {"a request's own": ["garbage"]}
        assert id(made_after) in {id(o) for o in gc.get_objects()}
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0
