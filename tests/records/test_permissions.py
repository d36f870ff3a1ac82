"""The permission matrix (DESIGN §2): role x object x action, the workspace rights, and
private records seen only by their owner and the people they are shared with."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.factories import Workspace, codes, gql, load_records, post_records

# Role -> the factory's token holding it.
ROLE_TOKENS = {"admin": "admin", "member": "member", "viewer": "viewer", "integration": "api_key"}
OBJECTS = ("companies", "contacts", "deals")
PLURALS = {"companies": "Companies", "contacts": "Contacts", "deals": "Deals"}

# Role -> object -> the actions it may take (read, create, update, delete).
FULL = {"read", "create", "update", "delete"}
WRITER = {"read", "create", "update"}
RIGHTS: dict[str, dict[str, set[str]]] = {
    "admin": {o: FULL for o in OBJECTS},
    "member": {o: WRITER for o in OBJECTS},
    "viewer": {o: {"read"} for o in OBJECTS},
    "integration": {"companies": WRITER, "contacts": set(), "deals": set()},
}
MATRIX = [(role, obj) for role in ROLE_TOKENS for obj in OBJECTS]

LIST = (
    "query($object: String!) { records(object: $object) { edges { cursor } "
    "nodes { id label } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }"
)
ONE = "query($id: ID!) { record(id: $id) { label } }"


async def labels(client: httpx.AsyncClient, token: str, obj: str) -> list[str]:
    body = (await gql(client, token, LIST, {"object": obj})).json()
    return [n["label"] for n in body["data"]["records"]["nodes"]]


@pytest.fixture
async def seeded(pool, ws: Workspace) -> dict[str, str]:
    """One record in each object, made by the admin: object -> global id."""
    made = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": obj, "external_id": "seed", "label": f"Seed {obj}"} for obj in OBJECTS],
    )
    return dict(zip(OBJECTS, made, strict=True))


# --- read ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("role", "obj"), MATRIX)
async def test_read(client, ws, seeded, role, obj):
    token = ws.tokens[ROLE_TOKENS[role]]
    response = await gql(client, token, LIST, {"object": obj})
    assert response.status_code == 200
    if "read" in RIGHTS[role][obj]:
        assert [n["label"] for n in response.json()["data"]["records"]["nodes"]] == [f"Seed {obj}"]
        one = await gql(client, token, ONE, {"id": seeded[obj]})
        assert one.json() == {"data": {"record": {"label": f"Seed {obj}"}}}
    else:
        # An object the role cannot read answers exactly like an object that does not exist.
        unknown = await gql(client, token, LIST, {"object": "no_such_object"})
        assert response.json() == unknown.json()
        assert response.json()["data"]["records"]["nodes"] == []
        one = await gql(client, token, ONE, {"id": seeded[obj]})
        missing = await gql(client, token, ONE, {"id": ws.gid(uuid.uuid4())})
        assert codes(one) == ["NOT_FOUND"]
        assert one.json() == missing.json()


async def test_unreadable_unknown_and_empty_objects_look_the_same(pool, client, ws):
    # Contacts and deals hold records; companies (readable by the key) holds none.
    await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "contacts", "label": "Claire"}, {"object": "deals", "label": "Big deal"}],
    )
    key = ws.tokens["api_key"]
    answers = [
        (await gql(client, key, LIST, {"object": obj})).json()
        for obj in ("contacts", "deals", "no_such_object", "companies")
    ]
    assert answers[0] == {
        "data": {
            "records": {
                "edges": [],
                "nodes": [],
                "pageInfo": {
                    "hasNextPage": False,
                    "hasPreviousPage": False,
                    "startCursor": None,
                    "endCursor": None,
                },
            }
        }
    }
    assert all(answer == answers[0] for answer in answers)
    # With a filter too.
    query = (
        'query($object: String!) { records(object: $object, filter: {labelContains: "a"}) '
        "{ nodes { label } } }"
    )
    filtered = [
        (await gql(client, key, query, {"object": obj})).json()
        for obj in ("contacts", "no_such_object")
    ]
    assert filtered == [{"data": {"records": {"nodes": []}}}] * 2


@pytest.mark.parametrize("role", sorted(ROLE_TOKENS))
async def test_objects_show_each_roles_permissions(client, ws, role):
    query = "{ objects { slug permissions { read create update delete } } }"
    body = (await gql(client, ws.tokens[ROLE_TOKENS[role]], query)).json()
    shown = {o["slug"]: o["permissions"] for o in body["data"]["objects"]}
    expected = {
        obj: {action: action in rights for action in ("read", "create", "update", "delete")}
        for obj, rights in RIGHTS[role].items()
        if rights
    }
    assert {slug: shown[slug] for slug in OBJECTS if slug in shown} == expected
    if role == "integration":
        # The key reads companies and nothing else, not even the native objects.
        assert list(shown) == ["companies"]


# --- create and update through the bulk route -------------------------------------------------


async def refusal_for_unknown_object(client: httpx.AsyncClient, token: str) -> dict[str, Any]:
    response = await post_records(client, token, [{"object": "no_such_object", "label": "X"}])
    assert response.status_code == 400
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize(("role", "obj"), MATRIX)
async def test_create(client, ws, seeded, role, obj):
    token = ws.tokens[ROLE_TOKENS[role]]
    before = await labels(client, ws.tokens["admin"], obj)
    response = await post_records(client, token, [{"object": obj, "label": f"New {obj}"}])
    if "create" in RIGHTS[role][obj]:
        assert response.status_code == 200, response.text
        assert response.json()["created"] == 1
        assert response.json()["records"][0]["operation"] == "create"
        assert await labels(client, ws.tokens["admin"], obj) == [*before, f"New {obj}"]
        return
    if "read" in RIGHTS[role][obj]:
        assert response.status_code == 403
        assert response.json() == {
            "error": {
                "code": "FORBIDDEN",
                "message": "Nothing was written: 1 line(s) refused.",
                "problems": [
                    {
                        "message": f"you may not create {PLURALS[obj]}",
                        "line": 1,
                        "code": "FORBIDDEN",
                    }
                ],
            }
        }
    else:
        # An object the role cannot read is refused like an object that does not exist.
        unknown = await refusal_for_unknown_object(client, token)
        assert response.status_code == 400
        assert response.json() == unknown
    assert await labels(client, ws.tokens["admin"], obj) == before


@pytest.mark.parametrize(("role", "obj"), MATRIX)
async def test_update(client, ws, seeded, role, obj):
    token = ws.tokens[ROLE_TOKENS[role]]
    line = {"object": obj, "id": seeded[obj], "label": f"Renamed {obj}"}
    response = await post_records(client, token, [line])
    if "update" in RIGHTS[role][obj]:
        assert response.status_code == 200, response.text
        assert response.json()["updated"] == 1
        assert response.json()["records"] == [{"line": 1, "id": seeded[obj], "operation": "update"}]
        assert await labels(client, ws.tokens["admin"], obj) == [f"Renamed {obj}"]
        return
    if "read" in RIGHTS[role][obj]:
        assert response.status_code == 403
        body = response.json()["error"]
        assert body["code"] == "FORBIDDEN"
        assert body["problems"] == [
            {"message": f"you may not update {PLURALS[obj]}", "line": 1, "code": "FORBIDDEN"}
        ]
    else:
        unknown = await refusal_for_unknown_object(client, token)
        assert response.status_code == 400
        assert response.json() == unknown
    assert await labels(client, ws.tokens["admin"], obj) == [f"Seed {obj}"]


async def test_update_by_external_id_follows_the_same_rights(client, ws, seeded):
    line = {"object": "deals", "external_id": "seed", "label": "Renamed"}
    refused = await post_records(client, ws.tokens["viewer"], [line])
    assert refused.status_code == 403
    assert refused.json()["error"]["problems"][0]["code"] == "FORBIDDEN"
    allowed = await post_records(client, ws.tokens["member"], [line])
    assert allowed.json()["updated"] == 1
    assert await labels(client, ws.tokens["viewer"], "deals") == ["Renamed"]


async def test_every_refused_line_is_listed_and_nothing_is_written(client, ws, seeded):
    lines = [
        {"object": "companies", "label": "Viewer's company"},
        {"object": "deals", "id": seeded["deals"], "label": "Viewer's deal"},
        {"object": "contacts", "external_id": "seed", "label": "Viewer's contact"},
    ]
    response = await post_records(client, ws.tokens["viewer"], lines)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "FORBIDDEN"
    assert error["message"] == "Nothing was written: 3 line(s) refused."
    assert [(p["line"], p["code"]) for p in error["problems"]] == [
        (1, "FORBIDDEN"),
        (2, "FORBIDDEN"),
        (3, "FORBIDDEN"),
    ]
    for obj in OBJECTS:
        assert await labels(client, ws.tokens["admin"], obj) == [f"Seed {obj}"]


async def test_one_forbidden_line_refuses_the_whole_batch(client, pool, ws, seeded):
    # A private company of Other's, not shared with Member: Member may not update it.
    await load_records(
        pool,
        ws.tokens["other"],
        [
            {
                "object": "companies",
                "external_id": "hidden",
                "label": "Hidden",
                "visibility": "private",
            }
        ],
    )
    lines = [
        {"object": "companies", "label": "Fine"},
        {"object": "companies", "external_id": "hidden", "label": "Taken over"},
        {"object": "deals", "id": seeded["deals"], "label": "Also fine"},
    ]
    response = await post_records(client, ws.tokens["member"], lines)
    assert response.status_code == 403
    problems = response.json()["error"]["problems"]
    assert [(p["line"], p["code"]) for p in problems] == [(2, "FORBIDDEN")]
    assert await labels(client, ws.tokens["member"], "companies") == ["Seed companies"]
    assert await labels(client, ws.tokens["other"], "companies") == ["Seed companies", "Hidden"]
    assert await labels(client, ws.tokens["member"], "deals") == ["Seed deals"]


# --- workspace rights ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "update_settings", "skills"),
    [
        ("admin", True, True),
        ("member", False, True),
        ("viewer", False, False),
        ("api_key", False, False),
        ("agent", False, True),
        ("mcp_client", False, True),
    ],
)
async def test_workspace_rights(client, ws, token, update_settings, skills):
    query = "{ me { role { rights { updateSettings createAndUpdateSkills } } } }"
    body = (await gql(client, ws.tokens[token], query)).json()
    assert body["data"]["me"]["role"]["rights"] == {
        "updateSettings": update_settings,
        "createAndUpdateSkills": skills,
    }


# --- private records -------------------------------------------------------------------------

# Who may read Member's private company, shared with Other.
PRIVATE_READERS = {
    "member": True,  # the owner
    "other": True,  # shared with
    "agent": True,  # acts for the owner
    "mcp_client": True,  # acts for the owner
    "admin": False,  # not shared: even an admin
    "viewer": False,
    "api_key": False,  # acts for no person
}


@pytest.fixture
async def private(pool, ws: Workspace) -> dict[str, str]:
    """Member's private company shared with Other, a public company, and a public contact
    pointing to the private company."""
    made = await load_records(
        pool,
        ws.tokens["member"],
        [
            {"object": "companies", "label": "Open Co"},
            {
                "object": "companies",
                "external_id": "secret",
                "label": "Secret Co",
                "visibility": "private",
                "shared_with": ["other@acmecorp.example"],
            },
            {
                "object": "contacts",
                "label": "Claire",
                "relations": {"company": {"external_id": "secret"}},
            },
        ],
    )
    return {"open": made[0], "secret": made[1], "contact": made[2]}


@pytest.mark.parametrize("who", sorted(PRIVATE_READERS))
async def test_private_record_in_lists(client, ws, private, who):
    expected = ["Open Co", "Secret Co"] if PRIVATE_READERS[who] else ["Open Co"]
    assert await labels(client, ws.tokens[who], "companies") == expected
    query = (
        '{ records(object: "companies", filter: {labelContains: "secret"}) { nodes { label } } }'
    )
    found = (await gql(client, ws.tokens[who], query)).json()["data"]["records"]["nodes"]
    assert found == ([{"label": "Secret Co"}] if PRIVATE_READERS[who] else [])


@pytest.mark.parametrize("who", sorted(PRIVATE_READERS))
async def test_private_record_by_id(client, ws, private, who):
    token = ws.tokens[who]
    response = await gql(client, token, ONE, {"id": private["secret"]})
    if PRIVATE_READERS[who]:
        assert response.json() == {"data": {"record": {"label": "Secret Co"}}}
        return
    missing = await gql(client, token, ONE, {"id": ws.gid(uuid.uuid4())})
    assert codes(response) == ["NOT_FOUND"]
    assert response.json()["errors"][0]["message"] == "No record with this id."
    assert response.json() == missing.json()
    assert "Secret" not in response.text


RELATION = """
query($id: ID!) {
  records(object: "contacts") {
    nodes { label relation(attribute: "company") { label } relations { attribute } }
  }
  record(id: $id) { relation(attribute: "company") { label visibility } }
}
"""


@pytest.mark.parametrize("who", sorted(set(PRIVATE_READERS) - {"api_key"}))
async def test_private_record_as_a_relation_target(client, ws, private, who):
    body = (await gql(client, ws.tokens[who], RELATION, {"id": private["contact"]})).json()
    assert "errors" not in body
    if PRIVATE_READERS[who]:
        assert body["data"] == {
            "records": {
                "nodes": [
                    {
                        "label": "Claire",
                        "relation": {"label": "Secret Co"},
                        "relations": [{"attribute": "company"}],
                    }
                ]
            },
            "record": {"relation": {"label": "Secret Co", "visibility": "PRIVATE"}},
        }
    else:
        assert body["data"] == {
            "records": {"nodes": [{"label": "Claire", "relation": None, "relations": []}]},
            "record": {"relation": None},
        }


@pytest.mark.parametrize("who", sorted(set(PRIVATE_READERS) - {"api_key"}))
async def test_related_to_an_unreadable_record_is_like_a_missing_one(client, ws, private, who):
    query = (
        'query($id: ID!) { records(object: "contacts", filter: {relatedTo: $id}) '
        "{ nodes { label } } }"
    )
    body = (await gql(client, ws.tokens[who], query, {"id": private["secret"]})).json()
    missing = (await gql(client, ws.tokens[who], query, {"id": ws.gid(uuid.uuid4())})).json()
    assert missing == {"data": {"records": {"nodes": []}}}
    if PRIVATE_READERS[who]:
        assert body == {"data": {"records": {"nodes": [{"label": "Claire"}]}}}
    else:
        assert body == missing


@pytest.mark.parametrize("who", ["admin", "viewer"])
async def test_private_record_cannot_be_updated_by_id_by_non_readers(client, ws, private, who):
    response = await post_records(
        client, ws.tokens[who], [{"object": "companies", "id": private["secret"], "label": "Mine"}]
    )
    missing = await post_records(
        client,
        ws.tokens[who],
        [{"object": "companies", "id": ws.gid(uuid.uuid4()), "label": "Mine"}],
    )
    assert response.status_code == 404
    assert response.json() == missing.json()
    assert await labels(client, ws.tokens["member"], "companies") == ["Open Co", "Secret Co"]


async def test_a_share_opens_the_record_to_another_member(client, ws, private):
    assert await labels(client, ws.tokens["viewer"], "companies") == ["Open Co"]
    response = await post_records(
        client,
        ws.tokens["member"],
        [
            {
                "object": "companies",
                "id": private["secret"],
                "shared_with": ["other@acmecorp.example", "viewer@acmecorp.example"],
            }
        ],
    )
    assert response.status_code == 200, response.text
    assert await labels(client, ws.tokens["viewer"], "companies") == ["Open Co", "Secret Co"]
    assert await labels(client, ws.tokens["admin"], "companies") == ["Open Co"]
    # Unshared again: gone for Viewer, kept for Other.
    response = await post_records(
        client,
        ws.tokens["member"],
        [
            {
                "object": "companies",
                "id": private["secret"],
                "shared_with": ["other@acmecorp.example"],
            }
        ],
    )
    assert response.status_code == 200
    assert await labels(client, ws.tokens["viewer"], "companies") == ["Open Co"]
    assert await labels(client, ws.tokens["other"], "companies") == ["Open Co", "Secret Co"]


# Who decides who sees a record: its owner, or a role that may update the settings ----------

ACCESS_QUERY = '{ records(object: "companies") { nodes { label visibility } } }'


async def post_access_lines(client, token, lines):
    return await client.post(
        "/v1/records",
        json={"records": lines},
        headers={"authorization": f"Bearer {token}"},
    )


async def company_labels(client, token):
    response = await gql(client, token, ACCESS_QUERY)
    return {n["label"] for n in response.json()["data"]["records"]["nodes"]}


async def test_a_member_it_is_shared_with_cannot_widen_a_private_record(client, ws):
    created = await post_access_lines(
        client,
        ws.tokens["member"],
        [
            {
                "object": "companies",
                "external_id": "secret",
                "label": "Secret co",
                "visibility": "private",
                "shared_with": ["other@acmecorp.example"],
            },
        ],
    )
    assert created.status_code == 200, created.text
    widened = await post_access_lines(
        client,
        ws.tokens["other"],
        [
            {
                "object": "companies",
                "external_id": "secret",
                "visibility": "workspace",
                "shared_with": [],
            },
        ],
    )
    assert widened.status_code == 403
    assert widened.json()["error"]["problems"][0]["code"] == "FORBIDDEN"
    assert "Secret co" not in await company_labels(client, ws.tokens["viewer"])
    assert "Secret co" in await company_labels(client, ws.tokens["other"])


async def test_an_api_key_cannot_hide_a_workspace_record(client, ws):
    assert (
        await post_access_lines(
            client,
            ws.tokens["admin"],
            [
                {"object": "companies", "external_id": "open", "label": "Open co"},
            ],
        )
    ).status_code == 200
    hidden = await post_access_lines(
        client,
        ws.tokens["api_key"],
        [
            {
                "object": "companies",
                "external_id": "open",
                "visibility": "private",
                "owner": "viewer@acmecorp.example",
            },
        ],
    )
    assert hidden.status_code == 403
    assert "Open co" in await company_labels(client, ws.tokens["admin"])


async def test_nobody_creates_a_record_private_to_someone_else(client, ws):
    response = await post_access_lines(
        client,
        ws.tokens["member"],
        [
            {
                "object": "companies",
                "label": "Planted",
                "visibility": "private",
                "owner": "viewer@acmecorp.example",
            },
        ],
    )
    assert response.status_code == 403
    assert "Planted" not in await company_labels(client, ws.tokens["viewer"])


async def test_the_owner_and_a_settings_role_decide_who_sees(client, ws):
    assert (
        await post_access_lines(
            client,
            ws.tokens["member"],
            [
                {
                    "object": "companies",
                    "external_id": "mine",
                    "label": "Mine co",
                    "visibility": "private",
                },
            ],
        )
    ).status_code == 200
    shared = await post_access_lines(
        client,
        ws.tokens["member"],
        [
            {
                "object": "companies",
                "external_id": "mine",
                "shared_with": ["viewer@acmecorp.example"],
            },
        ],
    )
    assert shared.status_code == 200, shared.text
    assert "Mine co" in await company_labels(client, ws.tokens["viewer"])
    assert (
        await post_access_lines(
            client,
            ws.tokens["admin"],
            [
                {
                    "object": "companies",
                    "label": "Handed over",
                    "visibility": "private",
                    "owner": "other@acmecorp.example",
                },
            ],
        )
    ).status_code == 200
    assert "Handed over" in await company_labels(client, ws.tokens["other"])
