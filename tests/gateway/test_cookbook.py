"""Seed 000's cookbook, end to end with the default reader: a person asks the agent to remember
something about Acme in a conversation, a few minutes later the Dreamer's pass writes it where
the sharing rule puts it (Acme's page), search finds it over GraphQL and HTTP, Acme's card
shows it, and deleting it by its page and key through the record's memory route removes it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from resolvers.memory.dreamer.passes import PassSettings, run_due
from tests.factories import bearer, company, data, gql

NOON = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)
SAID = "Remember: @[Acme](record:{id}) wants every message in French, addressed to Claire Morel."
LEARNED = "Acme wants every message in French, addressed to Claire Morel."
ITEMS = """{ memoryItems(status: READ) { items { kind status text
  verdicts { verdict reason pageId lineKey text } } } }"""
PAGE = """query($r: ID!) { memoryPageByRecord(recordId: $r) {
  id name kind content souvenirs { key text type author source } } }"""
SEARCH = """{ search(q: "french", objects: [MEMORY, SKILL]) { total hits { object id title
  snippet } } }"""
TURN = """query($m: String!) { turnContext(input: {message: $m}) {
  cards { label souvenirs { key line } profileSouvenirs { key line } } } }"""


async def test_the_cookbook_end_to_end(client, pool, ws, stand):
    member = ws.tokens["member"]
    acme = await company(pool, ws, "Acme")
    stand(NOON)
    said = await client.post(
        "/agents/sessions/c-cookbook/messages",
        json={"messageId": "m1", "role": "user", "text": SAID.format(id=acme)},
        headers=bearer(member),
    )
    assert said.status_code == 201, said.text
    assert said.json()["item"]["status"] == "waiting"

    # Nothing yet: the pass waits a few minutes after a remember-request.
    assert await run_due(pool, NOON + timedelta(minutes=1), PassSettings(), {ws.id}) == []
    later = NOON + timedelta(minutes=6)
    stand(later)
    [report] = await run_due(pool, later, PassSettings(), {ws.id})
    assert (report.read, report.written) == (1, 1)

    # The verdict, visible to the person: written on Acme's page, with its key.
    [item] = data(await gql(client, member, ITEMS))["memoryItems"]["items"]
    [verdict] = item["verdicts"]
    assert verdict["verdict"] == "WRITTEN" and verdict["text"] == LEARNED
    page = data(await gql(client, member, PAGE, {"r": acme}))["memoryPageByRecord"]
    assert (page["id"], page["name"], page["kind"]) == (verdict["pageId"], "Acme", "RECORD")
    [souvenir] = page["souvenirs"]
    assert souvenir["key"] == verdict["lineKey"]
    assert (souvenir["text"], souvenir["type"], souvenir["author"]) == (
        LEARNED,
        "RELATION",
        "Member",
    )

    # Search finds it, over GraphQL and over HTTP.
    found = data(await gql(client, member, SEARCH))["search"]
    assert [(h["object"], h["id"]) for h in found["hits"]] == [("MEMORY", page["id"])]
    over_http = await client.get(
        "/v1/search", params={"q": "french", "objects": "memory,skill"}, headers=bearer(member)
    )
    assert over_http.status_code == 200, over_http.text
    assert [hit["id"] for hit in over_http.json()["hits"]] == [page["id"]]

    # Acme's card shows it.
    message = f"Write to @[Acme](record:{acme})"
    [card] = data(await gql(client, member, TURN, {"m": message}))["turnContext"]["cards"]
    assert card["label"] == "Acme"
    assert [s["key"] for s in card["souvenirs"]] == [souvenir["key"]]
    assert LEARNED in card["souvenirs"][0]["line"]

    # Deleted by its page and key through the record's memory route.
    deleted = await client.patch(
        f"/v1/records/companies/{acme}/memory",
        json={"pageId": page["id"], "key": souvenir["key"]},
        headers=bearer(member),
    )
    assert deleted.status_code == 200, deleted.text
    after = data(await gql(client, member, SEARCH))["search"]
    assert after["total"] == 0
    [card] = data(await gql(client, member, TURN, {"m": message}))["turnContext"]["cards"]
    assert card["souvenirs"] == []
