"""Sharing and who may shape a page, through the pass on the real database (issue 10, item 6;
DESIGN §5 "Sharing", "Who may shape a shared page"): what a private source tells a record's
page, what stays on the person's profile with a reference to the record, the person's
memory.shareWithTeam as it was when the item arrived, workspace sources, and whose words may
reach a shared page."""

from __future__ import annotations

import pytest

from tests.factories import company, data, gql, local
from tests.memory.dreamer import intake_api
from tests.memory.dreamer.dreaming import lines_of, said
from tests.memory.dreamer.intake_api import PROPOSE, meeting
from tests.memory.dreamer.rulebook import (
    HOUR,
    SOON,
    T0,
    by_text,
    content,
    dream_at,
    learning,
    mention,
    on,
    teaching,
    texts,
    verdicts,
)

SHARE = """mutation($v: Boolean!) {
  setMemoryPreference(key: SHARE_WITH_TEAM, value: $v) { shareWithTeam } }"""
GROUPED = HOUR + SOON  # past the grouping wait: a pass with no remember-request is due


@pytest.fixture
async def acme(pool, ws):
    return await company(pool, ws, "Acme")


async def share(client, ws, who: str, value: bool) -> None:
    found = data(await gql(client, ws.tokens[who], SHARE, {"v": value}))
    assert found["setMemoryPreference"]["shareWithTeam"] is value


@pytest.mark.parametrize("kind", ["relation", "contexte", "décision"])
async def test_a_private_relation_contexte_or_decision_reaches_the_records_page(
    pool, ws, acme, stand, kind
):
    stand(T0)
    item = await said(pool, ws, "member", f"Remember: {mention('Acme', acme)}", T0)
    await dream_at(pool, ws, T0 + SOON, teaching("Acme signs in March", kind, on(acme)))
    assert await verdicts(pool, ws, item) == [("written", None)]
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    assert (line["text"], line["type"], line["about_id"]) == ("Acme signs in March", kind, None)
    # Its source is the person's private conversation, named by its owner.
    assert (line["source_kind"], line["source_id"]) == ("conversation", ws.members["member"])
    assert await texts(pool, ws, "member", ws.members["member"]) == []


@pytest.mark.parametrize("kind", ["consigne", "préférence"])
async def test_a_private_consigne_or_preference_stays_on_the_persons_profile(
    pool, ws, acme, stand, kind
):
    stand(T0)
    item = await said(pool, ws, "member", f"Remember: {mention('Acme', acme)}", T0)
    await dream_at(pool, ws, T0 + SOON, teaching("Write to Acme in English", kind, on(acme)))
    assert await verdicts(pool, ws, item) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == []
    [line] = await lines_of(pool, ws, "member", ws.members["member"])
    assert (line["text"], line["type"]) == ("Write to Acme in English", kind)
    assert line["about_id"] == local(ws, acme)
    # The profile names the record it is about.
    shown = await content(pool, ws, "member", ws.members["member"])
    assert f"- @[Acme](record:{acme}) Write to Acme in English" in shown


async def test_the_rules_reader_keeps_a_standing_instruction_about_a_record_private(
    pool, ws, acme, stand
):
    stand(T0)
    text = f"From now on, write to {mention('Acme', acme)} in English only"
    item = await said(pool, ws, "member", text, T0)
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, item) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == []
    [line] = await lines_of(pool, ws, "member", ws.members["member"])
    assert (line["text"], line["type"]) == ("Write to Acme in English only", "consigne")
    assert line["about_id"] == local(ws, acme)


async def test_sharing_turned_off_before_an_item_arrives_keeps_it_on_the_profile(
    pool, ws, client, acme, stand
):
    stand(T0)
    await share(client, ws, "member", False)
    text = f"Remember: {mention('Acme', acme)} signs every order in March"
    item = await said(pool, ws, "member", text, T0)
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, item) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == []
    [line] = await lines_of(pool, ws, "member", ws.members["member"])
    assert line["text"] == "Acme signs every order in March"
    assert line["about_id"] == local(ws, acme)
    # Turned on again, what arrives after is shared.
    stand(T0 + 2 * SOON)
    await share(client, ws, "member", True)
    text = f"Remember: {mention('Acme', acme)} pays in sixty days"
    later = await said(pool, ws, "member", text, T0 + 2 * SOON, conversation="c2")
    await dream_at(pool, ws, T0 + 3 * SOON)
    assert await verdicts(pool, ws, later) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Acme pays in sixty days"]


async def test_sharing_turned_off_after_an_item_arrived_still_shares_it(
    pool, ws, client, acme, stand
):
    stand(T0)
    text = f"Remember: {mention('Acme', acme)} signs every order in March"
    item = await said(pool, ws, "member", text, T0)
    # Turned off before its pass: the preference when it arrived counts.
    stand(T0 + SOON / 2)
    await share(client, ws, "member", False)
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, item) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Acme signs every order in March"]
    assert await texts(pool, ws, "member", ws.members["member"]) == []


