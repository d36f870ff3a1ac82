"""The plain routes of mail (gateway/http/mail.py): POST /v1/mailboxes and
POST /v1/mailboxes/{id}/messages, their status codes, JSON, problems and body cap."""

from __future__ import annotations

import base64
from typing import Any

import httpx

from gateway.http.body import body_cap
from gateway.http.mail import MAX_MAIL_BODY_BYTES
from gateway.http.responses import MAX_JSON_BODY_BYTES
from tests.factories import bearer
from tests.memory.dreamer.intake_api import admin_key

AT = "2026-03-02T09:00:00+00:00"


async def post(client: httpx.AsyncClient, token: str, path: str, body: Any) -> httpx.Response:
    if isinstance(body, bytes | str):
        headers = {**bearer(token), "content-type": "application/json"}
        return await client.post(path, content=body, headers=headers)
    return await client.post(path, json=body, headers=bearer(token))


def fields(response: httpx.Response) -> set[str]:
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED", response.json()
    return {p.get("field") for p in response.json()["error"]["problems"]}


def message(external_id: str = "m1", **more: Any) -> dict[str, Any]:
    return {
        "externalId": external_id,
        "threadId": "t1",
        "filed": "received",
        "from": "carol@client.example",
        "at": AT,
        "text": "Hello.",
        "category": "direct",
        "important": True,
        **more,
    }


async def test_a_partner_scripts_mailboxes_and_posts_mail(client, pool, ws):
    key = await admin_key(pool, ws)
    owner = ws.gid(ws.members["member"], "Member")
    body = {"externalId": "gmail-1", "kind": "personal", "name": "Member's mail", "ownerId": owner}
    created = await post(client, key, "/v1/mailboxes", body)
    assert created.status_code == 201, created.text
    box = created.json()
    assert (box["kind"], box["ownerId"], box["addresses"]) == (
        "personal",
        owner,
        ["member@acmecorp.example"],
    )
    again = await post(client, key, "/v1/mailboxes", body)
    assert (again.status_code, again.json()["id"], again.json()["replayed"]) == (
        200,
        box["id"],
        True,
    )
    path = f"/v1/mailboxes/{box['id']}/messages"
    contents = base64.b64encode(b"contract").decode()
    sent = {"messages": [message(attachments=[{"name": "c.pdf", "contents": contents}])]}
    stored = await post(client, key, path, sent)
    assert stored.status_code == 201, stored.text
    [answer] = stored.json()["messages"]
    assert (answer["externalId"], answer["replayed"], answer["deleted"]) == ("m1", False, False)
    assert answer["attachments"][0]["name"] == "c.pdf" and answer["attachments"][0]["size"] == 8
    replayed = await post(client, key, path, sent)
    assert replayed.status_code == 200 and replayed.json()["messages"][0]["replayed"] is True
    deleted = await post(client, key, path, {"messages": [message(deleted=True)]})
    assert deleted.status_code == 201 and deleted.json()["messages"][0]["deleted"] is True


async def test_every_problem_of_a_body_is_listed(client, pool, ws):
    key = await admin_key(pool, ws)
    response = await post(
        client, key, "/v1/mailboxes", {"kind": 3, "name": "x", "color": "red", "addresses": "a"}
    )
    assert response.status_code == 400
    assert fields(response) == {"externalId", "kind", "color", "addresses"}
    box = (
        await post(client, key, "/v1/mailboxes", {"externalId": "t", "kind": "shared", "name": "T"})
    ).json()
    path = f"/v1/mailboxes/{box['id']}/messages"
    bad = {
        "externalId": 1,
        "filed": "archived",
        "important": "yes",
        "at": "yesterday",
        "category": "spam",
        "attachments": [{"name": "a", "contents": "%%%"}, "b"],
        "extra": True,
    }
    response = await post(client, key, path, {"messages": [bad], "more": 1})
    assert response.status_code == 400
    assert fields(response) == {
        "more",
        "messages.0.externalId",
        "messages.0.threadId",
        "messages.0.filed",
        "messages.0.from",
        "messages.0.important",
        "messages.0.at",
        "messages.0.category",
        "messages.0.attachments",
        "messages.0.extra",
    }
    bad_attachment = message(attachments=[{"name": "a", "contents": "%%%"}])
    response = await post(client, key, path, {"messages": [bad_attachment]})
    assert fields(response) == {"messages.0.attachments.0.contents"}
    assert fields(await post(client, key, path, {})) == {"messages"}


async def test_nul_is_refused_at_the_door(client, pool, ws):
    key = await admin_key(pool, ws)
    box = (
        await post(client, key, "/v1/mailboxes", {"externalId": "t", "kind": "shared", "name": "T"})
    ).json()
    path = f"/v1/mailboxes/{box['id']}/messages"
    response = await post(
        client, key, path, '{"messages": [{"externalId": "m1", "text": "a\\u0000b"}]}'
    )
    assert response.status_code == 400
    assert fields(response) == {"messages.0.text"}
    async with pool.acquire() as conn:
        assert (
            await conn.fetchval("SELECT count(*) FROM mail_messages WHERE workspace_id = $1", ws.id)
            == 0
        )


async def test_the_routes_status_codes(client, pool, ws, ws2):
    key = await admin_key(pool, ws)
    box = (
        await post(client, key, "/v1/mailboxes", {"externalId": "t", "kind": "shared", "name": "T"})
    ).json()
    path = f"/v1/mailboxes/{box['id']}/messages"
    assert (
        await post(client, ws.tokens["member"], path, {"messages": [message()]})
    ).status_code == 403
    assert (
        await post(client, ws2.tokens["admin"], path, {"messages": [message()]})
    ).status_code == 404
    body = {"externalId": "x", "kind": "shared", "name": "X"}
    assert (await post(client, ws.tokens["member"], "/v1/mailboxes", body)).status_code == 403
    missing = "/v1/mailboxes/nope/messages"
    assert (await post(client, key, missing, {"messages": [message()]})).status_code == 400
    assert (await client.post(path, json={"messages": []})).status_code == 401


def test_the_body_caps():
    assert body_cap("/v1/mailboxes") == MAX_JSON_BODY_BYTES
    assert body_cap("/v1/mailboxes/abc/messages") == MAX_MAIL_BODY_BYTES


async def test_a_mail_the_key_may_not_read_is_answered_without_its_content(client, pool, ws):
    key = await admin_key(pool, ws)
    owner = ws.gid(ws.members["member"], "Member")
    body = {"externalId": "gmail-1", "kind": "personal", "name": "Member's mail", "ownerId": owner}
    box = (await post(client, key, "/v1/mailboxes", body)).json()
    path = f"/v1/mailboxes/{box['id']}/messages"
    contents = base64.b64encode(b"contract").decode()
    private = message(
        subject="Salary review", attachments=[{"name": "payslip.pdf", "contents": contents}]
    )
    assert (await post(client, ws.tokens["member"], path, {"messages": [private]})).is_success
    deleted = await post(client, key, path, {"messages": [message(deleted=True)]})
    assert deleted.status_code == 201, deleted.text
    [answer] = deleted.json()["messages"]
    assert answer == {"id": answer["id"], "externalId": "m1", "deleted": True, "replayed": False}
    again = await post(client, ws.tokens["member"], path, {"messages": [message(deleted=True)]})
    [mine] = again.json()["messages"]
    assert (mine["subject"], mine["attachments"][0]["name"]) == ("Salary review", "payslip.pdf")
