"""The door finder: a door whose id nothing names is uncovered (the sweep then fails), and the
doors of today are all named."""

from __future__ import annotations

from graphql import build_schema
from starlette.routing import Route

from gateway.app import routes
from gateway.settings import Settings
from schema.schema import schema
from tests.isolation.doors import Slot, graphql_slots, kind_of, mcp_slots, path_kind, route_slots


def test_a_new_graphql_door_with_an_unnamed_id_is_uncovered():
    new = build_schema(
        """
        type Query { gadget(gadgetId: ID!, label: String): Boolean, record(id: ID!): Record }
        type Record { id: ID! }
        type Mutation { renameGadget(input: GadgetInput!): Boolean }
        input GadgetInput { ownerId: ID, widgetRef: ID!, name: String! }
        """
    )
    assert graphql_slots(new) == [
        Slot("Query.gadget", "gadgetId", None),
        Slot("Query.record", "id", "Record"),
        Slot("Mutation.renameGadget", "input.ownerId", "Member"),
        Slot("Mutation.renameGadget", "input.widgetRef", None),
        Slot("Mutation.renameGadget", "input.name", "-"),
    ]


def test_a_new_route_with_an_unnamed_path_parameter_is_uncovered():
    async def endpoint(request):  # pragma: no cover - never called
        raise AssertionError

    found = route_slots(
        [
            Route("/v1/gadgets/{gadget_id}", endpoint, methods=["GET"]),
            Route("/v1/meetings/{id}", endpoint, methods=["DELETE"]),
        ]
    )
    assert [slot for slot, _, _ in found] == [
        Slot("GET /v1/gadgets/{gadget_id}", "gadget_id", None),
        Slot("DELETE /v1/meetings/{id}", "id", "Meeting"),
    ]
    assert path_kind("GET /x", "/v1/records/{object}/{id}/memory", "id") == "Record"


def test_every_door_of_today_is_named():
    every = [
        *graphql_slots(schema._schema),
        *(slot for slot, _, _ in route_slots(routes(Settings(database_url=None)))),
        *mcp_slots(),
    ]
    assert [slot for slot in every if slot.kind is None] == []
    assert kind_of("Mutation.createAgent", "name") == "-"
    assert {slot.kind for slot in every} >= {"Record", "MemoryPage", "MemoryStore", "Skill"}
