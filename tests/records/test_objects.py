"""The satellite rule, computed from the relation graph (DESIGN §2)."""

from datetime import UTC, datetime
from uuid import uuid4

from db.records import AttributeRow, ObjectRow
from resolvers.records.objects import satellites


def obj(slug: str, *targets: str) -> ObjectRow:
    attributes = tuple(
        AttributeRow(slug=f"to_{t}", title=t, type="relation", target=t, principal_rank=None)
        for t in targets
    )
    return ObjectRow(uuid4(), slug, slug, slug, "custom", datetime.now(UTC), attributes)


def test_notes_and_tasks_of_a_crm_are_satellites():
    crm = [
        obj("companies"),
        obj("contacts", "companies"),
        obj("deals", "companies", "contacts"),
        obj("tasks", "deals"),
        obj("notes", "companies"),
    ]
    assert satellites(crm) == {"tasks", "notes"}


def test_an_object_pointed_to_is_no_satellite():
    assert satellites([obj("a"), obj("b", "a"), obj("c", "b")]) == {"c"}


def test_an_object_without_relations_is_no_satellite():
    assert satellites([obj("alone")]) == set()


def test_a_relation_to_itself_alone_makes_no_satellite():
    assert satellites([obj("people", "people")]) == set()


def test_the_rule_follows_the_graph_when_it_changes():
    before = [obj("companies"), obj("deals", "companies")]
    assert satellites(before) == {"deals"}
    after = [*before, obj("tasks", "deals")]
    assert satellites(after) == {"tasks"}
