"""Edges of turns and search found in review: concurrent first reads of a message agree, a
search finds an email or a host as written, and the search route checks `first` itself."""

from __future__ import annotations

import asyncio

import pytest

from resolvers.common import ids
from tests.factories import gql, load_records, make_page

TURN = """query($input: TurnInput!) { turnContext(input: $input) {
  replayed text cards { souvenirs { key } } budget { used } } }"""
SEARCH = "query($q: String!) { search(q: $q) { total hits { title snippet } } }"


async def test_concurrent_first_reads_of_a_message_answer_the_same_cards(client, pool, ws):
    [acme] = await load_records(pool, ws.tokens["member"], [{"object": "companies", "label": "A"}])
    content = "\n".join(f"- Fact {i} — Claire, 2026-10-02 [relation]" for i in range(5))
    await make_page(pool, ws, "record", ids.decode(acme, "Record", ws.id), content)
    given = {"message": f"@[A](record:{acme})", "messageId": "m-race", "conversationId": "c-r"}
    answers = await asyncio.gather(
        *(gql(client, ws.tokens["member"], TURN, {"input": given}) for _ in range(4))
    )
    bodies = [a.json()["data"]["turnContext"] for a in answers]
    assert all(b["text"] == bodies[0]["text"] for b in bodies)
    assert all(b["cards"] == bodies[0]["cards"] for b in bodies)
    again = (await gql(client, ws.tokens["member"], TURN, {"input": given})).json()
    assert again["data"]["turnContext"]["replayed"] is True
    assert again["data"]["turnContext"]["text"] == bodies[0]["text"]


@pytest.mark.parametrize(
    "q", ["claire.morel@acme.fr", "CLAIRE.MOREL@ACME.FR", "acme.com", "2.5", "claire"]
)
async def test_an_email_a_host_or_a_decimal_is_found_as_written(client, pool, ws, q):
    [acme] = await load_records(pool, ws.tokens["member"], [{"object": "companies", "label": "A"}])
    line = "- Write to claire.morel@acme.fr about acme.com, 2.5 days late — Claire, 2026-10-02"
    await make_page(pool, ws, "record", ids.decode(acme, "Record", ws.id), line + " [relation]")
    found = (await gql(client, ws.tokens["member"], SEARCH, {"q": q})).json()["data"]["search"]
    assert found["total"] == 1, q


@pytest.mark.parametrize("first", ["²", "9" * 5000, "-1", "1.5", "", "99999"])
async def test_the_search_route_refuses_a_first_that_is_no_small_number(client, ws, first):
    response = await client.get(
        "/v1/search",
        params={"q": "x", "first": first},
        headers={"authorization": f"Bearer {ws.tokens['member']}"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
