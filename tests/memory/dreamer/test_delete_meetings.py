"""Deleting a meeting (deleteMeeting, DELETE /v1/meetings/{id}): only one the caller may read,
with the role's right to delete meetings; its record, transcript, links and item go; anything
else answers NOT_FOUND (or FORBIDDEN without the right) and deletes nothing."""

from __future__ import annotations

from tests.factories import bearer, codes, company, data, gql
from tests.memory.dreamer.intake_api import counts, meeting

DELETE = "mutation($id: ID!) { deleteMeeting(id: $id) }"


async def _meeting(client, pool, ws, who: str, scope: str = "PRIVATE") -> str:  # type: ignore[no-untyped-def]
    acme = await company(pool, ws)
    found = data(await meeting(client, ws.tokens[who], scope=scope, recordIds=[acme]))
    return found["recordMeeting"]["id"]  # type: ignore[no-any-return]


async def test_a_meeting_the_caller_reads_and_may_delete_is_deleted_with_all_it_holds(
    client, pool, ws
):
    mine = await _meeting(client, pool, ws, "admin")
    before = await counts(pool, ws)
    assert data(await gql(client, ws.tokens["admin"], DELETE, {"id": mine})) == {
        "deleteMeeting": True
    }
    after = await counts(pool, ws)
    assert before["meeting_transcripts"] - after["meeting_transcripts"] == 1
    assert before["memory_items"] - after["memory_items"] == 1
    record = "query($id: ID!) { record(id: $id) { id } }"
    assert codes(await gql(client, ws.tokens["admin"], record, {"id": mine})) == ["NOT_FOUND"]
    # Gone: a second delete finds nothing.
    assert codes(await gql(client, ws.tokens["admin"], DELETE, {"id": mine})) == ["NOT_FOUND"]


async def test_over_http(client, pool, ws):
    shared = await _meeting(client, pool, ws, "admin", "WORKSPACE")
    response = await client.delete(f"/v1/meetings/{shared}", headers=bearer(ws.tokens["viewer"]))
    assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"
    response = await client.delete(f"/v1/meetings/{shared}", headers=bearer(ws.tokens["admin"]))
    assert response.status_code == 200
    assert response.json() == {"id": shared, "deleted": True}
    response = await client.delete(f"/v1/meetings/{shared}", headers=bearer(ws.tokens["admin"]))
    assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    response = await client.delete("/v1/meetings/nonsense", headers=bearer(ws.tokens["admin"]))
    assert (
        response.status_code == 400
        and response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"
    )
    assert (await client.delete(f"/v1/meetings/{shared}")).status_code == 401


async def test_what_the_caller_may_not_read_or_delete_stays(client, pool, ws, ws2):
    private = await _meeting(client, pool, ws, "member")
    shared = await _meeting(client, pool, ws, "admin", "WORKSPACE")
    acme = await company(pool, ws, "Not a meeting")
    before = await counts(pool, ws)
    # A private meeting is read by its owner only: to anyone else it does not exist.
    for who in ("other", "admin"):
        assert codes(await gql(client, ws.tokens[who], DELETE, {"id": private})) == ["NOT_FOUND"]
    # Its owner reads it, but the member role may not delete meetings.
    assert codes(await gql(client, ws.tokens["member"], DELETE, {"id": private})) == ["FORBIDDEN"]
    assert codes(await gql(client, ws.tokens["viewer"], DELETE, {"id": shared})) == ["FORBIDDEN"]
    # A record that is no meeting, another workspace's meeting.
    assert codes(await gql(client, ws.tokens["admin"], DELETE, {"id": acme})) == ["NOT_FOUND"]
    assert codes(await gql(client, ws2.tokens["admin"], DELETE, {"id": shared})) == ["NOT_FOUND"]
    assert await counts(pool, ws) == before
