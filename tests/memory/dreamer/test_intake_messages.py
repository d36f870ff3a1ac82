"""A conversation's messages as the Dreamer's source (resolvers/memory/dreamer/messages.py),
through recordMessage on the real database: what is stored, the items and their status, the
checks, and re-sends."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import asyncpg

from resolvers.common import ids
from tests.factories import codes, company, data, gql, private_deal, problems
from tests.memory.dreamer.intake_api import (
    PROPOSE,
    counts,
    items,
    new_agent,
    said,
    say,
    statuses,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SET_SHARE = """mutation($v: Boolean!) {
  setMemoryPreference(key: SHARE_WITH_TEAM, value: $v) { shareWithTeam } }"""


async def test_one_message_is_not_read_until_a_second_wakes_it(client, pool, ws, stand):
    stand(T0)
    first = await said(client, ws.tokens["member"], "Acme pays in sixty days.", messageId="m1")
    assert first["item"]["status"] == "NOT_READ"
    assert first["item"]["reason"] == "too_few_messages"
    assert first["scope"] == "PRIVATE" and first["replayed"] is False
    stand(T0 + timedelta(minutes=3))
    second = await said(client, ws.tokens["member"], "They sign in March.", messageId="m2")
    assert second["item"]["status"] == "WAITING" and second["item"]["reason"] is None
    found = await items(pool, ws)
    assert [(r["source"], r["status"], r["reason"]) for r in found] == [
        ("m1", "waiting", None),
        ("m2", "waiting", None),
    ]
    member = ws.members["member"]
    for row in found:
        assert row["kind"] == "conversation"
        assert (row["owner_kind"], row["owner_id"]) == ("member", member)
        assert (row["payer_kind"], row["payer_id"]) == ("member", member)
        assert row["private_to"] == member
        assert row["urgent"] is False and row["share_with_team"] is True
    assert [r["arrived_at"] for r in found] == [T0, T0 + timedelta(minutes=3)]
    assert found[0]["said_at"] == T0


async def test_the_agents_messages_are_no_items_and_do_not_count(client, pool, ws):
    agent = ws.tokens["agent"]
    await said(client, agent, "Acme pays in sixty days.")
    reply = await said(client, agent, "Noted, I will follow up.", role="ASSISTANT")
    assert reply["item"] is None
    assert statuses(await items(pool, ws)) == [("not_read", "too_few_messages")]
    async with pool.acquire() as conn:
        speakers = await conn.fetch(
            "SELECT role, speaker_kind, speaker_id FROM conversation_messages"
            " WHERE workspace_id = $1 ORDER BY created_at, role DESC",
            ws.id,
        )
    assert [tuple(r) for r in speakers][1][:2] == ("assistant", "agent")
    assert [tuple(r) for r in speakers][0] == ("user", "member", ws.members["member"])


async def test_a_cue_word_makes_one_message_enough_and_urgent(client, pool, ws):
    for n, text in enumerate(
        (
            "Remember: Acme wants every message in French.",
            "Désormais, on écrit à Claire en français.",
            "Retiens que le DAF décide seul.",
        )
    ):
        found = await said(client, ws.tokens["member"], text, conversation=f"cue-{n}")
        assert found["item"]["status"] == "WAITING", text
        assert found["item"]["urgent"] is True, text
    plain = await said(client, ws.tokens["member"], "I remembered to call.", conversation="plain")
    assert plain["item"]["reason"] == "too_few_messages"
    assert plain["item"]["urgent"] is False
    assert [r["urgent"] for r in await items(pool, ws)] == [True, True, True, False]


async def test_a_mention_of_a_record_is_never_a_cue(client, ws, pool):
    remember = await company(pool, ws, "Remember Inc")
    found = await said(client, ws.tokens["member"], f"Call @[Remember Inc](record:{remember}).")
    assert found["item"]["reason"] == "too_few_messages"


async def test_every_problem_is_listed_and_nothing_is_stored(client, pool, ws):
    response = await say(
        client,
        ws.tokens["member"],
        "x" * 20_001,
        conversation="",
        messageId="m" * 201,
        at="2026-03-02T09:00:00",
        attachedRecordId="not-an-id",
    )
    assert {p["field"] for p in problems(response)} == {
        "conversationId",
        "messageId",
        "text",
        "at",
        "attachedRecordId",
    }
    blank = await say(client, ws.tokens["member"], "   ")
    assert [p["field"] for p in problems(blank)] == ["text"]
    assert set((await counts(pool, ws)).values()) == {0}


async def test_records_the_person_may_not_read_are_not_found(client, pool, ws, ws2):
    secret = await private_deal(pool, ws, "other", "Secret deal")
    elsewhere = await company(pool, ws2, "Rival Acme")
    for given in (
        {"attachedRecordId": secret},
        {"attachedRecordId": elsewhere},
        {"text": f"What about @[Secret](record:{secret})?"},
        {"text": f"And @[Acme](record:{elsewhere})?"},
    ):
        text = given.pop("text", "Where are we?")
        response = await say(client, ws.tokens["member"], text, **given)
        assert codes(response) == ["NOT_FOUND"], given
    assert set((await counts(pool, ws)).values()) == {0}
    # Readable ones are kept with the message.
    acme = await company(pool, ws)
    found = await said(
        client, ws.tokens["member"], f"@[Acme](record:{acme})", attachedRecordId=acme
    )
    assert found["attachedRecordId"] == acme


async def test_a_re_sent_message_is_stored_once(client, pool, ws, stand):
    stand(T0)
    first = await said(client, ws.tokens["member"], "Acme pays late.", messageId="m1")
    stand(T0 + timedelta(minutes=1))
    again = await said(client, ws.tokens["member"], "Acme pays late.", messageId="m1")
    assert again["replayed"] is True
    assert again["at"] == first["at"] and again["item"] == first["item"]
    other = await say(client, ws.tokens["member"], "Acme pays early.", messageId="m1")
    assert [p["field"] for p in problems(other)] == ["messageId"]
    moved = await say(
        client, ws.tokens["member"], "Acme pays late.", messageId="m1", at=T0.isoformat()
    )
    assert data(moved)["recordMessage"]["replayed"] is True
    # Another time (an earlier one: a later one would be in the future) is other content.
    earlier = await say(
        client, ws.tokens["member"], "Acme pays late.", messageId="m1", at="2026-03-01T09:00:00Z"
    )
    assert [p["field"] for p in problems(earlier)] == ["messageId"]
    stored = await counts(pool, ws)
    assert (stored["conversation_messages"], stored["memory_items"]) == (1, 1)


async def test_a_conversation_keeps_its_person_agent_and_scope(client, pool, ws):
    await said(client, ws.tokens["agent"], "Hello", scope="WORKSPACE")
    other_agent, other_token = await new_agent(pool, ws, "Ranger", "admin")
    member = ws.tokens["member"]
    # The member's own session may name no agent, or the conversation's.
    await said(client, member, "Hi again")
    scout = await conversation_agent(pool, ws)
    await said(client, member, "And again", agentId=ws.gid(scout, "Agent"))
    response = await say(client, member, "Now you", agentId=ws.gid(other_agent, "Agent"))
    assert [p["field"] for p in problems(response)] == ["agentId"]
    response = await say(client, other_token, "Me too")
    assert [p["field"] for p in problems(response)] == ["agentId"]
    response = await say(client, member, "Private now", scope="PRIVATE")
    assert [p["field"] for p in problems(response)] == ["scope"]
    # A workspace conversation's items are private to nobody.
    assert {r["private_to"] for r in await items(pool, ws)} == {None}
    assert (await counts(pool, ws))["conversation_messages"] == 3


async def conversation_agent(pool: asyncpg.Pool, ws):
    async with pool.acquire() as conn:
        return await conn.fetchval(
            "SELECT agent_id FROM conversations WHERE workspace_id = $1", ws.id
        )


async def test_an_assistant_message_needs_an_agent(client, pool, ws):
    response = await say(client, ws.tokens["member"], "I am the bot", role="ASSISTANT")
    assert [p["field"] for p in problems(response)] == ["agentId"]
    assert set((await counts(pool, ws)).values()) == {0}
    unknown = ids.encode("Agent", ws.id, ws.id)
    response = await say(client, ws.tokens["member"], "Hi", agentId=unknown)
    assert codes(response) == ["NOT_FOUND"]


async def test_who_may_speak(client, pool, ws):
    assert codes(await say(client, ws.tokens["api_key"], "Hi")) == ["FORBIDDEN"]
    other = ws.gid(ws.members["other"], "Member")
    assert codes(await say(client, ws.tokens["member"], "Hi", personId=other)) == ["FORBIDDEN"]
    assert codes(await say(client, ws.tokens["agent"], "Hi", personId=other)) == ["FORBIDDEN"]
    assert set((await counts(pool, ws)).values()) == {0}
    # An MCP client speaks for its person.
    found = await said(client, ws.tokens["mcp_client"], "Hi")
    assert found["item"]["status"] == "NOT_READ"


async def test_conversation_ids_are_each_persons_and_each_workspaces(client, pool, ws, ws2):
    await said(client, ws.tokens["member"], "Acme pays late.", messageId="m1")
    await said(client, ws.tokens["other"], "Beta pays early.", messageId="m1")
    await said(client, ws2.tokens["member"], "Rival pays on time.", messageId="m1")
    # Each is the first message of its own conversation.
    assert statuses(await items(pool, ws)) == [("not_read", "too_few_messages")] * 2
    assert statuses(await items(pool, ws2)) == [("not_read", "too_few_messages")]
    assert (await counts(pool, ws))["conversations"] == 2
    assert (await counts(pool, ws2))["conversations"] == 1


async def test_the_share_preference_is_kept_as_it_was_at_arrival(client, pool, ws):
    member = ws.tokens["member"]
    await said(client, member, "Remember: Acme pays late.", conversation="a")
    data(await gql(client, member, SET_SHARE, {"v": False}))
    await said(client, member, "Remember: Beta pays early.", conversation="b")
    data(await gql(client, member, SET_SHARE, {"v": True}))
    await said(client, member, "Remember: Gamma pays never.", conversation="c")
    assert [r["share_with_team"] for r in await items(pool, ws)] == [True, False, True]


async def test_an_agent_that_read_another_conversation_teaches_nothing(client, pool, ws):
    agent, member = ws.tokens["agent"], ws.tokens["member"]
    await said(client, agent, "Acme pays late.")
    await said(client, agent, "They sign in March.")
    retried = await gql(
        client,
        agent,
        "mutation($i: RecordRunInput!) { recordRun(input: $i) { item { status } } }",
        {"i": {"externalId": "r1", "mission": "Chase", "retried": True, "conversationId": "c1"}},
    )
    assert data(retried)["recordRun"]["item"]["status"] == "WAITING"
    proposal = data(await gql(client, agent, PROPOSE, {"t": "Acme pays late", "c": "c1"}))
    assert proposal["proposeMemory"]["status"] == "WAITING"
    flag = await said(
        client,
        agent,
        "I looked at your other chat.",
        role="ASSISTANT",
        readAnotherConversation=True,
    )
    assert flag["readAnotherConversation"] is True
    reason = ("not_read", "agent_read_another_conversation")
    assert statuses(await items(pool, ws)) == [reason] * 4
    mine = data(await gql(client, agent, "{ myMemoryProposals { status verdict decidedAt } }"))
    assert mine["myMemoryProposals"][0]["status"] == "NOT_READ"
    assert mine["myMemoryProposals"][0]["verdict"] == "agent_read_another_conversation"
    # What comes after arrives not read.
    later = await said(client, member, "Remember: Acme wants French.")
    assert later["item"]["reason"] == "agent_read_another_conversation"
    again = data(await gql(client, agent, PROPOSE, {"t": "Acme wants French", "c": "c1"}))
    assert again["proposeMemory"]["status"] == "NOT_READ"
    assert statuses(await items(pool, ws)) == [reason] * 6
    # Another conversation of the same person is not touched.
    other = await said(client, member, "Remember: Beta pays early.", conversation="c2")
    assert other["item"]["status"] == "WAITING"


async def test_a_waiting_item_wakes_the_scheduler(client, pool, ws, dsn):
    heard: list[str] = []
    listener = await asyncpg.connect(dsn)
    await listener.add_listener("skillmem_dreamer", lambda *args: heard.append(args[2]))
    try:
        await said(client, ws.tokens["member"], "Acme pays late.")
        await listener.execute("SELECT 1")
        assert heard == []
        await said(client, ws.tokens["member"], "Remember: they sign in March.")
        await listener.execute("SELECT 1")
        assert heard == ["skillmem_dreamer"]
    finally:
        await listener.close()


async def test_concurrent_sends_of_a_message_store_it_once(client, pool, ws):
    sends = [say(client, ws.tokens["member"], "Acme pays late.", messageId="m1") for _ in range(4)]
    answers = await asyncio.gather(*sends)
    assert sorted(data(a)["recordMessage"]["replayed"] for a in answers) == [
        False,
        True,
        True,
        True,
    ]
    stored = await counts(pool, ws)
    assert (stored["conversations"], stored["conversation_messages"]) == (1, 1)
    assert stored["memory_items"] == 1