async def test_a_workspace_source_is_not_restricted_by_sharing(pool, ws, client, acme, stand):
    stand(T0)
    await share(client, ws, "member", False)
    # A workspace conversation: a consigne about Acme, with sharing off, reaches Acme's page.
    item = await said(
        pool, ws, "member", f"Remember: {mention('Acme', acme)}", T0, scope="workspace"
    )
    await dream_at(pool, ws, T0 + SOON, teaching("Write to Acme in English", "consigne", on(acme)))
    assert await verdicts(pool, ws, item) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Write to Acme in English"]
    assert await texts(pool, ws, "member", ws.members["member"]) == []


async def test_a_workspace_meeting_is_not_held_to_the_private_sharing_rule(
    pool, ws, client, acme, stand
):
    stand(T0)
    transcript = "Claire: our CEO is in hospital, we sign in March."
    given = {"recordIds": [acme], "transcript": transcript, "heldAt": T0.isoformat()}
    private = data(await meeting(client, ws.tokens["member"], **given))["recordMeeting"]
    given |= {"scope": "WORKSPACE", "externalId": "workspace-meeting"}
    shared = data(await meeting(client, ws.tokens["admin"], **given))["recordMeeting"]
    assert (private["scope"], shared["scope"]) == ("PRIVATE", "WORKSPACE")
    reader = by_text(
        {
            "hospital": lambda item, _: learning(
                item, "Acme's CEO is in hospital", "contexte", on(acme), sensitive="health"
            ),
            "March": lambda item, _: learning(item, "Acme signs in March", "consigne", on(acme)),
        }
    )
    reports = await dream_at(pool, ws, T0 + GROUPED, reader)
    assert sorted(r.owner.owner_kind for r in reports) == ["member", "workspace"]
    items = {row["meeting_id"]: row for row in await intake_api.items(pool, ws, "meeting")}
    by_scope = {
        "private": local(ws, private["id"]),
        "workspace": local(ws, shared["id"]),
    }
    found = {
        scope: await verdicts(pool, ws, items[meeting_id]["id"])
        for scope, meeting_id in by_scope.items()
    }
    # From the member's own meeting: the sensitive learning never leaves it, and the
    # consigne stays on their profile (the meeting's owner speaks for it).
    assert found["private"] == [("refused", "sensitive_private_to_shared"), ("written", None)]
    [line] = await lines_of(pool, ws, "member", ws.members["member"])
    assert (line["text"], line["about_id"]) == ("Acme signs in March", local(ws, acme))
    # From the workspace's meeting the sharing rule does not apply; but nobody of the
    # workspace is known to have said it, and nobody's words shape Acme's page.
    assert found["workspace"] == [("refused", "not_permitted"), ("refused", "not_permitted")]
    assert await texts(pool, ws, "record", local(ws, acme)) == []


async def test_an_agents_proposal_from_a_private_conversation_never_reaches_a_shared_page(
    pool, ws, client, acme, stand
):
    stand(T0)
    agent = ws.tokens["agent"]
    await intake_api.said(client, agent, "Let us talk about Acme.", conversation="c1")
    relation = f"{mention('Acme', acme)} wants every message in French"
    consigne = f"Always write to {mention('Acme', acme)} in French"
    proposals = [
        data(await gql(client, agent, PROPOSE, {"t": text, "c": "c1", "r": acme}))
        for text in (relation, consigne)
    ]
    await dream_at(pool, ws, T0 + SOON)
    found = {row["source"]: row["id"] for row in await intake_api.items(pool, ws, "proposal")}
    assert await verdicts(pool, ws, found[relation]) == [("refused", "not_permitted")]
    assert await verdicts(pool, ws, found[consigne]) == [("written", None)]
    # The agent's words rest on a private conversation: Acme's page, read by everyone who
    # reads Acme, never holds them; the person's own profile (which only the conversation's
    # person reads) may.
    assert await texts(pool, ws, "record", local(ws, acme)) == []
    [line] = await lines_of(pool, ws, "member", ws.members["member"])
    assert (line["text"], line["author"], line["about_id"]) == (
        "Always write to Acme in French",
        "Scout",
        local(ws, acme),
    )
    assert [p["proposeMemory"]["status"] for p in proposals] == ["WAITING", "WAITING"]


async def test_a_persons_own_proposal_reaches_a_record_they_may_update(
    pool, ws, client, acme, stand
):
    stand(T0)
    text = "Acme wants every message in French"
    mine = data(await gql(client, ws.tokens["member"], PROPOSE, {"t": text, "r": acme}))
    viewer = data(await gql(client, ws.tokens["viewer"], PROPOSE, {"t": text, "r": acme}))
    await dream_at(pool, ws, T0 + SOON)
    found = {row["proposal_id"]: row for row in await intake_api.items(pool, ws, "proposal")}
    ids = [local(ws, p["proposeMemory"]["id"], "MemoryProposal") for p in (mine, viewer)]
    assert await verdicts(pool, ws, found[ids[0]]["id"]) == [("written", None)]
    assert await verdicts(pool, ws, found[ids[1]]["id"]) == [("refused", "not_permitted")]
    assert await texts(pool, ws, "record", local(ws, acme)) == [text]
