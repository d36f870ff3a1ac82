"""The bulk record route (POST /v1/records) and the resolver behind it: create or update,
the change log, relations, body forms, and all-or-nothing refusals listing every problem."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

import asyncpg
import httpx
import orjson
import pytest

from resolvers.common import ids
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import principal_for_token
from resolvers.records.lines import MAX_LINES
from resolvers.records.write import write_records
from tests.factories import Workspace, gql, load_records, post_records

ACME = {
    "object": "companies",
    "external_id": "acme",
    "label": "Acme",
    "values": {"domain": "https://acme.example", "industry": "Manufacturing", "employees": 1200},
}
GLOBEX = {
    "object": "companies",
    "external_id": "globex",
    "label": "Globex",
    "values": {"domain": "https://globex.example", "employees": 5400},
}
CLAIRE = {
    "object": "contacts",
    "external_id": "claire",
    "label": "Claire Morel",
    "values": {"email": "claire@acme.example"},
    "relations": {"company": {"external_id": "acme"}},
}


async def footprint(pool: asyncpg.Pool, ws: Workspace) -> dict[str, int]:
    """How many rows of each record table the workspace has (read as the superuser)."""
    async with pool.acquire() as conn:
        return {
            table: await conn.fetchval(
                f"SELECT count(*) FROM {table} WHERE workspace_id = $1",  # noqa: S608
                ws.id,
            )
            for table in ("records", "record_links", "record_changes")
        }


EMPTY = {"records": 0, "record_links": 0, "record_changes": 0}


async def changes(pool: asyncpg.Pool, ws: Workspace, gid: str) -> list[tuple[str, list[str]]]:
    """A record's change log, oldest first: (operation, fields)."""
    local = ids.decode(gid, "Record", ws.id)
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT operation, fields FROM record_changes"
            " WHERE workspace_id = $1 AND record_id = $2 ORDER BY id",
            ws.id,
            local,
        )
    return [(r["operation"], list(r["fields"])) for r in rows]


async def record_row(pool: asyncpg.Pool, ws: Workspace, gid: str) -> asyncpg.Record:
    local = ids.decode(gid, "Record", ws.id)
    async with pool.acquire() as conn:
        return await conn.fetchrow(
            'SELECT label, "values", visibility, owner_member_id, updated_at FROM records'
            " WHERE workspace_id = $1 AND id = $2",
            ws.id,
            local,
        )


async def links(pool: asyncpg.Pool, ws: Workspace, gid: str) -> dict[str, UUID]:
    local = ids.decode(gid, "Record", ws.id)
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT attribute_slug, target_id FROM record_links"
            " WHERE workspace_id = $1 AND record_id = $2",
            ws.id,
            local,
        )
    return {r["attribute_slug"]: r["target_id"] for r in rows}


def problems_of(response: httpx.Response) -> set[tuple[int | None, str | None]]:
    return {(p.get("line"), p.get("field")) for p in response.json()["error"]["problems"]}


# Creating --------------------------------------------------------------------------------


async def test_create_answers_counts_and_global_ids(client, pool, ws):
    response = await post_records(client, ws.tokens["admin"], [ACME, GLOBEX, CLAIRE])
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["created"], body["updated"], body["unchanged"]) == (3, 0, 0)
    assert [(r["line"], r["operation"]) for r in body["records"]] == [
        (1, "create"),
        (2, "create"),
        (3, "create"),
    ]
    acme, globex, claire = (r["id"] for r in body["records"])
    assert len({acme, globex, claire}) == 3
    # Global ids of this workspace's records, each naming a row that now exists.
    acme_row = await record_row(pool, ws, acme)
    assert acme_row["label"] == "Acme"
    assert acme_row["values"] == ACME["values"]
    assert acme_row["visibility"] == "workspace"
    assert (await record_row(pool, ws, claire))["label"] == "Claire Morel"
    # The relation by external_id reached the record created earlier in the same request.
    assert await links(pool, ws, claire) == {"company": ids.decode(acme, "Record", ws.id)}
    assert await changes(pool, ws, acme) == [
        ("create", ["label", "domain", "employees", "industry"])
    ]
    assert await changes(pool, ws, claire) == [("create", ["label", "email", "company"])]


