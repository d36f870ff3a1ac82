"""The records query: pagination, filters, cursors and global ids that do not parse or do not
fit, the change log, and which objects are satellites."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import httpx
import pytest

from tests.factories import Workspace, codes, gql, load_records, problems, write_lines

PAGE = """
query($first: Int, $after: String) {
  records(object: "companies", first: $first, after: $after) {
    edges { cursor node { id label } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}
"""
FILTERED = """
query($object: String!, $filter: RecordFilter) {
  records(object: $object, filter: $filter) { nodes { label } }
}
"""
ONE = "query($id: ID!) { record(id: $id) { id label } }"


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def filtered(
    client: httpx.AsyncClient, token: str, obj: str, where: dict[str, Any]
) -> list[str]:
    response = await gql(client, token, FILTERED, {"object": obj, "filter": where})
    assert "errors" not in response.json(), response.text
    return [n["label"] for n in response.json()["data"]["records"]["nodes"]]


# --- pagination ------------------------------------------------------------------------------


@pytest.fixture
async def companies45(pool, ws: Workspace) -> list[str]:
    labels = [f"Company {i:02d}" for i in range(45)]
    await load_records(
        pool, ws.tokens["admin"], [{"object": "companies", "label": label} for label in labels]
    )
    return labels


async def test_pagination_walks_every_record_once_in_order(client, ws, companies45):
    token = ws.tokens["member"]
    seen: list[str] = []
    ids: list[str] = []
    after = None
    shapes = []
    for _ in range(3):
        response = await gql(client, token, PAGE, {"first": 20, "after": after})
        connection = response.json()["data"]["records"]
        edges, info = connection["edges"], connection["pageInfo"]
        shapes.append((len(edges), info["hasNextPage"], info["hasPreviousPage"]))
        assert info["startCursor"] == edges[0]["cursor"]
        assert info["endCursor"] == edges[-1]["cursor"]
        seen += [e["node"]["label"] for e in edges]
        ids += [e["node"]["id"] for e in edges]
        after = info["endCursor"]
    assert shapes == [(20, True, False), (20, True, True), (5, False, True)]
    assert seen == companies45
    assert len(set(ids)) == 45
    # Past the end: nothing more.
    last = (await gql(client, token, PAGE, {"first": 20, "after": after})).json()
    assert last["data"]["records"]["edges"] == []
    assert last["data"]["records"]["pageInfo"]["hasNextPage"] is False
    # The same walk again gives the same pages (the order is stable).
    again = (await gql(client, token, PAGE, {"first": 20})).json()
    assert [e["node"]["id"] for e in again["data"]["records"]["edges"]] == ids[:20]


async def test_a_new_record_joins_the_end_without_shifting_pages(client, pool, ws, companies45):
    token = ws.tokens["admin"]
    first = (await gql(client, token, PAGE, {"first": 20})).json()["data"]["records"]
    await load_records(pool, token, [{"object": "companies", "label": "Latecomer"}])
    second = (
        await gql(client, token, PAGE, {"first": 30, "after": first["pageInfo"]["endCursor"]})
    ).json()["data"]["records"]
    labels = [e["node"]["label"] for e in second["edges"]]
    assert labels == [*companies45[20:], "Latecomer"]
    assert second["pageInfo"]["hasNextPage"] is False


@pytest.mark.parametrize(("first", "size", "more"), [(45, 45, False), (44, 44, True), (1, 1, True)])
async def test_page_boundaries(client, ws, companies45, first, size, more):
    connection = (await gql(client, ws.tokens["admin"], PAGE, {"first": first})).json()["data"][
        "records"
    ]
    assert len(connection["edges"]) == size
    assert connection["pageInfo"]["hasNextPage"] is more


async def test_default_page_is_twenty(client, ws, companies45):
    body = (await gql(client, ws.tokens["admin"], PAGE, {})).json()
    assert len(body["data"]["records"]["edges"]) == 20


async def test_first_zero_is_empty(client, ws, companies45):
    connection = (await gql(client, ws.tokens["admin"], PAGE, {"first": 0})).json()["data"][
        "records"
    ]
    assert connection["edges"] == []
    assert connection["pageInfo"]["startCursor"] is None
    assert connection["pageInfo"]["endCursor"] is None
    assert connection["pageInfo"]["hasNextPage"] is True  # 45 records wait after it


@pytest.mark.parametrize("first", [-1, 101, 10_000])
async def test_page_size_out_of_range(client, ws, first):
    response = await gql(client, ws.tokens["admin"], PAGE, {"first": first})
    assert response.status_code == 200
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert [p["field"] for p in problems(response)] == ["first"]
    assert response.json()["data"] is None


async def test_a_cursor_reveals_nothing_of_other_workspaces(client, pool, ws, ws2):
    """A cursor names its record, not a sequence every workspace moves: what others write
    between two records cannot be read from their cursors."""

    async def last_cursor(workspace: Workspace, label: str) -> tuple[str, int]:
        [gid] = await load_records(
            pool, workspace.tokens["admin"], [{"object": "companies", "label": label}]
        )
        response = await gql(client, workspace.tokens["admin"], PAGE, {"first": 100})
        cursor = response.json()["data"]["records"]["pageInfo"]["endCursor"]
        async with pool.acquire() as conn:
            seq = await conn.fetchval(
                "SELECT seq FROM records WHERE id = $1",
                uuid.UUID(hex=base64.urlsafe_b64decode(gid + "==").decode().split(":")[2]),
            )
        return cursor, seq

    first, first_seq = await last_cursor(ws2, "Mine 1")
    await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "label": f"Theirs {n}"} for n in range(3)],
    )
    second, second_seq = await last_cursor(ws2, "Mine 2")
    assert second_seq - first_seq == 4  # the shared sequence moved with the other workspace
    for cursor, seq in ((first, first_seq), (second, second_seq)):
        assert str(seq) not in base64.urlsafe_b64decode(cursor + "==").decode()
    # Still a working cursor: after the first record comes the second, then nothing.
    response = await gql(client, ws2.tokens["admin"], PAGE, {"first": 5, "after": first})
    assert [e["node"]["label"] for e in response.json()["data"]["records"]["edges"]] == ["Mine 2"]
    response = await gql(client, ws2.tokens["admin"], PAGE, {"first": 5, "after": second})
    assert response.json()["data"]["records"]["edges"] == []
    # Another workspace's cursor names no record here: it is a moment, and the page holds this
    # workspace's own records created after it, nothing of the other's.
    response = await gql(client, ws.tokens["admin"], PAGE, {"first": 5, "after": first})
    labels = [e["node"]["label"] for e in response.json()["data"]["records"]["edges"]]
    assert labels == ["Theirs 0", "Theirs 1", "Theirs 2"]


async def test_the_list_goes_on_after_a_cursor_whose_record_was_deleted(client, ws):
    """A cursor names a record and its creation time: once the record is deleted (a skill's
    record is), the next page starts after the last record created no later, instead of ending
    the list."""
    token = ws.tokens["admin"]
    create = 'mutation($n: String!) { createSkill(input: {name: $n, description: "D."}) { name } }'
    for name in ("cursor-a", "cursor-b", "cursor-c", "cursor-d"):
        assert "errors" not in (await gql(client, token, create, {"n": name})).json()
    skills_page = """query($first: Int, $after: String) {
      records(object: "skill", first: $first, after: $after) {
        edges { cursor node { label } } pageInfo { hasNextPage } } }"""
    first = (await gql(client, token, skills_page, {"first": 2})).json()["data"]["records"]
    assert [e["node"]["label"] for e in first["edges"]] == ["cursor-a", "cursor-b"]
    deleted = await gql(client, token, 'mutation { deleteSkill(name: "cursor-b") }')
    assert "errors" not in deleted.json(), deleted.text
    after = first["edges"][-1]["cursor"]
    rest = (await gql(client, token, skills_page, {"first": 5, "after": after})).json()
    assert [e["node"]["label"] for e in rest["data"]["records"]["edges"]] == [
        "cursor-c",
        "cursor-d",
    ]


BAD_CURSORS = {
    "not base64": "not a cursor!",
    "base64 of text": b64(b"hello"),
    "wrong tag": b64(b"offset:3"),
    "negative": b64(b"cursor:-1"),
    "not a number": b64(b"cursor:three"),
    "no position": b64(b"cursor"),
    "too many parts": b64(b"cursor:1:2"),
    "not utf-8": b64(b"\xff\xfe:\x80"),
    "past bigint": b64(b"cursor:99999999999999999999999"),
    "one char": "a",
}


@pytest.mark.parametrize("case", sorted(BAD_CURSORS))
async def test_malformed_cursor(client, ws, companies45, case):
    response = await gql(client, ws.tokens["admin"], PAGE, {"first": 5, "after": BAD_CURSORS[case]})
    assert response.status_code == 200, response.text
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert [p["field"] for p in problems(response)] == ["after"]


# --- filters ---------------------------------------------------------------------------------


@pytest.fixture
async def crm(pool, ws: Workspace) -> list[str]:
    """Companies with values, and contacts and deals pointing to them."""
    return await load_records(
        pool,
        ws.tokens["admin"],
        [
            {
                "object": "companies",
                "external_id": "acme",
                "label": "ACME Corp",
                "values": {"industry": "Software", "employees": 50},
            },
            {
                "object": "companies",
                "external_id": "globex",
                "label": "Globex",
                "values": {"industry": "Energy", "employees": 50},
            },
            {
                "object": "companies",
                "label": "Initech (an acme subsidiary)",
                "values": {"industry": "Software", "employees": 7},
            },
            {"object": "companies", "label": "100% Juice"},
            {
                "object": "contacts",
                "label": "Claire",
                "relations": {"company": {"external_id": "acme"}},
            },
            {
                "object": "contacts",
                "label": "Bob",
                "relations": {"company": {"external_id": "globex"}},
            },
            {
                "object": "contacts",
                "label": "Dana",
                "relations": {"company": {"external_id": "acme"}},
            },
            {"object": "contacts", "label": "Eve"},
            {
                "object": "deals",
                "label": "Acme renewal",
                "relations": {"company": {"external_id": "acme"}},
            },
        ],
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("acme", ["ACME Corp", "Initech (an acme subsidiary)"]),
        ("AcMe", ["ACME Corp", "Initech (an acme subsidiary)"]),
        ("GLOBEX", ["Globex"]),
        ("%", ["100% Juice"]),  # a literal, not a LIKE pattern
        ("_", []),
        ("nothing like it", []),
    ],
)
async def test_label_contains_ignores_case(client, ws, crm, text, expected):
    assert await filtered(client, ws.tokens["viewer"], "companies", {"labelContains": text}) == (
        expected
    )


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (
            [{"attribute": "industry", "equals": "Software"}],
            ["ACME Corp", "Initech (an acme subsidiary)"],
        ),
        ([{"attribute": "industry", "equals": "software"}], []),
        ([{"attribute": "employees", "equals": 50}], ["ACME Corp", "Globex"]),
        (
            [
                {"attribute": "industry", "equals": "Software"},
                {"attribute": "employees", "equals": 50},
            ],
            ["ACME Corp"],
        ),
        ([{"attribute": "employees", "equals": "50"}], []),
    ],
)
async def test_values_equal(client, ws, crm, values, expected):
    assert await filtered(client, ws.tokens["viewer"], "companies", {"values": values}) == expected


async def test_filters_combine(client, ws, crm):
    where = {"labelContains": "corp", "values": [{"attribute": "industry", "equals": "Software"}]}
    assert await filtered(client, ws.tokens["viewer"], "companies", where) == ["ACME Corp"]


async def test_an_attribute_listed_twice_is_refused(client, ws, crm):
    where = {
        "values": [
            {"attribute": "industry", "equals": "Software"},
            {"attribute": "industry", "equals": "Energy"},
        ]
    }
    response = await gql(
        client, ws.tokens["viewer"], FILTERED, {"object": "companies", "filter": where}
    )
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert [p["field"] for p in problems(response)] == ["filter.values"]


async def test_related_to_lists_the_records_pointing_to_one(client, ws, crm):
    acme, globex = crm[0], crm[1]
    token = ws.tokens["member"]
    assert await filtered(client, token, "contacts", {"relatedTo": acme}) == ["Claire", "Dana"]
    assert await filtered(client, token, "contacts", {"relatedTo": globex}) == ["Bob"]
    assert await filtered(client, token, "deals", {"relatedTo": acme}) == ["Acme renewal"]
    assert await filtered(client, token, "companies", {"relatedTo": acme}) == []
    # Combined with a label filter.
    assert await filtered(
        client, token, "contacts", {"relatedTo": acme, "labelContains": "an"}
    ) == ["Dana"]
    assert await filtered(client, token, "contacts", {"relatedTo": ws.gid(uuid.uuid4())}) == []


async def test_related_to_must_be_a_record_id(client, ws, crm):
    me = (await gql(client, ws.tokens["member"], "{ me { person { id } } }")).json()
    member_id = me["data"]["me"]["person"]["id"]
    bad = await gql(
        client,
        ws.tokens["member"],
        FILTERED,
        {"object": "contacts", "filter": {"relatedTo": "nonsense"}},
    )
    assert codes(bad) == ["SCHEMA_VALIDATION_FAILED"]
    assert [p["field"] for p in problems(bad)] == ["filter.relatedTo"]
    other_type = await gql(
        client,
        ws.tokens["member"],
        FILTERED,
        {"object": "contacts", "filter": {"relatedTo": member_id}},
    )
    # Another type's id names no record: answered as a missing record is (nothing related).
    assert codes(other_type) == []
    assert other_type.json()["data"]["records"]["nodes"] == []


# --- global ids ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad", ["nonsense", "", "=", "a", "UmVjb3Jk", b64(b"Record:zz:zz"), b64(b"Record::"), "é" * 8]
)
async def test_malformed_id_is_a_validation_error(client, ws, bad):
    response = await gql(client, ws.tokens["admin"], ONE, {"id": bad})
    assert response.status_code == 200
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert [p["field"] for p in problems(response)] == ["id"]
    assert response.json()["data"] == {"record": None}


async def test_an_id_of_another_type_is_not_found(client, ws, crm):
    me = (
        await gql(client, ws.tokens["member"], "{ me { person { id } workspace { id } } }")
    ).json()
    for other in (me["data"]["me"]["person"]["id"], me["data"]["me"]["workspace"]["id"]):
        response = await gql(client, ws.tokens["member"], ONE, {"id": other})
        assert codes(response) == ["NOT_FOUND"]
        assert response.json()["data"] == {"record": None}
    # A Member id naming the uuid of a real record is still not a record.
    record_uuid = uuid.UUID(
        base64.urlsafe_b64decode(crm[0] + "=" * (-len(crm[0]) % 4)).decode().split(":")[2]
    )
    response = await gql(client, ws.tokens["member"], ONE, {"id": ws.gid(record_uuid, "Member")})
    assert codes(response) == ["NOT_FOUND"]
    # The genuine id reads.
    good = (await gql(client, ws.tokens["member"], ONE, {"id": crm[0]})).json()
    assert good == {"data": {"record": {"id": crm[0], "label": "ACME Corp"}}}


def tampered(global_id: str) -> list[str]:
    variants = [global_id[:n] for n in (1, 2, 3, 5, len(global_id) // 2, len(global_id) - 1)]
    variants += [global_id + extra for extra in ("A", "==", "AAAA", "!")]
    for position in range(len(global_id)):
        char = global_id[position]
        flipped = "B" if char == "A" else "A"
        variants.append(global_id[:position] + flipped + global_id[position + 1 :])
    return variants


async def test_tampered_ids_never_fail_the_server(client, ws, crm):
    genuine = crm[0]
    seen = set()
    for variant in tampered(genuine):
        response = await gql(client, ws.tokens["admin"], ONE, {"id": variant})
        assert response.status_code == 200, (variant, response.text)
        found = codes(response)
        seen.update(found)
        if not found:
            # Only another spelling of the same bytes (surplus padding, a character base64
            # ignores) may read, and then it reads the original record, under its own id.
            assert base64.urlsafe_b64decode(variant + "=" * (-len(variant) % 4)) == (
                base64.urlsafe_b64decode(genuine + "=" * (-len(genuine) % 4))
            ), variant
            assert response.json()["data"]["record"]["id"] == genuine
            continue
        assert found in (["SCHEMA_VALIDATION_FAILED"], ["NOT_FOUND"]), (variant, response.text)
        assert response.json()["data"] == {"record": None}
    assert seen == {"SCHEMA_VALIDATION_FAILED", "NOT_FOUND"}


# --- the change log --------------------------------------------------------------------------

HISTORY = """
query($id: ID!) {
  record(id: $id) {
    label values
    lastChange { actorKind actorName operation fields }
    changes { operation actorName fields }
  }
}
"""


async def test_change_log_records_create_then_update(client, ws):
    created = await write_lines(
        client,
        ws.tokens["member"],
        [
            {
                "object": "companies",
                "external_id": "acme",
                "label": "Acme",
                "values": {"industry": "Software", "domain": "https://acme.example"},
            }
        ],
    )
    record_id = created["records"][0]["id"]
    updated = await write_lines(
        client,
        ws.tokens["admin"],
        [{"object": "companies", "id": record_id, "values": {"industry": "Robotics"}}],
    )
    assert updated["records"] == [{"line": 1, "id": record_id, "operation": "update"}]
    record = (await gql(client, ws.tokens["viewer"], HISTORY, {"id": record_id})).json()["data"][
        "record"
    ]
    assert record["values"] == {"industry": "Robotics", "domain": "https://acme.example"}
    assert record["lastChange"] == {
        "actorKind": "member",
        "actorName": "Admin",
        "operation": "update",
        "fields": ["industry"],
    }
    assert record["changes"] == [
        {"operation": "update", "actorName": "Admin", "fields": ["industry"]},
        {"operation": "create", "actorName": "Member", "fields": ["label", "domain", "industry"]},
    ]


async def test_an_identical_write_logs_nothing(client, ws):
    line = {
        "object": "companies",
        "external_id": "same",
        "label": "Same",
        "values": {"employees": 3},
    }
    record_id = (await write_lines(client, ws.tokens["member"], [line]))["records"][0]["id"]
    again = await write_lines(client, ws.tokens["member"], [line])
    assert again["records"] == [{"line": 1, "id": record_id, "operation": "unchanged"}]
    assert again["unchanged"] == 1
    record = (await gql(client, ws.tokens["member"], HISTORY, {"id": record_id})).json()["data"][
        "record"
    ]
    assert [c["operation"] for c in record["changes"]] == ["create"]


async def test_change_log_lists_label_relation_and_removed_value(client, ws):
    made = await write_lines(
        client,
        ws.tokens["admin"],
        [
            {"object": "companies", "external_id": "a", "label": "A"},
            {"object": "companies", "external_id": "b", "label": "B"},
            {
                "object": "contacts",
                "external_id": "c",
                "label": "Claire",
                "values": {"email": "claire@a.example"},
                "relations": {"company": {"external_id": "a"}},
            },
        ],
    )
    contact = made["records"][2]["id"]
    await write_lines(
        client,
        ws.tokens["agent"],
        [
            {
                "object": "contacts",
                "id": contact,
                "label": "Claire D.",
                "values": {"email": None},
                "relations": {"company": {"external_id": "b"}},
            }
        ],
    )
    record = (await gql(client, ws.tokens["admin"], HISTORY, {"id": contact})).json()["data"][
        "record"
    ]
    assert record["values"] == {}
    assert record["lastChange"] == {
        "actorKind": "agent",
        "actorName": "Scout",
        "operation": "update",
        "fields": ["label", "email", "company"],
    }
    assert [c["operation"] for c in record["changes"]] == ["update", "create"]
    assert record["changes"][1]["fields"] == ["label", "email", "company"]


async def test_changes_page_size(client, ws):
    record_id = (
        await write_lines(client, ws.tokens["admin"], [{"object": "companies", "label": "X"}])
    )["records"][0]["id"]
    for n in range(3):
        await write_lines(
            client, ws.tokens["admin"], [{"object": "companies", "id": record_id, "label": f"X{n}"}]
        )
    query = "query($id: ID!, $n: Int!) { record(id: $id) { changes(first: $n) { operation } } }"
    two = (await gql(client, ws.tokens["admin"], query, {"id": record_id, "n": 2})).json()
    assert two["data"]["record"]["changes"] == [{"operation": "update"}] * 2
    every = (await gql(client, ws.tokens["admin"], query, {"id": record_id, "n": 100})).json()
    assert len(every["data"]["record"]["changes"]) == 4
    too_many = await gql(client, ws.tokens["admin"], query, {"id": record_id, "n": 101})
    assert codes(too_many) == ["SCHEMA_VALIDATION_FAILED"]


# --- objects ---------------------------------------------------------------------------------

SATELLITES = {
    "companies": False,
    "contacts": False,
    "deals": False,  # pointed to by tasks
    "notes": True,
    "tasks": True,
    "skill": False,
    "memory": False,
    "meeting": False,
    "mail": False,
    "drive": False,
    "artifact": False,
    "memory_store": False,
}


@pytest.mark.parametrize("who", ["admin", "viewer"])
async def test_objects_and_satellites(client, ws, who):
    body = (await gql(client, ws.tokens[who], "{ objects { slug satellite } }")).json()
    shown = {o["slug"]: o["satellite"] for o in body["data"]["objects"]}
    assert shown == SATELLITES
    assert [o["slug"] for o in body["data"]["objects"]] == sorted(SATELLITES)


async def test_satellite_is_judged_on_every_object_not_only_readable_ones(client, ws):
    # The key reads companies only; companies stays a non-satellite (notes point to it).
    body = (await gql(client, ws.tokens["api_key"], "{ objects { slug satellite } }")).json()
    assert body["data"]["objects"] == [{"slug": "companies", "satellite": False}]


@pytest.mark.parametrize(
    "literal", ["100000000000000000000000000", "-100000000000000000000000000", "1e400"]
)
async def test_an_out_of_range_number_in_a_filter_is_not_a_server_error(client, ws, crm, literal):
    query = (
        '{ records(object: "companies", filter: {values: [{attribute: "employees", equals: '
        + literal
        + "}]}) { nodes { label } } }"
    )
    response = await gql(client, ws.tokens["viewer"], query)
    assert response.status_code == 200, response.text
    if codes(response):
        assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
        assert [p["field"] for p in problems(response)] == ["filter.values"]
    else:
        assert response.json()["data"]["records"]["nodes"] == []
