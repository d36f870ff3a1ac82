"""Routing through the pass on the real database (issue 10, item 6; DESIGN §6 "Routing"): only
among the item's linked records, the most specific first, a satellite to what it points to,
the speaker's, an agent's, a routine's and the workspace's profile, a record's page created on
its first souvenir; never a record guessed from a name."""

from __future__ import annotations

import pytest

from resolvers.memory.dreamer.reader import About
from tests.factories import agent_id, company, data, local, make_page
from tests.memory.dreamer.dreaming import said
from tests.memory.dreamer.intake_api import new_routine, run
from tests.memory.dreamer.rulebook import (
    DAY,
    HOUR,
    SOON,
    T0,
    by_text,
    calls_object,
    dream_at,
    learning,
    mention,
    on,
    record,
    souvenir,
    teaching,
    texts,
    verdicts,
)


@pytest.fixture
async def crm(pool, ws):
    """Acme, its contact Claire, and a deal with both."""
    acme = await company(pool, ws, "Acme")
    claire = await record(pool, ws, "contacts", "Claire Morel", company=acme)
    deal = await record(pool, ws, "deals", "Acme renewal", company=acme, contact=claire)
    return acme, claire, deal


async def test_an_item_about_a_deal_and_its_contact_goes_to_the_deal(pool, ws, crm, stand):
    acme, claire, deal = crm
    stand(T0)
    text = (
        f"Remember: the {mention('Acme renewal', deal)} with {mention('Claire Morel', claire)}"
        " closes only after the board meets"
    )
    item = await said(pool, ws, "member", text, T0)
    contact = await said(
        pool,
        ws,
        "member",
        f"Remember: {mention('Claire Morel', claire)} of {mention('Acme', acme)}"
        " signs every order herself",
        T0,
        conversation="c2",
    )
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, item) == [("written", None)]
    assert await verdicts(pool, ws, contact) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, deal)) == [
        "The Acme renewal with Claire Morel closes only after the board meets"
    ]
    assert await texts(pool, ws, "record", local(ws, claire)) == [
        "Claire Morel of Acme signs every order herself"
    ]
    assert await texts(pool, ws, "record", local(ws, acme)) == []


async def test_unrelated_records_leave_the_rules_reader_in_doubt(pool, ws, crm, stand):
    acme, _, _ = crm
    globex = await company(pool, ws, "Globex")
    stand(T0)
    text = f"Remember: {mention('Acme', acme)} works with {mention('Globex', globex)}"
    item = await said(pool, ws, "member", text, T0)
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, item) == [("refused", "no_subject")]


async def test_a_satellite_goes_to_its_most_specific_record(pool, ws, crm, stand):
    acme, claire, deal = crm
    await calls_object(pool, ws)
    # Each call points to some of the three; its souvenir goes to the most specific.
    to_deal = await record(pool, ws, "calls", "Call 1", company=acme, contact=claire, deal=deal)
    to_contact = await record(pool, ws, "calls", "Call 2", company=acme, contact=claire)
    to_company = await record(pool, ws, "calls", "Call 3", company=acme)
    stand(T0)
    made = {}
    for n, call in enumerate((to_deal, to_contact, to_company), start=1):
        made[call] = await said(
            pool, ws, "member", f"Remember: #{n}", T0, conversation=f"c{n}", attached=call
        )
    reader = by_text(
        {
            f"#{n}": lambda item, _, call=call, n=n: learning(item, f"Learned {n}", about=on(call))
            for n, call in enumerate((to_deal, to_contact, to_company), start=1)
        }
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    for item in made.values():
        assert await verdicts(pool, ws, item) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, deal)) == ["Learned 1"]
    assert await texts(pool, ws, "record", local(ws, claire)) == ["Learned 2"]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Learned 3"]
    for call in made:
        assert await texts(pool, ws, "record", local(ws, call)) == []


async def test_a_task_goes_to_its_deal_and_a_task_with_no_deal_is_refused(pool, ws, crm, stand):
    _, _, deal = crm
    tied = await record(pool, ws, "tasks", "Send the contract", deal=deal)
    loose = await record(pool, ws, "tasks", "Tidy the desk")
    stand(T0)
    # The rules reader: the mentioned task is what the souvenir is about.
    kept = await said(
        pool,
        ws,
        "member",
        f"Remember: for {mention('Send the contract', tied)} the client signs on paper only",
        T0,
    )
    refused = await said(
        pool,
        ws,
        "member",
        f"Remember: for {mention('Tidy the desk', loose)} the cleaners come on Fridays",
        T0,
        conversation="c2",
    )
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, kept) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, deal)) == [
        "For Send the contract the client signs on paper only"
    ]
    assert await verdicts(pool, ws, refused) == [("refused", "satellite_no_record")]
    assert await texts(pool, ws, "record", local(ws, tied)) == []


async def test_about_the_speaker_goes_to_their_own_profile(pool, ws, stand):
    stand(T0)
    item = await said(pool, ws, "member", "Remember: I prefer short answers", T0)
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, item) == [("written", None)]
    assert await texts(pool, ws, "member", ws.members["member"]) == ["I prefer short answers"]


