"""A conversation compacted or ended (issue 12, item 2; seed 000 "What agents see"), through
GraphQL as a frontend calls it: the profiles snapshot is kept until the conversation is
compacted (a page a pass rewrote meanwhile then reaches the agent) or ends (a new turn of it
is refused); a replay by message id answers what was stored; only the conversation's person
or its agent may change it (any other id answers NOT_FOUND like a missing one)."""

from __future__ import annotations

from typing import Any

import asyncpg
import httpx

from db.pool import begin_workspace
from tests.factories import Workspace, agent_id, codes, data, gql, make_page, problems, write_page
from tests.memory.dreamer.dreaming import said
from tests.memory.dreamer.rulebook import HOUR, T0, dream_at

TURN = (
    "query($input: TurnInput!) { turnContext(input: $input) { replayed "
    "profiles { workspace person agent } } }"
)
STATE = "conversationId compactions compactedAt endedAt ended"
COMPACT = f"mutation($id: String!) {{ compactConversation(conversationId: $id) {{ {STATE} }} }}"
END = f"mutation($id: String!) {{ endConversation(conversationId: $id) {{ {STATE} }} }}"


def souvenir(text: str, author: str = "Member") -> str:
    return f"- {text} — {author}, 2026-10-02 [relation]"


async def turn(client: httpx.AsyncClient, token: str, **given: Any) -> httpx.Response:
    return await gql(client, token, TURN, {"input": {"message": "Hello", **given}})


async def ask(client: httpx.AsyncClient, token: str, **given: Any) -> dict[str, Any]:
    found: dict[str, Any] = data(await turn(client, token, **given), "turnContext")
    return found


async def compact(client: httpx.AsyncClient, token: str, conversation: str) -> httpx.Response:
    return await gql(client, token, COMPACT, {"id": conversation})


async def end(client: httpx.AsyncClient, token: str, conversation: str) -> httpx.Response:
    return await gql(client, token, END, {"id": conversation})


