"""Routine and agent runs as the Dreamer's source (resolvers/memory/dreamer/runs.py), through
recordRun on the real database: each condition that makes a run read, its owner and payer,
who may record it, its conversation and parent, the checks, and re-sends."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from tests.factories import agent_id, codes, company, data, private_deal, problems
from tests.memory.dreamer.intake_api import (
    counts,
    items,
    new_agent,
    new_routine,
    run,
    said,
    statuses,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOT_READ = ("not_read", "run_not_retried_failed_or_answered")


@pytest.mark.parametrize(
    ("given", "status"),
    [
        ({}, NOT_READ),
        ({"retried": True}, ("waiting", None)),
        ({"failedBefore": True}, ("waiting", None)),
        ({"answeredAfterMission": True}, ("waiting", None)),
        ({"messages": [{"role": "ASSISTANT", "text": "Done: 3 reminders sent."}]}, NOT_READ),
        (
            {
                "messages": [
                    {"role": "ASSISTANT", "text": "Done: 3 reminders sent."},
                    {"role": "USER", "text": "Not Acme, they pay in sixty days."},
                ]
            },
            ("waiting", None),
        ),
    ],
    ids=["none", "retried", "failed-before", "answered", "agent-only", "person-answered"],
)
async def test_a_run_is_read_only_when_retried_failed_or_answered(client, pool, ws, given, status):
    found = data(await run(client, ws.tokens["agent"], **given))["recordRun"]
    assert (found["item"]["status"].lower(), found["item"]["reason"]) == status
    assert found["answeredAfterMission"] is (
        given.get("answeredAfterMission", False)
        or any(m["role"] == "USER" for m in given.get("messages", []))
    )
    assert statuses(await items(pool, ws, "run")) == [status]


async def test_an_agents_run_belongs_to_the_agent_and_is_paid_by_its_owner(client, pool, ws):
    scout = await agent_id(pool, ws)
    found = data(await run(client, ws.tokens["agent"], retried=True))["recordRun"]
    assert found["runnerKind"] == "AGENT" and found["agentId"] == ws.gid(scout, "Agent")
    # Scout acts for `member` but is owned by `admin`: the admin pays.
    assert found["ownerId"] == ws.gid(ws.members["admin"], "Member")
    [item] = await items(pool, ws)
    admin = ws.members["admin"]
    assert (item["owner_kind"], item["owner_id"]) == ("agent", scout)
    assert (item["payer_kind"], item["payer_id"]) == ("member", admin)
    assert item["private_to"] == admin and item["urgent"] is False
    assert item["share_with_team"] is True


async def test_a_routines_run_and_who_may_record_it(client, pool, ws):
    nightly = ws.gid(await new_routine(pool, ws, "Nightly", "admin"), "Routine")
    # Its owner may, in their own session; another member may not; an API key may.
    found = data(await run(client, ws.tokens["admin"], routineId=nightly, scope="WORKSPACE"))
    assert found["recordRun"]["runnerKind"] == "ROUTINE"
    assert codes(await run(client, ws.tokens["member"], routineId=nightly)) == ["FORBIDDEN"]
    assert codes(await run(client, ws.tokens["agent"], routineId=nightly)) == ["FORBIDDEN"]
    data(await run(client, ws.tokens["api_key"], routineId=nightly, failedBefore=True))
    found = await items(pool, ws)
    assert [(r["owner_kind"], r["payer_id"], r["private_to"]) for r in found] == [
        ("routine", ws.members["admin"], None),
        ("routine", ws.members["admin"], ws.members["admin"]),
    ]


async def test_an_agent_records_its_own_runs_only(client, pool, ws):
    ranger, _ = await new_agent(pool, ws, "Ranger", "member")
    response = await run(client, ws.tokens["agent"], agentId=ws.gid(ranger, "Agent"))
    assert codes(response) == ["FORBIDDEN"]
    # Ranger's owner may record its runs; another member may not.
    data(await run(client, ws.tokens["member"], agentId=ws.gid(ranger, "Agent")))
    assert codes(await run(client, ws.tokens["other"], agentId=ws.gid(ranger, "Agent"))) == [
        "FORBIDDEN"
    ]
    missing = ws.gid(ws.id, "Agent")
    assert codes(await run(client, ws.tokens["api_key"], agentId=missing)) == ["NOT_FOUND"]


async def test_every_problem_is_listed_and_nothing_is_stored(client, pool, ws):
    nightly = ws.gid(await new_routine(pool, ws, "Nightly", "admin"), "Routine")
    response = await run(
        client,
        ws.tokens["admin"],
        externalId="",
        mission=" ",
        agentId=ws.gid(await agent_id(pool, ws), "Agent"),
        routineId=nightly,
        scope="WORKSPACE",
        startedAt="2026-03-02T09:00:00",
        conversationId="c" * 201,
        messages=[
            {"role": "USER", "text": ""},
            {"role": "ASSISTANT", "text": "ok", "speakerId": "?"},
        ],
    )
    assert {p["field"] for p in problems(response)} == {
        "externalId",
        "mission",
        "routineId",
        "startedAt",
        "conversationId",
        "messages.0.text",
        "messages.1.speakerId",
    }
    neither = await run(client, ws.tokens["admin"])
    assert [p["field"] for p in problems(neither)] == ["agentId"]
    too_many = [{"role": "ASSISTANT", "text": "ok"}] * 201
    response = await run(client, ws.tokens["agent"], messages=too_many)
    assert [p["field"] for p in problems(response)] == ["messages"]
    response = await run(client, ws.tokens["agent"], externalId="r1", parentRunId="r1")
    assert [p["field"] for p in problems(response)] == ["parentRunId"]
    assert set((await counts(pool, ws)).values()) == {0}


async def test_speakers_are_members_and_agents_of_the_workspace(client, pool, ws, ws2):
    other = ws.gid(ws.members["other"], "Member")
    found = data(
        await run(
            client,
            ws.tokens["agent"],
            messages=[{"role": "USER", "text": "Not Acme.", "speakerId": other}],
        )
    )
    assert found["recordRun"]["answeredAfterMission"] is True
    async with pool.acquire() as conn:
        stored = await conn.fetchval("SELECT messages FROM runs WHERE workspace_id = $1", ws.id)
    assert stored[0]["speakerKind"] == "member"
    assert stored[0]["speakerId"] == str(ws.members["other"])
    for speaker in (ws2.gid(ws2.members["member"], "Member"), ws.gid(ws.id, "Member")):
        response = await run(
            client,
            ws.tokens["agent"],
            messages=[{"role": "USER", "text": "Hi", "speakerId": speaker}],
        )
        assert codes(response) == ["NOT_FOUND"]
    assert (await counts(pool, ws))["runs"] == 1


async def test_a_run_in_a_conversation_and_a_subagents_run(client, pool, ws):
    agent = ws.tokens["agent"]
    assert codes(await run(client, agent, conversationId="nowhere")) == ["NOT_FOUND"]
    assert codes(
        await run(
            client,
            ws.tokens["api_key"],
            agentId=ws.gid(await agent_id(pool, ws), "Agent"),
            conversationId="c1",
        )
    ) == ["SCHEMA_VALIDATION_FAILED"]
    await said(client, agent, "Chase Acme.", conversation="c1")
    await said(client, agent, "Other chat.", conversation="c2")
    parent = data(await run(client, agent, externalId="p", conversationId="c1", retried=True))
    assert parent["recordRun"]["conversationId"] == "c1"
    child = data(await run(client, agent, externalId="child", parentRunId="p", retried=True))
    assert child["recordRun"]["conversationId"] == "c1"
    assert child["recordRun"]["parentRunId"] == "p"
    response = await run(client, agent, externalId="x", parentRunId="p", conversationId="c2")
    assert [p["field"] for p in problems(response)] == ["conversationId"]
    assert codes(await run(client, agent, externalId="y", parentRunId="nope")) == ["NOT_FOUND"]
    # The conversation's agent reads another: the run and its subagent are not read.
    await said(
        client, agent, "Peeked.", conversation="c1", role="ASSISTANT", readAnotherConversation=True
    )
    found = {r["source"]: (r["status"], r["reason"]) for r in await items(pool, ws, "run")}
    reason = ("not_read", "agent_read_another_conversation")
    assert found == {"p": reason, "child": reason}
    late = data(await run(client, agent, externalId="late", parentRunId="p", retried=True))
    assert late["recordRun"]["item"]["reason"] == "agent_read_another_conversation"


async def test_a_re_sent_run_is_stored_once(client, pool, ws, stand):
    stand(T0)
    given = {
        "externalId": "r1",
        "retried": True,
        "messages": [{"role": "ASSISTANT", "text": "Sent."}],
    }
    first = data(await run(client, ws.tokens["agent"], **given))["recordRun"]
    assert first["replayed"] is False and first["startedAt"] == "2026-03-02T09:00:00+00:00"
    again = data(await run(client, ws.tokens["agent"], **given))["recordRun"]
    assert again["replayed"] is True and again["item"] == first["item"]
    # The same id with other content stores nothing.
    other = await run(client, ws.tokens["agent"], **{**given, "retried": False})
    assert [p["field"] for p in problems(other)] == ["externalId"]
    other = await run(client, ws.tokens["agent"], **{**given, "mission": "Something else"})
    assert [p["field"] for p in problems(other)] == ["externalId"]
    stored = await counts(pool, ws)
    assert (stored["runs"], stored["memory_items"]) == (1, 1)


async def test_concurrent_sends_of_a_run_store_it_once(client, pool, ws):
    sends = [run(client, ws.tokens["agent"], externalId="r1", retried=True) for _ in range(4)]
    answers = await asyncio.gather(*sends)
    assert sorted(data(a)["recordRun"]["replayed"] for a in answers) == [False, True, True, True]
    stored = await counts(pool, ws)
    assert (stored["runs"], stored["memory_items"]) == (1, 1)


async def test_a_run_and_its_messages_are_not_dated_in_the_future(client, pool, ws, stand):
    stand(T0)
    soon, late = "2026-03-02T09:05:00Z", "2026-03-02T10:05:01+01:00"
    response = await run(
        client,
        ws.tokens["agent"],
        startedAt=late,
        retried=True,
        messages=[
            {"role": "ASSISTANT", "text": "Sent.", "at": soon},
            {"role": "USER", "text": "Not Acme.", "at": late},
        ],
    )
    assert [(p["field"], p["message"]) for p in problems(response)] == [
        ("startedAt", "not in the future (at most 5 minutes after now)"),
        ("messages.1.at", "not in the future (at most 5 minutes after now)"),
    ]
    assert set((await counts(pool, ws)).values()) == {0}
    found = data(await run(client, ws.tokens["agent"], startedAt=soon, retried=True))
    assert found["recordRun"]["startedAt"] == "2026-03-02T09:05:00+00:00"


async def test_a_run_mentions_only_records_its_caller_reads(client, pool, ws, ws2):
    agent = ws.tokens["agent"]  # acts for `member`
    acme = await company(pool, ws, "Acme")
    secret = await private_deal(pool, ws, "other", "Secret")
    rival = await company(pool, ws2, "Rival")
    for record in (secret, rival, ws.gid(ws.members["member"], "Member")):
        said = f"Chase @[It](record:{record})."
        assert codes(await run(client, agent, mission=said, retried=True)) == ["NOT_FOUND"]
        answer = [{"role": "USER", "text": f"Not @[It](record:{record})."}]
        assert codes(await run(client, agent, messages=answer)) == ["NOT_FOUND"]
    malformed = await run(
        client,
        agent,
        mission="Chase @[A](record:garbage).",
        messages=[{"role": "USER", "text": "See @[B](record:nope)."}],
    )
    assert [p["field"] for p in problems(malformed)] == ["mission", "messages.0.text"]
    assert set((await counts(pool, ws)).values()) == {0}
    readable = f"Chase @[Acme](record:{acme})."
    data(await run(client, agent, mission=readable, messages=[{"role": "USER", "text": "Ok."}]))
    assert (await counts(pool, ws))["runs"] == 1