async def test_a_rule_for_the_whole_team_goes_to_the_workspace_profile(pool, ws, stand):
    stand(T0)
    text = "Retiens : chez nous le DAF signe seul les devis"
    admin = await said(pool, ws, "admin", text, T0)
    # A member who may not change the workspace's settings does not shape its profile.
    member = await said(pool, ws, "member", "Retiens : chez nous on tutoie les clients", T0)
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, admin) == [("written", None)]
    assert await verdicts(pool, ws, member) == [("refused", "not_permitted")]
    assert await texts(pool, ws, "workspace", None) == ["Chez nous le DAF signe seul les devis"]


async def test_how_an_agent_works_goes_to_its_profile_shaped_by_who_may_edit_it(pool, ws, stand):
    scout = await agent_id(pool, ws)
    kept = souvenir("Scout signs as Scout", "Admin", T0 - DAY, "consigne")
    await make_page(pool, ws, "agent", scout, kept, name="Scout")
    stand(T0)
    # Scout is the admin's agent: its owner may shape its profile, another member may not.
    # Neither conversation is with Scout: the agent is named only by what is learned.
    owner = await said(pool, ws, "admin", "Remember: #owner", T0)
    other = await said(pool, ws, "member", "Remember: #other", T0)
    about = About(kind="agent", id=ws.gid(scout, "Agent"))
    reader = by_text(
        {
            "#owner": lambda item, _: learning(item, "Scout answers in French", "consigne", about),
            "#other": lambda item, _: learning(item, "Scout answers in Dutch", "consigne", about),
        }
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, owner) == [("written", None)]
    assert await verdicts(pool, ws, other) == [("refused", "not_permitted")]
    assert await texts(pool, ws, "agent", scout) == [
        "Scout signs as Scout",
        "Scout answers in French",
    ]
    async with pool.acquire() as conn:
        pages = await conn.fetchval(
            "SELECT count(*) FROM memory_pages WHERE workspace_id = $1 AND agent_id = $2",
            ws.id,
            scout,
        )
    assert pages == 1


async def test_an_agents_and_a_routines_workspace_runs_teach_their_own_profiles(
    pool, ws, client, stand
):
    scout = await agent_id(pool, ws)
    nightly = await new_routine(pool, ws, "Nightly", "admin")
    stand(T0)
    by_scout = data(await run(client, ws.tokens["agent"], retried=True, scope="WORKSPACE"))
    routine = ws.gid(nightly, "Routine")
    given = {"routineId": routine, "failedBefore": True, "scope": "WORKSPACE"}
    by_routine = data(await run(client, ws.tokens["admin"], **given))
    # A private run of the same routine: its words stay within its owner's scope.
    given = {**given, "scope": "PRIVATE", "externalId": "private-run"}
    private = data(await run(client, ws.tokens["admin"], **given))
    assert private["recordRun"]["item"]["status"] == "WAITING"
    reader = by_text(
        {
            "Chase": lambda item, _: learning(
                item, "Chase invoices only after ten days", "consigne", About(kind="speaker")
            ),
        }
    )
    # Runs are not urgent: their passes come after the grouping wait.
    reports = await dream_at(pool, ws, T0 + HOUR + SOON, reader)
    assert sorted(r.owner.owner_kind for r in reports) == ["agent", "routine"]
    assert [r.written for r in reports] == [1, 1]
    assert await texts(pool, ws, "agent", scout) == ["Chase invoices only after ten days"]
    assert await texts(pool, ws, "routine", nightly) == ["Chase invoices only after ten days"]
    assert by_scout["recordRun"]["item"]["status"] == "WAITING"
    assert by_routine["recordRun"]["item"]["status"] == "WAITING"
    async with pool.acquire() as conn:
        found = await conn.fetch(
            "SELECT i.private_to IS NULL AS workspace, v.verdict, v.reason FROM memory_items i"
            " JOIN memory_verdicts v ON v.workspace_id = i.workspace_id AND v.item_id = i.id"
            " WHERE i.workspace_id = $1 AND i.run_id IS NOT NULL AND i.owner_kind = 'routine'",
            ws.id,
        )
    assert sorted(tuple(row) for row in found) == [
        (False, "refused", "not_permitted"),
        (True, "written", None),
    ]


async def test_a_records_page_is_created_on_its_first_souvenir_and_then_written(
    pool, ws, crm, stand
):
    acme, _, _ = crm
    stand(T0)
    await said(pool, ws, "member", f"Remember: {mention('Acme', acme)} #one", T0)
    assert await texts(pool, ws, "record", local(ws, acme)) == []
    await dream_at(pool, ws, T0 + SOON, teaching("Acme buys in spring", about=on(acme)))
    stand(T0 + 2 * SOON)
    await said(pool, ws, "member", f"Remember: {mention('Acme', acme)} #two", T0 + 2 * SOON)
    await dream_at(pool, ws, T0 + 3 * SOON, teaching("Acme pays in sixty days", about=on(acme)))
    assert await texts(pool, ws, "record", local(ws, acme)) == [
        "Acme buys in spring",
        "Acme pays in sixty days",
    ]
    async with pool.acquire() as conn:
        pages = await conn.fetch(
            "SELECT r.label AS name FROM memory_pages p JOIN records r"
            " ON r.workspace_id = p.workspace_id AND r.id = p.id"
            " WHERE p.workspace_id = $1 AND p.subject_id = $2",
            ws.id,
            local(ws, acme),
        )
    assert [p["name"] for p in pages] == ["Acme"]
