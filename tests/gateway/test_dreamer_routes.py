"""The plain routes of the Dreamer's sources (gateway/http/dreamer.py): a conversation's
message at the seed's POST /agents/sessions/{id}/messages and a meeting at POST /v1/meetings,
their status codes and JSON."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from gateway.http.body import body_cap
from gateway.http.dreamer import MAX_MEETING_BODY_BYTES, MAX_MESSAGE_BODY_BYTES
from gateway.http.responses import MAX_JSON_BODY_BYTES
from tests.factories import bearer, company, private_deal
from tests.memory.dreamer.intake_api import counts, items


async def post(
    client: httpx.AsyncClient, token: str | None, path: str, body: Any
) -> httpx.Response:
    headers = bearer(token) if token else {}
    if isinstance(body, bytes | str):
        return await client.post(
            path, content=body, headers={**headers, "content-type": "application/json"}
        )
    return await client.post(path, json=body, headers=headers)


HELLO = {"role": "user", "text": "Hi"}


def message_path(conversation: str = "c1") -> str:
    return f"/agents/sessions/{conversation}/messages"


def fields(response: httpx.Response) -> set[str]:
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED", response.json()
    return {p.get("field") for p in response.json()["error"]["problems"]}


async def test_a_message_is_recorded_and_a_re_send_answers_it(client, pool, ws):
    acme = await company(pool, ws)
    body = {
        "messageId": "m1",
        "role": "user",
        "text": f"Remember: @[Acme](record:{acme}) wants French.",
        "attachedRecordId": acme,
        "at": "2026-03-02T09:00:00+01:00",
    }
    created = await post(client, ws.tokens["member"], message_path(), body)
    assert created.status_code == 201, created.text
    assert created.json() == {
        "conversationId": "c1",
        "messageId": "m1",
        "role": "user",
        "text": body["text"],
        "attachedRecordId": acme,
        "readAnotherConversation": False,
        "at": "2026-03-02T08:00:00+00:00",
        "scope": "private",
        "replayed": False,
        "item": {
            "status": "waiting",
            "reason": None,
            "urgent": True,
            "shareWithTeam": True,
            "arrivedAt": created.json()["item"]["arrivedAt"],
        },
    }
    again = await post(client, ws.tokens["member"], message_path(), body)
    assert again.status_code == 200 and again.json()["replayed"] is True
    other = await post(client, ws.tokens["member"], message_path(), {**body, "text": "No."})
    assert other.status_code == 400 and fields(other) == {"messageId"}
    assert (await counts(pool, ws))["conversation_messages"] == 1


async def test_an_agents_reply_has_no_item(client, pool, ws):
    await post(client, ws.tokens["agent"], message_path(), {"role": "user", "text": "Hi"})
    reply = await post(
        client, ws.tokens["agent"], message_path(), {"role": "assistant", "text": "Hello!"}
    )
    assert reply.status_code == 201 and reply.json()["item"] is None
    assert len(await items(pool, ws)) == 1


async def test_every_problem_of_the_body_is_listed(client, pool, ws):
    response = await post(
        client,
        ws.tokens["member"],
        message_path(),
        {"role": 3, "readAnotherConversation": "yes", "at": "yesterday", "extra": 1},
    )
    assert response.status_code == 400
    assert fields(response) == {"role", "text", "readAnotherConversation", "at", "extra"}
    response = await post(
        client, ws.tokens["member"], message_path(), {"role": "bot", "text": "", "scope": "team"}
    )
    assert fields(response) == {"role", "text", "scope"}
    # A field of the wrong kind does not hide the problems of the others.
    response = await post(
        client, ws.tokens["member"], message_path(), {"role": 3, "text": " ", "scope": "team"}
    )
    assert fields(response) == {"role", "text", "scope"}
    # Each once: the wrong kind, not the resolver's check of its stand-in too.
    listed = response.json()["error"]["problems"]
    assert [(p["field"], p["message"]) for p in listed if p["field"] == "role"] == [
        ("role", "a string")
    ]
    response = await post(
        client,
        ws.tokens["member"],
        message_path(),
        {"role": "user", "text": "Hi", "at": 9, "attachedRecordId": "garbage"},
    )
    assert fields(response) == {"at", "attachedRecordId"}
    long_id = message_path("c" * 201)
    assert fields(
        await post(client, ws.tokens["member"], long_id, {"role": "user", "text": "Hi"})
    ) == {"conversationId"}
    for bad in (b"[1]", b"{not json", b""):
        response = await post(client, ws.tokens["member"], message_path(), bad)
        assert response.status_code == 400
    assert set((await counts(pool, ws)).values()) == {0}


async def test_nul_is_refused_at_the_door(client, pool, ws):
    response = await post(
        client, ws.tokens["member"], message_path(), '{"role": "user", "text": "a\\u0000b"}'
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    response = await post(
        client, ws.tokens["member"], message_path("c%00"), {"role": "user", "text": "Hi"}
    )
    assert response.status_code == 400
    assert set((await counts(pool, ws)).values()) == {0}


async def test_the_routes_status_codes(client, pool, ws, ws2):
    hello = {"role": "user", "text": "Hi"}
    assert (await post(client, None, message_path(), hello)).status_code == 401
    refused = await post(client, ws.tokens["api_key"], message_path(), hello)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "FORBIDDEN"
    secret = await private_deal(pool, ws, "other", "Secret")
    elsewhere = await company(pool, ws2, "Rival")
    for record in (secret, elsewhere):
        hidden = await post(
            client, ws.tokens["member"], message_path(), {**hello, "attachedRecordId": record}
        )
        assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "NOT_FOUND"
    assert (await client.get(message_path(), headers=bearer(ws.tokens["member"]))).status_code == (
        405
    )
    assert set((await counts(pool, ws)).values()) == {0}


async def test_a_long_message_fits_its_route_and_no_more(client, pool, ws):
    assert body_cap(message_path("any id")) == MAX_MESSAGE_BODY_BYTES > MAX_JSON_BODY_BYTES
    assert body_cap("/v1/meetings") == MAX_MEETING_BODY_BYTES
    assert body_cap("/agents/sessions/a/b/messages") == MAX_JSON_BODY_BYTES
    # 20,000 characters of four bytes each, past the plain cap.
    text = "\U0001f600" * 20_000
    created = await post(
        client, ws.tokens["member"], message_path(), {"role": "user", "text": text}
    )
    assert created.status_code == 201
    huge = b'{"role": "user", "text": "' + b"x" * MAX_MESSAGE_BODY_BYTES + b'"}'
    assert (await post(client, ws.tokens["member"], message_path(), huge)).status_code == 413


async def test_a_meeting_is_recorded_and_a_re_send_answers_it(client, pool, ws):
    acme = await company(pool, ws)
    body = {
        "externalId": "zoom-1",
        "title": "Weekly with Acme",
        "transcript": "Claire: we sign in March.",
        "heldAt": "2026-03-02T14:00:00Z",
        "recordIds": [acme],
    }
    created = await post(client, ws.tokens["member"], "/v1/meetings", body)
    assert created.status_code == 201, created.text
    found = created.json()
    assert (found["externalId"], found["scope"], found["recordIds"]) == (
        "zoom-1",
        "private",
        [acme],
    )
    assert found["item"]["status"] == "waiting" and found["replayed"] is False
    again = await post(client, ws.tokens["member"], "/v1/meetings", body)
    assert again.status_code == 200 and again.json()["id"] == found["id"]
    response = await post(client, ws.tokens["member"], "/v1/meetings", {"recordIds": "acme"})
    assert fields(response) == {"externalId", "title", "transcript", "recordIds"}
    response = await post(
        client,
        ws.tokens["member"],
        "/v1/meetings",
        {"externalId": "", "title": 3, "transcript": "x", "recordIds": ["garbage"]},
    )
    assert fields(response) == {"externalId", "title", "recordIds"}
    viewer = await post(client, ws.tokens["viewer"], "/v1/meetings", {**body, "externalId": "z2"})
    assert viewer.status_code == 403


async def test_a_message_or_a_meeting_dated_in_the_future_is_refused(client, pool, ws, stand):
    stand(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    late = "2026-03-02T09:05:01Z"
    said = await post(client, ws.tokens["member"], message_path(), {**HELLO, "at": late})
    assert said.status_code == 400 and fields(said) == {"at"}
    acme = await company(pool, ws)
    body = {"externalId": "z1", "title": "Weekly", "transcript": "We sign.", "recordIds": [acme]}
    held = await post(client, ws.tokens["member"], "/v1/meetings", {**body, "heldAt": late})
    assert held.status_code == 400 and fields(held) == {"heldAt"}
    assert set((await counts(pool, ws)).values()) == {0}
    soon = "2026-03-02T09:05:00Z"
    said = await post(client, ws.tokens["member"], message_path(), {**HELLO, "at": soon})
    assert said.status_code == 201
    held = await post(client, ws.tokens["member"], "/v1/meetings", {**body, "heldAt": soon})
    assert held.status_code == 201
