"""The plain routes of a conversation's compaction and end (gateway/http/conversations.py):
POST /agents/sessions/{id}/compact and POST /agents/sessions/{id}/end, their bodies, answers,
status codes and error bodies (DESIGN §8)."""

from __future__ import annotations

from typing import Any

import httpx

from gateway.http.conversations import ConversationAnswer
from tests.factories import bearer, data, gql

TURN = "query($input: TurnInput!) { turnContext(input: $input) { profiles { workspace person } } }"


async def post(
    client: httpx.AsyncClient, token: str | None, conversation: str, verb: str, body: Any = None
) -> httpx.Response:
    headers = bearer(token) if token else {}
    path = f"/agents/sessions/{conversation}/{verb}"
    if body is None:
        return await client.post(path, headers=headers)
    if isinstance(body, str):
        return await client.post(
            path, content=body, headers={**headers, "content-type": "application/json"}
        )
    return await client.post(path, json=body, headers=headers)


async def begin(client: httpx.AsyncClient, token: str, conversation: str) -> None:
    found = await gql(
        client, token, TURN, {"input": {"message": "Hi", "conversationId": conversation}}
    )
    data(found)


def error(response: httpx.Response) -> dict[str, Any]:
    found: dict[str, Any] = response.json()["error"]
    return found


async def test_compact_then_end_answer_the_conversations_state(client, ws):
    member = ws.tokens["member"]
    await begin(client, member, "c1")
    compacted = await post(client, member, "c1", "compact")
    assert compacted.status_code == 200, compacted.text
    body = compacted.json()
    assert set(body) == {"conversationId", "compactions", "compactedAt", "endedAt", "ended"}
    assert body["conversationId"] == "c1" and body["compactions"] == 1
    assert body["endedAt"] is None and body["ended"] is False
    assert body["compactedAt"].endswith("+00:00")
    # The answer is what its model says, and GraphQL's compaction counts on from it.
    assert ConversationAnswer.model_validate(body).compactions == 1
    again = await post(client, member, "c1", "compact", {})
    assert again.json()["compactions"] == 2

    ended = await post(client, member, "c1", "end")
    assert ended.status_code == 200
    assert ended.json()["ended"] is True and ended.json()["compactions"] == 2
    assert ended.json()["compactedAt"] == again.json()["compactedAt"]
    # Ending again answers the same end; compacting an ended conversation is refused.
    assert (await post(client, member, "c1", "end", {})).json() == ended.json()
    refused = await post(client, member, "c1", "compact")
    assert refused.status_code == 409
    assert error(refused)["code"] == "MEMORY_PRECONDITION_FAILED"
    assert error(refused)["problems"] == [
        {"message": "this conversation has ended", "field": "conversationId"}
    ]


async def test_a_body_holds_nothing(client, ws):
    member = ws.tokens["member"]
    await begin(client, member, "c1")
    for verb in ("compact", "end"):
        response = await post(client, member, "c1", verb, {"reason": "tired", "at": 1})
        assert response.status_code == 400
        assert error(response)["code"] == "SCHEMA_VALIDATION_FAILED"
        assert {p["field"] for p in error(response)["problems"]} == {"reason", "at"}
        for bad in ("[]", "{"):
            response = await post(client, member, "c1", verb, bad)
            assert response.status_code == 400
            assert error(response)["code"] == "SCHEMA_VALIDATION_FAILED"
    # Nothing was recorded.
    assert (await post(client, member, "c1", "compact")).json()["compactions"] == 1


async def test_another_persons_or_workspaces_conversation_is_not_found(client, ws, ws2):
    await begin(client, ws.tokens["member"], "c1")
    missing = await post(client, ws.tokens["member"], "never-begun", "compact")
    assert missing.status_code == 404
    assert error(missing)["code"] == "NOT_FOUND"
    for token in (ws.tokens["other"], ws.tokens["agent"], ws2.tokens["member"]):
        for verb in ("compact", "end"):
            response = await post(client, token, "c1", verb)
            assert response.status_code == 404
            assert error(response) == error(missing)
    forbidden = await post(client, ws.tokens["api_key"], "c1", "end")
    assert forbidden.status_code == 403 and error(forbidden)["code"] == "FORBIDDEN"
    unauthenticated = await post(client, None, "c1", "compact")
    assert unauthenticated.status_code == 401
    too_long = await post(client, ws.tokens["member"], "x" * 201, "end")
    assert too_long.status_code == 400
    assert error(too_long)["problems"] == [
        {"message": "1 to 200 characters, no NUL", "field": "conversationId"}
    ]
    # The conversation is untouched.
    assert (await post(client, ws.tokens["member"], "c1", "compact")).json()["compactions"] == 1
