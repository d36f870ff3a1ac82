"""A pass over runs (resolvers/memory/dreamer/runs.py and items.py, through the pass): a run
made in a person's conversation is that person's words (private to them, their sharing
preference, their conversation as a souvenir's source) while its runner's owner pays; what
memoryItems shows of it to each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from resolvers.memory.dreamer.passes import PassSettings, owner_of, run_pass
from resolvers.memory.dreamer.reader import (
    About,
    Batch,
    Candidate,
    ItemLearnings,
    ReaderAnswer,
    Usage,
    Voice,
)
from tests.factories import agent_id, company, data, gql, local
from tests.memory.dreamer.dreaming import FixedReader, lines_of
from tests.memory.dreamer.intake_api import items, run, said

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SET_SHARE = """mutation($v: Boolean!) {
  setMemoryPreference(key: SHARE_WITH_TEAM, value: $v) { shareWithTeam } }"""
ITEMS = """{ memoryItems { items { kind sourceOpen text payerName
  verdicts { verdict reason pageId lineKey text } } } }"""


@pytest.fixture
async def acme(pool, ws):
    return await company(pool, ws, "Acme")


def _stated_by_the_person(ws: Any) -> Any:
    """A reader answering, for every item, one contexte about its first linked record, stated
    by `member` (the person whose conversation the run is in)."""
    member = Voice(kind="person", id=ws.gid(ws.members["member"], "Member"), name="Member")

    def make(batch: Batch) -> ReaderAnswer:
        learnings = tuple(
            ItemLearnings(
                item_id=item.id,
                candidates=(
                    Candidate(
                        text="Acme pays in sixty days.",
                        type="contexte",
                        about=About(kind="record", id=item.record_ids[0]),
                        stated_by=member,
                    ),
                ),
            )
            for item in batch.items
        )
        return ReaderAnswer(learnings=learnings, usage=Usage())

    return make


async def _run_in_members_conversation(client: Any, ws: Any, acme: str) -> dict[str, Any]:
    """Scout (owned by `admin`, acting for `member`) runs in `member`'s conversation c1, and
    `member` answers after the mission."""
    agent = ws.tokens["agent"]
    await said(client, agent, "Chase the invoices.", conversation="c1")
    answer = f"Not @[Acme](record:{acme}): they pay in sixty days."
    found: dict[str, Any] = data(
        await run(
            client,
            agent,
            externalId="r1",
            conversationId="c1",
            messages=[{"role": "USER", "text": answer}],
        )
    )["recordRun"]
    return found


async def test_a_run_in_a_persons_conversation_is_theirs_and_its_owner_pays(
    client, pool, ws, acme, stand
):
    stand(T0)
    # The person shares nothing with the team; the agent's owner (admin) does.
    data(await gql(client, ws.tokens["member"], SET_SHARE, {"v": False}))
    found = await _run_in_members_conversation(client, ws, acme)
    assert found["item"]["status"] == "WAITING" and found["item"]["shareWithTeam"] is False
    scout, member, admin = await agent_id(pool, ws), ws.members["member"], ws.members["admin"]
    [item] = await items(pool, ws, "run")
    assert (item["owner_kind"], item["owner_id"]) == ("agent", scout)
    assert (item["payer_kind"], item["payer_id"]) == ("member", admin)
    assert item["private_to"] == member and item["share_with_team"] is False

    # The person sees the run and opens it; its payer sees it paid for, but not its text.
    mine = data(await gql(client, ws.tokens["member"], ITEMS))["memoryItems"]["items"]
    [seen] = [i for i in mine if i["kind"] == "run"]
    assert seen["sourceOpen"] is True and seen["text"] == "Chase the unpaid invoices of the week."
    paid = data(await gql(client, ws.tokens["admin"], ITEMS))["memoryItems"]["items"]
    [hidden] = [i for i in paid if i["kind"] == "run"]
    assert (hidden["sourceOpen"], hidden["text"], hidden["payerName"]) == (False, None, "Admin")

    # A learning from it: the person's sharing preference keeps it on their own profile, with
    # their conversation as its source; the pass is the agent's, paid by its owner.
    stand(T0 + timedelta(hours=2))
    settings = PassSettings(reader=FixedReader(_stated_by_the_person(ws)))
    report = await run_pass(pool, owner_of(ws.id, "agent", scout), settings)
    assert (report.read, report.written) == (1, 1)
    [line] = await lines_of(pool, ws, "member", member)
    assert (line["source_kind"], line["source_id"]) == ("conversation", member)
    assert line["about_id"] == local(ws, acme)
    assert await lines_of(pool, ws, "record", local(ws, acme)) == []
    async with pool.acquire() as conn:
        payer = await conn.fetchrow(
            "SELECT owner_kind, payer_kind, payer_id FROM memory_passes WHERE workspace_id = $1",
            ws.id,
        )
    assert tuple(payer) == ("agent", "member", admin)
    paid = data(await gql(client, ws.tokens["admin"], ITEMS))["memoryItems"]["items"]
    [hidden] = [i for i in paid if i["kind"] == "run"]
    assert [v["text"] for v in hidden["verdicts"]] == [None]


async def test_a_run_outside_any_conversation_stays_its_owners(client, pool, ws, stand):
    stand(T0)
    data(await run(client, ws.tokens["agent"], externalId="r1", retried=True))
    [item] = await items(pool, ws, "run")
    assert item["private_to"] == ws.members["admin"]
    mine = data(await gql(client, ws.tokens["member"], ITEMS))["memoryItems"]["items"]
    assert [i for i in mine if i["kind"] == "run"] == []
    paid = data(await gql(client, ws.tokens["admin"], ITEMS))["memoryItems"]["items"]
    assert [(i["kind"], i["sourceOpen"]) for i in paid] == [("run", True)]


async def test_a_workspace_run_is_private_while_its_conversation_is(client, pool, ws, stand):
    stand(T0)
    agent = ws.tokens["agent"]
    await said(client, agent, "Chase the invoices.", conversation="mine")
    await said(client, agent, "Chase the invoices.", conversation="ours", scope="WORKSPACE")
    for conversation in ("mine", "ours"):
        given = {"conversationId": conversation, "scope": "WORKSPACE", "retried": True}
        data(await run(client, agent, externalId=f"in-{conversation}", **given))
    found = {row["source"]: row["private_to"] for row in await items(pool, ws, "run")}
    assert found == {"in-mine": ws.members["member"], "in-ours": None}


async def test_a_run_is_read_as_what_was_said_after_its_mission_and_by_whom(
    client, pool, ws, acme, stand
):
    stand(T0)
    agent = ws.tokens["agent"]
    await said(client, agent, "Chase the invoices.", conversation="c1")
    answer = f"Not @[Acme](record:{acme}): they pay in sixty days."
    messages = [
        {"role": "ASSISTANT", "text": "Done: 3 reminders sent."},
        {"role": "USER", "text": answer},
    ]
    data(await run(client, agent, externalId="r1", conversationId="c1", messages=messages))
    stand(T0 + timedelta(hours=2))
    reader = FixedReader()
    scout = await agent_id(pool, ws)
    await run_pass(pool, owner_of(ws.id, "agent", scout), PassSettings(reader=reader))
    [batch] = reader.calls
    [item] = batch.items
    assert item.text == f"Scout: Done: 3 reminders sent.\nMember: {answer}"
    assert item.context == "Chase the unpaid invoices of the week."
    # The person answered after the mission: the item is their words, not the agent's.
    assert item.speaker == Voice(
        kind="person", id=ws.gid(ws.members["member"], "Member"), name="Member"
    )
    assert item.record_ids == (acme,)