async def test_created_records_are_readable_through_graphql(client, ws):
    response = await post_records(client, ws.tokens["member"], [ACME, CLAIRE])
    assert response.status_code == 200, response.text
    claire_id = response.json()["records"][1]["id"]
    answer = await gql(
        client,
        ws.tokens["viewer"],
        'query($id: ID!) { record(id: $id) { label relation(attribute: "company") { label }'
        " lastChange { operation actorName fields } } }",
        {"id": claire_id},
    )
    assert answer.json() == {
        "data": {
            "record": {
                "label": "Claire Morel",
                "relation": {"label": "Acme"},
                "lastChange": {
                    "operation": "create",
                    "actorName": "Member",
                    "fields": ["label", "email", "company"],
                },
            }
        }
    }


async def test_private_record_is_owned_by_the_caller_and_shared(client, pool, ws):
    line = {
        "object": "deals",
        "external_id": "secret",
        "label": "Secret deal",
        "visibility": "private",
        "shared_with": ["other@acmecorp.example"],
    }
    response = await post_records(client, ws.tokens["member"], [line])
    assert response.status_code == 200, response.text
    gid = response.json()["records"][0]["id"]
    row = await record_row(pool, ws, gid)
    assert row["visibility"] == "private"
    assert row["owner_member_id"] == ws.members["member"]
    query = "query($id: ID!) { record(id: $id) { label owner { email } } }"
    shared = await gql(client, ws.tokens["other"], query, {"id": gid})
    assert shared.json()["data"]["record"] == {
        "label": "Secret deal",
        "owner": {"email": "member@acmecorp.example"},
    }
    # The admin is neither owner nor shared with: the record does not exist for them.
    hidden = await gql(client, ws.tokens["admin"], query, {"id": gid})
    assert hidden.json()["data"] is None or hidden.json()["data"]["record"] is None
    assert [e["extensions"]["code"] for e in hidden.json()["errors"]] == ["NOT_FOUND"]


# Updating --------------------------------------------------------------------------------


async def test_update_by_external_id_logs_only_the_changed_fields(client, pool, ws):
    [acme] = await load_records(pool, ws.tokens["admin"], [ACME])
    line = {"object": "companies", "external_id": "acme", "values": {"employees": 1300}}
    response = await post_records(client, ws.tokens["member"], [line])
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["created"], body["updated"], body["unchanged"]) == (0, 1, 0)
    assert body["records"] == [{"line": 1, "id": acme, "operation": "update"}]
    row = await record_row(pool, ws, acme)
    # Values not named are kept; the label is kept.
    assert row["label"] == "Acme"
    assert row["values"] == {**ACME["values"], "employees": 1300}
    assert (await changes(pool, ws, acme))[-1] == ("update", ["employees"])
    answer = await gql(
        client,
        ws.tokens["admin"],
        '{ records(object: "companies", filter: {labelContains: "Acme"}) {'
        " nodes { id lastChange { operation actorKind fields } } } }",
    )
    assert answer.json()["data"]["records"]["nodes"] == [
        {
            "id": acme,
            "lastChange": {"operation": "update", "actorKind": "member", "fields": ["employees"]},
        }
    ]


