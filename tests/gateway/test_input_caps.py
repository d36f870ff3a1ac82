"""Hostile sizes are refused with a clear 4xx, never a 500, and never read in full."""

from __future__ import annotations

from gateway.http.graphql import MAX_BODY_BYTES
from gateway.http.records import MAX_RECORDS_BODY_BYTES
from resolvers.records.lines import MAX_NESTING, MAX_SHARES
from resolvers.records.read import MAX_LABEL_FILTER_CHARS, MAX_VALUE_FILTERS
from tests.factories import bearer, codes, gql

FILTERED = """query($where: RecordFilter) {
  records(object: "companies", filter: $where) { nodes { id } }
}"""


async def test_a_graphql_body_past_its_cap_is_413(client, ws):
    padding = " " * (MAX_BODY_BYTES + 1)
    body = '{"query": "{ me { name } }' + padding + '"}'
    response = await client.post(
        "/graphql",
        content=body,
        headers={**bearer(ws.tokens["member"]), "content-type": "application/json"},
    )
    assert response.status_code == 413
    assert codes(response) == ["GRAPHQL_PARSE_FAILED"]


async def test_a_records_body_past_its_cap_is_413(client, ws):
    response = await client.post(
        "/v1/records",
        content=b"[" + b" " * MAX_RECORDS_BODY_BYTES + b"]",
        headers={**bearer(ws.tokens["admin"]), "content-type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"


async def test_filters_have_caps(client, ws):
    ok = await gql(
        client,
        ws.tokens["member"],
        FILTERED,
        {"where": {"labelContains": "x" * MAX_LABEL_FILTER_CHARS}},
    )
    assert ok.json()["data"]["records"]["nodes"] == []
    long = await gql(
        client,
        ws.tokens["member"],
        FILTERED,
        {"where": {"labelContains": "x" * (MAX_LABEL_FILTER_CHARS + 1)}},
    )
    assert codes(long) == ["SCHEMA_VALIDATION_FAILED"]
    many = [{"attribute": f"a{i}", "equals": i} for i in range(MAX_VALUE_FILTERS + 1)]
    too_many = await gql(client, ws.tokens["member"], FILTERED, {"where": {"values": many}})
    assert codes(too_many) == ["SCHEMA_VALIDATION_FAILED"]


async def test_shares_have_a_cap(client, ws):
    emails = [f"nobody{i}@x.example" for i in range(MAX_SHARES + 1)]
    response = await client.post(
        "/v1/records",
        json={
            "records": [
                {
                    "object": "companies",
                    "label": "Wide",
                    "visibility": "private",
                    "shared_with": emails,
                }
            ]
        },
        headers=bearer(ws.tokens["member"]),
    )
    assert response.status_code == 400
    assert any(p["field"] == "shared_with" for p in response.json()["error"]["problems"])


async def test_a_deeply_nested_line_is_refused_not_crashed(client, ws):
    value: object = "leaf"
    for _ in range(900):
        value = {"x": value}
    response = await client.post(
        "/v1/records",
        json={"records": [{"object": "companies", "label": "Deep", "values": {"v": value}}]},
        headers=bearer(ws.tokens["admin"]),
    )
    assert response.status_code == 400
    problems = response.json()["error"]["problems"]
    assert any(p["message"] == "nests too deep" for p in problems)
    assert MAX_NESTING < 900


async def test_a_method_a_route_does_not_answer_is_405_with_a_code(client, ws):
    response = await client.put("/v1/records", headers=bearer(ws.tokens["admin"]))
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"


async def test_each_json_line_that_is_not_json_is_listed(client, ws):
    body = b'{"object": "companies", "label": "A"}\n{not json\n\n{"object": 1\n'
    response = await client.post(
        "/v1/records",
        content=body,
        headers={**bearer(ws.tokens["admin"]), "content-type": "application/x-ndjson"},
    )
    assert response.status_code == 400
    assert [p["line"] for p in response.json()["error"]["problems"]] == [2, 4]
