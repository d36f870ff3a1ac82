"""The number of SQL statements a request costs does not grow with the page size."""

from __future__ import annotations

import pytest

from resolvers.common import ids
from tests.factories import gql, load_records, make_page, split

RECORDS_WITH_PARENT = """
query($first: Int) {
  records(object: "contacts", first: $first) {
    edges { cursor node { id label values relation(attribute: "company") { id label values } } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


# Ten companies and 120 contacts, each with its company.
COMPANIES_AND_CONTACTS = [
    {"object": "companies", "external_id": f"co{i}", "label": f"Co {i}"} for i in range(10)
] + [
    {
        "object": "contacts",
        "external_id": f"p{i}",
        "label": f"Person {i}",
        "relations": {"company": {"external_id": f"co{i % 10}"}},
    }
    for i in range(120)
]


@pytest.mark.parametrize("first", [1, 20, 100])
async def test_records_with_parent_cost_two_statements(counted, pool, ws, first):
    client, statements = counted
    await load_records(pool, ws.tokens["admin"], COMPANIES_AND_CONTACTS)
    # asyncpg introspects a type the first time a connection meets it: warm the connection.
    await gql(client, ws.tokens["member"], RECORDS_WITH_PARENT, {"first": first})
    statements.clear()
    response = await gql(client, ws.tokens["member"], RECORDS_WITH_PARENT, {"first": first})
    edges = response.json()["data"]["records"]["edges"]
    assert len(edges) == first
    assert all(edge["node"]["relation"]["label"].startswith("Co ") for edge in edges)
    control, data = split(statements)
    # One statement resolves the token and sets the transaction's role and workspace; one
    # fetches the page with each record's readable relations.
    assert len(data) == 2, data
    assert "app_begin_request" in data[0]
    assert len(control) == 2  # BEGIN and COMMIT of the request's transaction


@pytest.mark.parametrize("first", [1, 20, 100])
async def test_records_on_a_cached_principal_cost_one_statement(cached, pool, ws, first):
    await load_records(pool, ws.tokens["admin"], COMPANIES_AND_CONTACTS)
    # The first request resolves the token (and warms the connection); the second hits.
    await gql(cached.client, ws.tokens["member"], RECORDS_WITH_PARENT, {"first": first})
    cached.statements.clear()
    response = await gql(cached.client, ws.tokens["member"], RECORDS_WITH_PARENT, {"first": first})
    assert len(response.json()["data"]["records"]["edges"]) == first
    control, data = split(cached.statements)
    # The page is the request's one statement; the role, the workspace and the principal's
    # freshness go with BEGIN READ ONLY (one round trip: a query that only reads), then COMMIT.
    assert len(data) == 1, data
    assert "app_begin_request" not in data[0]
    assert len(control) == 2, control
    assert control[0].startswith("BEGIN READ ONLY;") and "app_begin_cached" in control[0]
    assert len(cached.statements) == 3


CHANGE_LOGS = """
{
  a: records(object: "contacts", first: 50) { nodes { changes(first: 2) { at fields } } }
  b: records(object: "contacts", first: 50) { nodes { changes(first: 2) { at } } }
  c: records(object: "companies", first: 10) { nodes { changes { operation } } }
}
"""


async def test_change_logs_are_batched(counted, pool, ws):
    client, statements = counted
    lines = [
        {"object": "companies", "external_id": f"co{i}", "label": f"Co {i}"} for i in range(10)
    ]
    lines += [
        {"object": "contacts", "external_id": f"p{i}", "label": f"Person {i}"} for i in range(50)
    ]
    await load_records(pool, ws.tokens["admin"], lines)
    await gql(client, ws.tokens["member"], CHANGE_LOGS)
    statements.clear()
    response = await gql(client, ws.tokens["member"], CHANGE_LOGS)
    data = response.json()["data"]
    assert len(data["a"]["nodes"]) == 50
    assert all(len(node["changes"]) == 1 for node in data["a"]["nodes"])
    _, sent = split(statements)
    # The token, three pages, and one change-log statement per page size asked for (2 and 10).
    assert len(sent) == 1 + 3 + 2, sent


PAGE = "query($id: ID!) { memoryPage(id: $id) { content contentSha256 souvenirs { key line } } }"
EDIT = """
mutation($id: ID!, $content: String!, $base: String) {
  editMemoryPage(pageId: $id, content: $content, baseSha256: $base) { version }
}
"""


def souvenirs(count: int, source: str) -> str:
    return "\n".join(
        f"- Fact {i} about Acme → record:{source} — Claire, 2026-10-02 [relation]"
        for i in range(count)
    )


@pytest.mark.parametrize("count", [1, 20])
async def test_a_page_is_read_in_one_statement_and_edited_in_five_besides_the_token(
    counted, pool, ws, count
):
    client, statements = counted
    [acme, deal] = await load_records(
        pool,
        ws.tokens["admin"],
        [
            {"object": "companies", "label": "Acme"},
            {"object": "deals", "label": "Secret", "visibility": "private"},
        ],
    )
    page = await make_page(
        pool, ws, "record", ids.decode(acme, "Record", ws.id), souvenirs(count, deal)
    )
    await gql(client, ws.tokens["member"], PAGE, {"id": page})
    statements.clear()
    read = (await gql(client, ws.tokens["member"], PAGE, {"id": page})).json()["data"]
    assert len(read["memoryPage"]["souvenirs"]) == count
    _, sent = split(statements)
    # The token, then the page with its lines and what this reader sees of their sources.
    assert len(sent) == 2, sent

    # A first edit warms the connection (asyncpg introspects the array types once).
    content = read["memoryPage"]["content"] + "\n- One more thing [contexte]"
    await gql(client, ws.tokens["member"], EDIT, {"id": page, "content": content})
    statements.clear()
    edited = await gql(
        client,
        ws.tokens["member"],
        EDIT,
        {"id": page, "content": content + "\n- And another [relation]"},
    )
    assert edited.json()["data"]["editMemoryPage"]["version"] == 3
    _, sent = split(statements)
    # The token; the page locked, then read; its lines removed, written again; the version.
    assert len(sent) == 6, sent


TURN = """
query($input: TurnInput!) {
  turnContext(input: $input) {
    profiles { workspace person agent }
    cards { recordId label values { title value } related { label } lastChange { fields }
            souvenirs { key line } profileSouvenirs { key line } text }
    budget { used dropped { recordId kind key } }
  }
}
"""


async def busy_company(pool, ws, name: str) -> str:
    """A company with 7 contacts pointing to it and a page of 20 souvenirs (the test adds a
    souvenir about it on `member`'s profile)."""
    lines = [{"object": "companies", "external_id": name, "label": name}]
    lines += [
        {
            "object": "contacts",
            "label": f"{name} contact {i}",
            "relations": {"company": {"external_id": name}},
        }
        for i in range(7)
    ]
    [company, *_] = await load_records(pool, ws.tokens["member"], lines)
    content = "\n".join(f"- {name} fact {i} — Claire, 2026-10-02 [relation]" for i in range(20))
    await make_page(pool, ws, "record", ids.decode(company, "Record", ws.id), content)
    return company


@pytest.mark.parametrize("stored", [False, True])
async def test_a_turn_costs_the_same_statements_for_one_card_or_three_full_ones(
    counted, pool, ws, stored
):
    client, statements = counted
    [plain] = await load_records(pool, ws.tokens["member"], [{"object": "companies", "label": "P"}])
    page = "- P pays late — Claire, 2026-10-02 [relation]"
    await make_page(pool, ws, "record", ids.decode(plain, "Record", ws.id), page)
    busy = [await busy_company(pool, ws, f"Co{i}") for i in range(3)]

    async def count(turn: str, message: str) -> tuple[int, list[dict]]:
        extra = {"messageId": f"m{turn}-{stored}", "conversationId": f"c{turn}-{stored}"}
        given = {"message": message, **(extra if stored else {})}
        # A first turn warms the connection (asyncpg introspects types once).
        await gql(client, ws.tokens["agent"], TURN, {"input": {"message": message}})
        statements.clear()
        answer = (await gql(client, ws.tokens["agent"], TURN, {"input": given})).json()
        return len(split(statements)[1]), answer["data"]["turnContext"]["cards"]

    one, cards = await count("one", f"About @[P](record:{plain})")
    assert len(cards) == 1 and len(cards[0]["souvenirs"]) == 1
    # Three cards, each with 5 related records, 20 page souvenirs and the person's own.
    profile = "\n".join(
        f"- @[Co{n}](record:{gid}) met {n} — Member, 2026-10-0{1 + n} [relation]"
        for n, gid in enumerate(busy)
    )
    await make_page(pool, ws, "member", ws.members["member"], profile)
    three, cards = await count("three", " ".join(f"@[x](record:{c})" for c in busy))
    assert len(cards) == 3
    assert all(len(card["related"]) == 5 for card in cards)
    assert sum(len(card["souvenirs"]) for card in cards) > 20
    # The token, then what the turn reads: the cards' records, the profiles and their
    # souvenirs as shown, in one statement (and, when the turn is stored: what was stored
    # before, and storing it).
    assert one == three == (4 if stored else 2), (one, three)