async def test_update_by_global_id(client, pool, ws):
    [acme] = await load_records(pool, ws.tokens["admin"], [ACME])
    line = {"object": "companies", "id": acme, "label": "Acme Corp", "values": {"industry": None}}
    response = await post_records(client, ws.tokens["admin"], [line])
    assert response.status_code == 200, response.text
    assert response.json()["records"] == [{"line": 1, "id": acme, "operation": "update"}]
    row = await record_row(pool, ws, acme)
    assert row["label"] == "Acme Corp"
    # A null value removes the value.
    assert row["values"] == {"domain": "https://acme.example", "employees": 1200}
    assert await changes(pool, ws, acme) == [
        ("create", ["label", "domain", "employees", "industry"]),
        ("update", ["label", "industry"]),
    ]
    async with pool.acquire() as conn:
        assert (
            await conn.fetchval("SELECT count(*) FROM records WHERE workspace_id = $1", ws.id) == 1
        )


async def test_resending_the_same_line_is_unchanged_and_logs_nothing(client, pool, ws):
    first = await post_records(client, ws.tokens["admin"], [ACME, CLAIRE])
    assert first.status_code == 200, first.text
    acme, claire = (r["id"] for r in first.json()["records"])
    before = await footprint(pool, ws)
    updated_at = (await record_row(pool, ws, acme))["updated_at"]

    again = await post_records(client, ws.tokens["admin"], [ACME, CLAIRE])
    assert again.status_code == 200, again.text
    body = again.json()
    assert (body["created"], body["updated"], body["unchanged"]) == (0, 0, 2)
    assert body["records"] == [
        {"line": 1, "id": acme, "operation": "unchanged"},
        {"line": 2, "id": claire, "operation": "unchanged"},
    ]
    assert await footprint(pool, ws) == before
    assert (await record_row(pool, ws, acme))["updated_at"] == updated_at


async def test_a_relation_is_repointed_and_cleared_with_null(client, pool, ws):
    await load_records(pool, ws.tokens["admin"], [ACME, GLOBEX])
    response = await post_records(client, ws.tokens["admin"], [CLAIRE])
    claire = response.json()["records"][0]["id"]
    globex_local = (await links(pool, ws, claire))["company"]  # acme for now
    moved = {"object": "contacts", "external_id": "claire", "relations": {"company": None}}

    repoint = {**moved, "relations": {"company": {"external_id": "globex"}}}
    response = await post_records(client, ws.tokens["admin"], [repoint])
    assert response.json()["records"][0]["operation"] == "update"
    assert (await links(pool, ws, claire))["company"] != globex_local
    assert (await changes(pool, ws, claire))[-1] == ("update", ["company"])

    response = await post_records(client, ws.tokens["admin"], [moved])
    assert response.status_code == 200, response.text
    assert response.json()["records"][0]["operation"] == "update"
    assert await links(pool, ws, claire) == {}
    assert (await changes(pool, ws, claire))[-1] == ("update", ["company"])

    # Clearing an empty relation changes nothing.
    response = await post_records(client, ws.tokens["admin"], [moved])
    assert response.json()["records"][0]["operation"] == "unchanged"
    assert len(await changes(pool, ws, claire)) == 3


async def test_a_relation_by_global_id_to_a_record_created_in_the_same_request(client, pool, ws):
    [acme] = await load_records(pool, ws.tokens["admin"], [ACME])
    line = {
        "object": "contacts",
        "label": "Dora",
        "relations": {"company": {"id": acme}},
    }
    response = await post_records(client, ws.tokens["admin"], [line])
    assert response.status_code == 200, response.text
    dora = response.json()["records"][0]["id"]
    assert await links(pool, ws, dora) == {"company": ids.decode(acme, "Record", ws.id)}


# Body forms ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "encode"),
    [
        ("application/json", lambda lines: orjson.dumps(lines)),
        ("application/json", lambda lines: orjson.dumps({"records": lines})),
        ("application/json; charset=utf-8", lambda lines: orjson.dumps(lines)),
        (
            "application/x-ndjson",
            lambda lines: b"\n".join(orjson.dumps(line) for line in lines) + b"\n\n",
        ),
        ("application/jsonl", lambda lines: b"\r\n".join(orjson.dumps(line) for line in lines)),
    ],
    ids=["list", "object", "charset", "ndjson", "jsonl"],
)
async def test_body_forms(client, pool, ws, content_type, encode):
    response = await post_records(
        client, ws.tokens["admin"], encode([ACME, GLOBEX, CLAIRE]), content_type
    )
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 3
    assert (await footprint(pool, ws))["records"] == 3