async def events(pool: asyncpg.Pool, ws: Workspace) -> list[tuple[str, str, str]]:
    """The workspace's conversation events, in order: (conversation, kind, actor kind)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rows = await conn.fetch(
            "SELECT conversation_id, kind, actor_kind FROM conversation_events ORDER BY at, kind"
        )
    return [(r["conversation_id"], r["kind"], r["actor_kind"]) for r in rows]


async def test_a_page_a_pass_rewrote_reaches_the_agent_only_after_compaction(
    pool, client, ws, stand
):
    stand(T0)
    await make_page(pool, ws, "member", ws.members["member"], souvenir("I like tea"), name="M")
    agent = ws.tokens["agent"]
    first = await ask(client, agent, conversationId="c1", messageId="m1")
    assert first["profiles"]["person"] == souvenir("I like tea")
    # The person asks, in this conversation, to remember something; the pass writes it to
    # their profile mid-conversation.
    await said(pool, ws, "member", "Remember: I prefer answers in French", T0)
    [report] = await dream_at(pool, ws, T0 + HOUR)
    assert report.written == 1
    stand(T0 + HOUR)
    fresh = (await ask(client, ws.tokens["member"], conversationId="elsewhere"))["profiles"]
    assert "I prefer answers in French" in fresh["person"]

    # Before compaction the conversation keeps its snapshot.
    before = await ask(client, agent, conversationId="c1", messageId="m2")
    assert before["replayed"] is False
    assert before["profiles"] == first["profiles"]

    compacted = data(await compact(client, agent, "c1"), "compactConversation")
    assert compacted["conversationId"] == "c1" and compacted["compactions"] == 1
    assert compacted["compactedAt"] is not None and compacted["ended"] is False

    after = await ask(client, agent, conversationId="c1", messageId="m3")
    assert after["profiles"]["person"] == fresh["person"]
    assert "I prefer answers in French" in after["profiles"]["person"]
    # The new snapshot is kept in turn until the next compaction.
    await make_page(pool, ws, "workspace", None, souvenir("Be brief", "Admin"), name="W")
    kept = await ask(client, agent, conversationId="c1", messageId="m4")
    assert kept["profiles"] == after["profiles"]
    assert (await events(pool, ws)) == [("c1", "compacted", "agent")]


async def test_a_replay_by_message_id_answers_what_was_stored(pool, client, ws):
    mine = await make_page(pool, ws, "member", ws.members["member"], souvenir("Tea"), name="M")
    member = ws.tokens["member"]
    old = await ask(client, member, conversationId="c1", messageId="m1")
    await write_page(pool, ws, mine, souvenir("Coffee"))
    assert data(await compact(client, member, "c1"), "compactConversation")["compactions"] == 1
    new = await ask(client, member, conversationId="c1", messageId="m2")
    assert new["profiles"]["person"] == souvenir("Coffee")
    await write_page(pool, ws, mine, souvenir("Water"))
    assert data(await compact(client, member, "c1"), "compactConversation")["compactions"] == 2
    # Each message answers the profiles its turn read, compacted since or not, with or
    # without its conversation named.
    for message, expected in (("m1", old), ("m2", new)):
        for given in ({"conversationId": "c1"}, {}):
            again = await ask(client, member, messageId=message, **given)
            assert again["replayed"] is True
            assert again["profiles"] == expected["profiles"]
    assert (await ask(client, member, conversationId="c1"))["profiles"]["person"] == (
        souvenir("Water")
    )


async def test_an_ended_conversation_replays_its_turns_and_refuses_new_ones(pool, client, ws):
    member = ws.tokens["member"]
    await make_page(pool, ws, "member", ws.members["member"], souvenir("Tea"), name="M")
    first = await ask(client, member, conversationId="c1", messageId="m1")
    ended = data(await end(client, member, "c1"), "endConversation")
    assert ended["ended"] is True and ended["endedAt"] is not None
    assert ended["compactions"] == 0
    # Recorded once: ending it again answers the same end.
    assert data(await end(client, member, "c1"), "endConversation") == ended
    assert (await events(pool, ws)) == [("c1", "ended", "member")]

    again = await ask(client, member, conversationId="c1", messageId="m1")
    assert again["replayed"] is True and again["profiles"] == first["profiles"]
    for given in ({"messageId": "m2"}, {}):
        response = await turn(client, member, conversationId="c1", **given)
        assert codes(response) == ["MEMORY_PRECONDITION_FAILED"]
        assert response.json()["errors"][0]["extensions"]["problems"] == [
            {"message": "this conversation has ended", "field": "conversationId"}
        ]
    response = await compact(client, member, "c1")
    assert codes(response) == ["MEMORY_PRECONDITION_FAILED"]
    assert "ended" in response.json()["errors"][0]["message"]
    assert (await events(pool, ws)) == [("c1", "ended", "member")]
    # Another conversation begins.
    assert (await ask(client, member, conversationId="c2"))["profiles"] == first["profiles"]


async def test_only_the_person_or_the_conversations_agent_changes_it(pool, client, ws, ws2):
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    await ask(client, ws.tokens["member"], conversationId="mine")
    await ask(client, ws.tokens["member"], conversationId="scouts", agentId=scout)
    missing = await compact(client, ws.tokens["member"], "never-begun")
    assert codes(missing) == ["NOT_FOUND"]
    # Another person's, another agent's, another workspace's: exactly like a missing one.
    for token, conversation in (
        (ws.tokens["other"], "mine"),
        (ws.tokens["admin"], "scouts"),
        (ws.tokens["agent"], "mine"),
        (ws2.tokens["member"], "mine"),
    ):
        for change in (compact, end):
            response = await change(client, token, conversation)
            assert codes(response) == ["NOT_FOUND"]
            assert (
                response.json()["errors"][0]["message"] == (missing.json()["errors"][0]["message"])
            )
    assert (await events(pool, ws)) == []
    # An API key acts for no one.
    assert codes(await compact(client, ws.tokens["api_key"], "mine")) == ["FORBIDDEN"]
    # The person (any token acting for them) and the conversation's agent may.
    assert data(await compact(client, ws.tokens["agent"], "scouts"), "compactConversation")
    assert data(await compact(client, ws.tokens["mcp_client"], "mine"), "compactConversation")
    assert data(await end(client, ws.tokens["member"], "scouts"), "endConversation")["ended"]
    assert sorted(await events(pool, ws)) == [
        ("mine", "compacted", "member"),
        ("scouts", "compacted", "agent"),
        ("scouts", "ended", "member"),
    ]
    # The other person's own "mine" is theirs alone.
    await ask(client, ws.tokens["other"], conversationId="mine")
    assert data(await end(client, ws.tokens["other"], "mine"), "endConversation")["ended"]
    assert (await ask(client, ws.tokens["member"], conversationId="mine"))["replayed"] is False


async def test_a_conversation_begun_by_its_messages_is_compacted(pool, client, ws, stand):
    await said(pool, ws, "member", "Hello there", T0, conversation="recorded")
    found = data(await compact(client, ws.tokens["member"], "recorded"), "compactConversation")
    assert found["compactions"] == 1


async def test_a_conversation_id_is_checked(client, ws):
    await ask(client, ws.tokens["member"], conversationId="x" * 200)
    for change in (compact, end):
        assert data(await change(client, ws.tokens["member"], "x" * 200))
        for conversation in ("", "x" * 201):
            assert problems(await change(client, ws.tokens["member"], conversation)) == [
                {"message": "1 to 200 characters, no NUL", "field": "conversationId"}
            ]
        # A NUL is refused before anything reads it.
        assert problems(await change(client, ws.tokens["member"], "a\x00b"))
