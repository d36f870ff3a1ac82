"""Mailboxes (resolvers/memory/mail/mailboxes.py) through createMailbox on the real database:
who creates which, the owner's addresses, the checks, re-sends, other workspaces."""

from __future__ import annotations

from typing import Any

import httpx

from tests.factories import codes, data, gql, problems
from tests.memory.dreamer.intake_api import admin_key

CREATE = """mutation($i: CreateMailboxInput!) { createMailbox(input: $i) {
  id externalId kind name ownerId addresses createdAt replayed } }"""


async def create(client: httpx.AsyncClient, token: str, **given: Any) -> httpx.Response:
    given.setdefault("externalId", "gmail")
    given.setdefault("kind", "PERSONAL")
    given.setdefault("name", "My mail")
    return await gql(client, token, CREATE, {"i": given})


async def test_a_member_creates_their_own_personal_mailbox(client, ws):
    found = data(await create(client, ws.tokens["member"]), "createMailbox")
    assert (found["kind"], found["replayed"]) == ("PERSONAL", False)
    assert found["ownerId"] == ws.gid(ws.members["member"], "Member")
    # Its owner's own address, by default their email.
    assert found["addresses"] == ["member@acmecorp.example"]
    again = data(await create(client, ws.tokens["member"]), "createMailbox")
    assert (again["id"], again["replayed"]) == (found["id"], True)
    renamed = await create(client, ws.tokens["member"], name="Other")
    assert [p["field"] for p in problems(renamed)] == ["externalId"]
    # Another member's mailbox under the same external id is another one.
    other = data(await create(client, ws.tokens["other"]), "createMailbox")
    assert other["id"] != found["id"]


async def test_who_creates_which_mailbox(client, pool, ws):
    bob = ws.gid(ws.members["other"], "Member")
    member = ws.tokens["member"]
    assert codes(await create(client, member, ownerId=bob)) == ["FORBIDDEN"]
    assert codes(await create(client, member, kind="SHARED")) == ["FORBIDDEN"]
    # Neither an agent nor a client acting for the member, nor a key without the settings right.
    for token in ("agent", "mcp_client", "api_key"):
        assert codes(await create(client, ws.tokens[token], ownerId=bob)) == ["FORBIDDEN"]
    # An admin, or an API key with the settings right, creates a shared one or anyone's.
    admin = ws.tokens["admin"]
    shared = data(await create(client, admin, kind="SHARED", externalId="team"), "createMailbox")
    assert (shared["ownerId"], shared["addresses"]) == (None, [])
    key = await admin_key(pool, ws)
    bobs = data(
        await create(client, key, ownerId=bob, addresses=["Bob@Acme.example", "bob@acme.example"]),
        "createMailbox",
    )
    assert (bobs["ownerId"], bobs["addresses"]) == (bob, ["bob@acme.example"])
    # An API key acts for no person: it names the owner.
    assert [p["field"] for p in problems(await create(client, key))] == ["ownerId"]


async def test_every_problem_is_listed(client, ws):
    response = await create(
        client,
        ws.tokens["admin"],
        externalId="",
        name=" ",
        addresses=["not an address", *(f"a{n}@x.example" for n in range(20))],
        ownerId="nope",
    )
    assert {p["field"] for p in problems(response)} == {
        "externalId",
        "name",
        "addresses",
        "addresses.0",
        "ownerId",
    }
    shared = await create(
        client, ws.tokens["admin"], kind="SHARED", ownerId=ws.gid(ws.members["member"], "Member")
    )
    assert [p["field"] for p in problems(shared)] == ["ownerId"]


async def test_an_owner_of_another_workspace_is_not_found(client, ws, ws2):
    stranger = ws2.gid(ws2.members["member"], "Member")
    assert codes(await create(client, ws.tokens["admin"], ownerId=stranger)) == ["NOT_FOUND"]


async def test_control_characters_are_refused_in_a_mailboxs_addresses_and_name(client, ws):
    response = await create(
        client,
        ws.tokens["member"],
        name="My\x9bmail",
        addresses=["me@acmecorp.example", "me\x08@acmecorp.example", "me@acme\x9f.example"],
    )
    assert [p["field"] for p in problems(response)] == ["name", "addresses.1", "addresses.2"]
    refused = await create(client, ws.tokens["member"], addresses=["me\x1f\x7f@acmecorp.example"])
    assert [p["field"] for p in problems(refused)] == ["addresses.0"]