# All or nothing --------------------------------------------------------------------------

GOOD_COMPANIES = [
    {"object": "companies", "external_id": f"good-{n}", "label": f"Good {n}"} for n in range(3)
]

# kind -> (token, a bad line builder numbered n, the field each bad line is reported on)
BAD_LINES: dict[str, tuple[str, Any, str]] = {
    "unknown attribute": (
        "admin",
        lambda n: {"object": "companies", "label": f"X{n}", "values": {"revenue": 1}},
        "values.revenue",
    ),
    "wrong type": (
        "admin",
        lambda n: {"object": "companies", "label": f"X{n}", "values": {"employees": "many"}},
        "values.employees",
    ),
    "unknown object": (
        "admin",
        lambda n: {"object": "planets", "label": f"X{n}"},
        "object",
    ),
    "missing label on create": (
        "admin",
        lambda n: {"object": "companies", "external_id": f"nolabel-{n}"},
        "label",
    ),
    "bad relation target": (
        "admin",
        lambda n: {
            "object": "contacts",
            "label": f"X{n}",
            "relations": {"company": {"external_id": "ghost"}},
        },
        "relations.company",
    ),
    "private without owner (api key)": (
        "api_key",
        lambda n: {"object": "companies", "label": f"X{n}", "visibility": "private"},
        "owner",
    ),
    "unknown shared_with email": (
        "admin",
        lambda n: {
            "object": "companies",
            "label": f"X{n}",
            "visibility": "private",
            "shared_with": ["nobody@nowhere.example"],
        },
        "shared_with.0",
    ),
    "extra unknown key": (
        "admin",
        lambda n: {"object": "companies", "label": f"X{n}", "colour": "red"},
        "colour",
    ),
}


@pytest.mark.parametrize("kind", list(BAD_LINES))
async def test_two_bad_lines_refuse_the_whole_request(client, pool, ws, kind):
    token, bad, field = BAD_LINES[kind]
    good = GOOD_COMPANIES
    lines = [good[0], bad(2), good[1], good[2], bad(5)]
    response = await post_records(client, ws.tokens[token], lines)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "SCHEMA_VALIDATION_FAILED"
    assert "2 line(s) refused" in error["message"]
    assert problems_of(response) == {(2, field), (5, field)}
    assert all(p["message"] for p in error["problems"])
    assert await footprint(pool, ws) == EMPTY
    listed = await gql(
        client, ws.tokens["admin"], '{ records(object: "companies") { nodes { id } } }'
    )
    assert listed.json()["data"]["records"]["nodes"] == []


async def test_every_problem_of_every_line_is_listed_at_once(client, pool, ws):
    lines = [GOOD_COMPANIES[0]]
    expected = set()
    for token, bad, field in BAD_LINES.values():
        if token != "admin":
            continue
        lines.append(bad(len(lines) + 1))
        expected.add((len(lines), field))
    lines += GOOD_COMPANIES[1:]
    # One line with several problems reports each of them.
    lines.append(
        {
            "object": "companies",
            "label": "",
            "values": {"employees": "x", "domain": "ftp://a.example", "nope": 1},
        }
    )
    n = len(lines)
    expected |= {(n, "label"), (n, "values.employees"), (n, "values.domain"), (n, "values.nope")}

    response = await post_records(client, ws.tokens["admin"], lines)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert problems_of(response) == expected
    assert await footprint(pool, ws) == EMPTY


