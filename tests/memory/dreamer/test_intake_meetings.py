"""Meetings as the Dreamer's source (resolvers/memory/dreamer/meetings.py), through
recordMeeting on the real database: the meeting record, its transcript and links, its item,
who may record one, the checks, and re-sends."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from tests.factories import codes, company, data, gql, private_deal, problems
from tests.memory.dreamer.intake_api import admin_key, counts, items, meeting

HELD = "2026-03-02T14:00:00+00:00"
RECORD = "query($id: ID!) { record(id: $id) { id label visibility } }"


async def test_a_private_meeting_with_records_is_read_for_them(client, pool, ws):
    acme = await company(pool, ws)
    deal = await private_deal(pool, ws, "member", "Acme renewal")
    found = data(
        await meeting(client, ws.tokens["member"], heldAt=HELD, recordIds=[deal, acme, deal])
    )["recordMeeting"]
    assert found["scope"] == "PRIVATE" and found["recordIds"] == [deal, acme]
    assert found["heldAt"] == HELD and found["item"]["status"] == "WAITING"
    [item] = await items(pool, ws)
    member = ws.members["member"]
    assert item["kind"] == "meeting"
    assert (item["owner_kind"], item["owner_id"], item["private_to"]) == ("member", member, member)
    assert (item["payer_kind"], item["payer_id"]) == ("member", member)
    assert item["said_at"] == datetime(2026, 3, 2, 14, 0, tzinfo=UTC)
    assert item["share_with_team"] is True and item["urgent"] is False
    # A record of the meeting object, private to its owner.
    mine = data(await gql(client, ws.tokens["member"], RECORD, {"id": found["id"]}))["record"]
    assert (mine["label"], mine["visibility"]) == ("Weekly with Acme", "PRIVATE")
    assert codes(await gql(client, ws.tokens["other"], RECORD, {"id": found["id"]})) == [
        "NOT_FOUND"
    ]


async def test_a_meeting_linked_to_nothing_is_not_read(client, pool, ws):
    found = data(await meeting(client, ws.tokens["member"]))["recordMeeting"]
    assert found["item"]["status"] == "NOT_READ"
    assert found["item"]["reason"] == "no_linked_records"


async def test_a_workspace_meeting_belongs_to_the_workspace(client, pool, ws):
    acme = await company(pool, ws)
    found = data(await meeting(client, ws.tokens["admin"], scope="WORKSPACE", recordIds=[acme]))
    assert found["recordMeeting"]["scope"] == "WORKSPACE"
    key = await admin_key(pool, ws)
    data(await meeting(client, key, scope="WORKSPACE", recordIds=[acme]))
    assert [p["field"] for p in problems(await meeting(client, key))] == ["scope"]
    for item in await items(pool, ws):
        assert (item["owner_kind"], item["owner_id"], item["private_to"]) == (
            "workspace",
            None,
            None,
        )
        assert (item["payer_kind"], item["payer_id"]) == ("workspace", None)
        assert item["share_with_team"] is False
    # Everyone reads a workspace meeting's record.
    record = {"id": found["recordMeeting"]["id"]}
    assert data(await gql(client, ws.tokens["viewer"], RECORD, record))["record"]["visibility"] == (
        "WORKSPACE"
    )


async def test_who_may_record_a_meeting(client, pool, ws):
    # Creating a meeting is the role's right: a viewer has none, nor the companies-only key.
    assert codes(await meeting(client, ws.tokens["viewer"])) == ["FORBIDDEN"]
    assert codes(await meeting(client, ws.tokens["api_key"], scope="WORKSPACE")) == ["FORBIDDEN"]
    assert set((await counts(pool, ws)).values()) == {0}


async def test_linked_records_the_caller_may_not_read_are_not_found(client, pool, ws, ws2):
    secret = await private_deal(pool, ws, "other", "Secret deal")
    elsewhere = await company(pool, ws2, "Rival Acme")
    for record in (secret, elsewhere):
        assert codes(await meeting(client, ws.tokens["member"], recordIds=[record])) == [
            "NOT_FOUND"
        ]
    assert set((await counts(pool, ws)).values()) == {0}


async def test_every_problem_is_listed_and_nothing_is_stored(client, pool, ws):
    response = await meeting(
        client,
        ws.tokens["member"],
        externalId="",
        title="t" * 501,
        transcript="x" * 200_001,
        heldAt="2026-03-02T14:00:00",
        recordIds=["nope"] * 101,
    )
    assert {p["field"] for p in problems(response)} == {
        "externalId",
        "title",
        "transcript",
        "heldAt",
        "recordIds",
    }
    assert set((await counts(pool, ws)).values()) == {0}


async def test_a_re_sent_meeting_is_stored_once(client, pool, ws):
    acme = await company(pool, ws)
    given = {"externalId": "zoom-1", "heldAt": HELD, "recordIds": [acme]}
    first = data(await meeting(client, ws.tokens["member"], **given))["recordMeeting"]
    again = data(await meeting(client, ws.tokens["member"], **given))["recordMeeting"]
    assert again["replayed"] is True and again["id"] == first["id"]
    without_time = {k: v for k, v in given.items() if k != "heldAt"}
    assert data(await meeting(client, ws.tokens["member"], **without_time))["recordMeeting"][
        "replayed"
    ]
    for change in ({"transcript": "Other words."}, {"recordIds": []}, {"title": "Renamed"}):
        response = await meeting(client, ws.tokens["member"], **{**given, **change})
        assert [p["field"] for p in problems(response)] == ["externalId"], change
    # Another person's private meeting, and the workspace's, under the same id are others.
    data(await meeting(client, ws.tokens["other"], **given))
    data(await meeting(client, ws.tokens["admin"], scope="WORKSPACE", **given))
    stored = await counts(pool, ws)
    assert (stored["meeting records"], stored["meeting_transcripts"]) == (3, 3)
    assert (stored["meeting_links"], stored["memory_items"]) == (3, 3)


async def test_concurrent_sends_of_a_meeting_store_it_once(client, pool, ws):
    acme = await company(pool, ws)
    given = {"externalId": "zoom-1", "recordIds": [acme]}
    answers = await asyncio.gather(
        *[meeting(client, ws.tokens["member"], **given) for _ in range(4)]
    )
    assert sorted(data(a)["recordMeeting"]["replayed"] for a in answers) == [
        False,
        True,
        True,
        True,
    ]
    stored = await counts(pool, ws)
    assert (stored["meeting records"], stored["memory_items"]) == (1, 1)