async def test_a_memory_line_is_refused_as_a_system_entity(client, pool, ws):
    lines = [GOOD_COMPANIES[0], {"object": "memory", "label": "Remember me"}]
    response = await post_records(client, ws.tokens["admin"], lines)
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error["code"] == "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"
    assert [(p["line"], p["field"], p["code"]) for p in error["problems"]] == [
        (2, "object", "SCHEMA_SYSTEM_ENTITY_IMMUTABLE")
    ]
    assert await footprint(pool, ws) == EMPTY


async def test_concurrent_creates_of_one_external_id_create_once_then_update(client, pool, ws):
    """Four requests at once creating the same new external id: one creates, the others update
    it (each on its own connection, as the route runs them), none fails."""
    for round_ in range(5):
        external = f"race-{round_}"
        lines = [
            [{"object": "companies", "external_id": external, "label": f"Race {n}"}]
            for n in range(4)
        ]
        answers = await asyncio.gather(
            *(post_records(client, ws.tokens["admin"], b) for b in lines)
        )
        assert [a.status_code for a in answers] == [200] * 4, [a.text for a in answers]
        results = [a.json()["records"][0] for a in answers]
        assert sorted(r["operation"] for r in results) == ["create", "update", "update", "update"]
        assert len({r["id"] for r in results}) == 1
        logged = await changes(pool, ws, results[0]["id"])
        assert sorted(op for op, _ in logged) == ["create", "update", "update", "update"]


@pytest.mark.parametrize("system_object", ["memory", "skill"])
async def test_system_objects_cannot_be_written_even_alone(client, pool, ws, system_object):
    response = await post_records(
        client, ws.tokens["admin"], [{"object": system_object, "label": "X"}]
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"
    assert await footprint(pool, ws) == EMPTY


async def test_the_same_external_id_twice_is_refused(client, pool, ws):
    twice = [ACME, GLOBEX, {**ACME, "label": "Acme again"}]
    response = await post_records(client, ws.tokens["admin"], twice)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert {line for line, _ in problems_of(response)} == {3}
    assert await footprint(pool, ws) == EMPTY


async def test_the_same_existing_record_by_id_and_external_id_is_refused(client, pool, ws):
    [acme] = await load_records(pool, ws.tokens["admin"], [ACME])
    before = await footprint(pool, ws)
    lines = [
        {"object": "companies", "id": acme, "label": "One"},
        {"object": "companies", "external_id": "acme", "label": "Two"},
    ]
    response = await post_records(client, ws.tokens["admin"], lines)
    assert response.status_code == 400, response.text
    assert {line for line, _ in problems_of(response)} == {2}
    assert await footprint(pool, ws) == before
    assert (await record_row(pool, ws, acme))["label"] == "Acme"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"[]", "application/json"),
        (b'{"records": []}', "application/json"),
        (b"", "application/x-ndjson"),
        (b"\n  \n", "application/x-ndjson"),
    ],
    ids=["list", "object", "ndjson", "blank-ndjson"],
)
async def test_no_records_is_a_bad_request(client, ws, body, content_type):
    response = await post_records(client, ws.tokens["admin"], body, content_type)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "SCHEMA_VALIDATION_FAILED"
    assert error["problems"] == [{"message": "no records given", "field": "records"}]


async def test_more_than_a_thousand_lines_is_a_bad_request(client, pool, ws):
    lines = [
        {"object": "companies", "external_id": f"c{n}", "label": f"C{n}"}
        for n in range(MAX_LINES + 1)
    ]
    response = await post_records(client, ws.tokens["admin"], lines)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "SCHEMA_VALIDATION_FAILED"
    assert [p["field"] for p in error["problems"]] == ["records"]
    assert await footprint(pool, ws) == EMPTY


async def test_exactly_a_thousand_lines_are_accepted(client, pool, ws):
    lines = [
        {"object": "companies", "external_id": f"c{n}", "label": f"C{n}"} for n in range(MAX_LINES)
    ]
    response = await post_records(client, ws.tokens["admin"], lines)
    assert response.status_code == 200, response.text
    assert response.json()["created"] == MAX_LINES
    assert (await footprint(pool, ws))["records"] == MAX_LINES


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"not json", "application/json"),
        (b'[{"object": "companies", "label": "A"}', "application/json"),
        (b'{"records": {"object": "companies"}}', "application/json"),
        (b'{"lines": []}', "application/json"),
        (b'"companies"', "application/json"),
        (b'{"object": "companies", "label": "A"}\nnot json\n', "application/x-ndjson"),
    ],
    ids=["garbage", "truncated", "records-not-a-list", "no-records-key", "string", "ndjson"],
)
async def test_a_body_that_is_not_json_records_is_a_bad_request(
    client, pool, ws, body, content_type
):
    response = await post_records(client, ws.tokens["admin"], body, content_type)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert await footprint(pool, ws) == EMPTY


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", None])
async def test_a_wrong_content_type_is_unsupported(client, pool, ws, content_type):
    response = await post_records(client, ws.tokens["admin"], orjson.dumps([ACME]), content_type)
    assert response.status_code == 415, response.text
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    assert await footprint(pool, ws) == EMPTY


@pytest.mark.parametrize("line", [[1], ["companies"], [None]], ids=["int", "str", "null"])
async def test_a_line_that_is_not_an_object_is_reported(client, pool, ws, line):
    response = await post_records(client, ws.tokens["admin"], [ACME, *line])
    assert response.status_code == 400, response.text
    assert {n for n, _ in problems_of(response)} == {2}
    assert await footprint(pool, ws) == EMPTY


async def test_a_record_id_of_another_workspace_is_not_found(client, pool, ws, ws2):
    [foreign] = await load_records(pool, ws2.tokens["admin"], [ACME])
    line = {"object": "companies", "id": foreign, "label": "Hijacked"}
    response = await post_records(client, ws.tokens["admin"], [GLOBEX, line])
    assert response.status_code == 404, response.text
    error = response.json()["error"]
    assert error["code"] == "NOT_FOUND"
    assert error["problems"] == [
        {"message": "no record with this id", "field": "id", "line": 2, "code": "NOT_FOUND"}
    ]
    assert await footprint(pool, ws) == EMPTY
    # The other workspace's record is untouched.
    assert (await record_row(pool, ws2, foreign))["label"] == "Acme"
    assert len(await changes(pool, ws2, foreign)) == 1


async def test_a_relation_to_a_record_of_another_workspace_is_refused(client, pool, ws, ws2):
    [foreign] = await load_records(pool, ws2.tokens["admin"], [ACME])
    line = {"object": "contacts", "label": "Spy", "relations": {"company": {"id": foreign}}}
    response = await post_records(client, ws.tokens["admin"], [line])
    assert response.status_code == 400, response.text
    assert problems_of(response) == {(1, "relations.company")}
    assert await footprint(pool, ws) == EMPTY


async def test_a_role_without_create_rights_is_forbidden(client, pool, ws):
    response = await post_records(client, ws.tokens["viewer"], [ACME])
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "FORBIDDEN"
    assert await footprint(pool, ws) == EMPTY


async def test_an_api_key_cannot_see_objects_outside_its_role(client, pool, ws):
    response = await post_records(client, ws.tokens["api_key"], [GOOD_COMPANIES[0], CLAIRE])
    assert response.status_code == 400, response.text
    assert problems_of(response) == {(2, "object")}
    assert await footprint(pool, ws) == EMPTY


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"object": "companies", "label": "nul\x00byte"}, "label"),
        (
            {"object": "companies", "label": "A", "values": {"industry": "a\x00b"}},
            "values.industry",
        ),
        ({"object": "companies", "label": "A", "external_id": "a\x00"}, "external_id"),
        ({"object": "companies", "label": "A", "owner": "a\x00@b.co"}, "owner"),
        ({"object": "companies", "label": "A", "shared_with": ["\x00"]}, "shared_with.0"),
        (
            {"object": "contacts", "label": "A", "relations": {"company": {"external_id": "\x00"}}},
            "relations.company.external_id",
        ),
    ],
    ids=["label", "value", "external_id", "owner", "shared_with", "relation"],
)
async def test_a_nul_character_is_refused_not_an_internal_error(client, pool, ws, line, field):
    # PostgreSQL cannot store NUL in text or jsonb: this used to answer 500 INTERNAL.
    response = await post_records(client, ws.tokens["admin"], [GOOD_COMPANIES[0], line])
    assert response.status_code == 400, response.text
    assert problems_of(response) == {(2, field)}
    assert await footprint(pool, ws) == EMPTY


@pytest.mark.parametrize("external_id", ["", "x" * 201])
async def test_an_external_id_outside_1_to_200_characters_is_refused(client, pool, ws, external_id):
    # The column's CHECK used to surface as 500 INTERNAL.
    line = {"object": "companies", "external_id": external_id, "label": "A"}
    response = await post_records(client, ws.tokens["admin"], [GOOD_COMPANIES[0], line])
    assert response.status_code == 400, response.text
    assert problems_of(response) == {(2, "external_id")}
    assert await footprint(pool, ws) == EMPTY


async def test_an_external_id_of_200_characters_is_accepted(client, pool, ws):
    line = {"object": "companies", "external_id": "x" * 200, "label": "A"}
    response = await post_records(client, ws.tokens["admin"], [line])
    assert response.status_code == 200, response.text


# Authentication --------------------------------------------------------------------------


async def test_without_a_token_the_answer_is_401_with_a_plain_body(client, pool, ws):
    response = await post_records(client, None, [ACME])
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    body = response.json()
    assert body == {"error": {"code": "UNAUTHENTICATED", "message": body["error"]["message"]}}
    assert body["error"]["message"]


async def test_with_an_unknown_token_the_answer_is_401(client, pool, ws):
    response = await post_records(client, "smk_" + "A" * 43, [ACME])
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    assert await footprint(pool, ws) == EMPTY


# The resolver ----------------------------------------------------------------------------


async def test_a_refusal_leaves_the_callers_transaction_usable(pool, ws):
    """write_records runs in a savepoint: after a refusal the caller can go on and commit."""
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens["admin"])
        assert principal is not None
        with pytest.raises(DomainError) as refused:
            await write_records(conn, principal, [ACME, {"object": "planets", "label": "X"}])
        assert refused.value.code == Code.SCHEMA_VALIDATION_FAILED
        assert [(p.line, p.field) for p in refused.value.problems] == [(2, "object")]
        results = await write_records(conn, principal, [GLOBEX])
        assert [r.operation for r in results] == ["create"]
    footprint_after = await footprint(pool, ws)
    assert footprint_after["records"] == 1
    assert footprint_after["record_changes"] == 1


async def test_the_change_log_names_the_actor(pool, ws):
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens["api_key"])
        assert principal is not None
        [result] = await write_records(conn, principal, [GOOD_COMPANIES[0]])
    local = ids.decode(result.id, "Record", ws.id)
    async with pool.acquire() as conn:
        row = await conn.fetchrow(
            "SELECT actor_kind, actor_name, operation FROM record_changes"
            " WHERE workspace_id = $1 AND record_id = $2",
            ws.id,
            local,
        )
    assert dict(row) == {"actor_kind": "api_key", "actor_name": "sync", "operation": "create"}


async def test_an_integer_beyond_64_bits_is_refused_not_a_crash(pool, ws):
    # JSON lines read by `skillmem load` can carry integers the jsonb encoder refuses.
    line = {"object": "companies", "label": "Big", "values": {"employees": 2**64}}
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens["admin"])
        assert principal is not None
        with pytest.raises(DomainError) as refused:
            await write_records(conn, principal, [line])
    assert [(p.line, p.field) for p in refused.value.problems] == [(1, "values.employees")]
    assert await footprint(pool, ws) == EMPTY
