"""What a learning does to the souvenirs already on its page, through the pass on the real
database (issue 10, item 6; DESIGN §5-§6 "Contradictions", caps, ✍ lines, the mission): a ✍
line kept, older evidence refused, a changing fact's newest event, a fixed fact's person's
version, a same-day correction, doubt; a confirmation moving the day and the review date; a
full page; the mission section untouched."""

from __future__ import annotations

import pytest

from resolvers.memory.dreamer.reader import About
from tests.factories import agent_id, company, data, local, make_page
from tests.memory.dreamer.dreaming import lines_of, said
from tests.memory.dreamer.intake_api import items, run
from tests.memory.dreamer.rulebook import (
    DAY,
    HOUR,
    SOON,
    T0,
    by_hand,
    by_text,
    content,
    dream_at,
    key_of,
    learning,
    mention,
    on,
    reading,
    review_of,
    souvenir,
    teaching,
    texts,
    verdicts,
)

MINUTE = SOON / 6
MISSION = "## Mission mémoire\nNous retenons comment chaque client veut être contacté."


@pytest.fixture
async def acme(pool, ws):
    return await company(pool, ws, "Acme")


def contradicting(old: str, new: str, about: About, **more) -> object:
    """A learning of ``new`` that contradicts the line saying ``old``."""
    return lambda item, batch: learning(
        item, new, "contexte", about, contradicts=key_of(batch, old), **more
    )


async def test_a_human_line_is_kept_against_a_persons_contradiction(pool, ws, client, acme, stand):
    stand(T0 - 10 * DAY)
    first = souvenir("Acme buys in spring", "Scout", T0 - 10 * DAY)
    page = await make_page(pool, ws, "record", local(ws, acme), first, name="Acme")
    await by_hand(client, ws, "admin", page, f"{first}\n- Acme pays in sixty days [relation]")
    stand(T0)
    item = await said(pool, ws, "member", f"Remember: {mention('Acme', acme)}", T0)
    reader = by_text(
        {
            "Remember": contradicting(
                "Acme pays in sixty days",
                "Acme pays in thirty days",
                on(acme),
                changes_over_time=True,
            )
        }
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, item) == [("refused", "person_version_kept")]
    found = await lines_of(pool, ws, "record", local(ws, acme))
    assert [(line["text"], line["human"]) for line in found] == [
        ("Acme buys in spring", False),
        ("Acme pays in sixty days", True),
    ]


async def test_a_correction_the_same_day_replaces_one_the_day_before_is_older(
    pool, ws, acme, stand
):
    old = souvenir("Acme signs in March", "Scout", T0, "contexte")
    await make_page(pool, ws, "record", local(ws, acme), old, name="Acme")
    [before] = await lines_of(pool, ws, "record", local(ws, acme))
    at = mention("Acme", acme)
    stand(T0 - DAY)
    older = await said(pool, ws, "member", f"Remember: {at} #older", T0 - DAY)
    stand(T0 + SOON)
    same_day = await said(pool, ws, "member", f"Remember: {at} #today", T0 + SOON)
    reader = by_text(
        {
            "#older": contradicting("Acme signs in March", "Acme signs in April", on(acme)),
            "#today": contradicting("Acme signs in March", "Acme signs in May", on(acme)),
        }
    )
    await dream_at(pool, ws, T0 + 2 * SOON, reader)
    assert await verdicts(pool, ws, older) == [("refused", "older_than_existing")]
    assert await verdicts(pool, ws, same_day) == [("written", None)]
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    assert (line["text"], line["author"], line["day"]) == ("Acme signs in May", "Member", T0.date())
    assert line["key"] != before["key"]


@pytest.fixture
async def scout_profile(pool, ws):
    """Scout's profile: a changing fact and a fixed one Scout said, a fixed one a person did."""
    scout = await agent_id(pool, ws)
    lines = [
        souvenir("Scout sends reminders on Mondays", "Scout", T0 - 10 * DAY, "consigne"),
        souvenir("Scout signs as Scout", "Scout", T0 - 10 * DAY, "consigne"),
        souvenir("Scout answers in French", "Admin", T0 - 10 * DAY, "consigne"),
    ]
    await make_page(pool, ws, "agent", scout, "\n".join(lines), name="Scout")
    return scout


async def test_an_agents_own_runs_against_its_profile_newest_wins_person_kept_doubt_changes_nothing(
    pool, ws, client, scout_profile, stand
):
    stand(T0)
    for mission in ("#changing", "#fixed", "#doubt"):
        given = {"mission": mission, "retried": True, "scope": "WORKSPACE"}
        assert data(await run(client, ws.tokens["agent"], externalId=mission, **given))
    own = About(kind="agent", id=ws.gid(scout_profile, "Agent"))
    reader = by_text(
        {
            "#changing": contradicting(
                "Scout sends reminders on Mondays",
                "Scout sends reminders on Tuesdays",
                own,
                changes_over_time=True,
            ),
            "#fixed": contradicting("Scout answers in French", "Scout answers in English", own),
            "#doubt": contradicting("Scout signs as Scout", "Scout signs as the team", own),
        }
    )
    [report] = await dream_at(pool, ws, T0 + HOUR + SOON, reader)
    assert (report.written, report.refused) == (1, 2)
    found = {row["source"]: row["id"] for row in await items(pool, ws, "run")}
    assert await verdicts(pool, ws, found["#changing"]) == [("written", None)]
    assert await verdicts(pool, ws, found["#fixed"]) == [("refused", "person_version_kept")]
    assert await verdicts(pool, ws, found["#doubt"]) == [("refused", "contradiction_in_doubt")]
    assert await texts(pool, ws, "agent", scout_profile) == [
        "Scout sends reminders on Tuesdays",
        "Scout signs as Scout",
        "Scout answers in French",
    ]


async def test_a_confirmation_moves_the_lines_day_and_its_review_date(pool, ws, acme, stand):
    first = T0 - 30 * DAY
    old = souvenir("Acme signs in March", "Scout", first, "contexte")
    await make_page(pool, ws, "record", local(ws, acme), old, name="Acme")
    [before] = await lines_of(pool, ws, "record", local(ws, acme))
    assert f"(revoir {review_of(first)})" in await content(pool, ws, "record", local(ws, acme))
    stand(T0)
    # The rules reader finds the line saying the same and confirms it.
    item = await said(pool, ws, "member", f"Remember: {mention('Acme', acme)} signs in March", T0)
    [report] = await dream_at(pool, ws, T0 + SOON)
    assert (report.refreshed, report.written) == (1, 0)
    assert await verdicts(pool, ws, item) == [("refreshed", None)]
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    assert (line["key"], line["day"], line["author"]) == (before["key"], T0.date(), "Scout")
    shown = await content(pool, ws, "record", local(ws, acme))
    assert shown == (
        f"- Acme signs in March — Scout, {T0.date()} [contexte] (revoir {review_of(T0)})"
    )
    assert review_of(T0) == "2027-05-10"


async def test_a_confirmation_from_before_the_lines_day_leaves_it(pool, ws, acme, stand):
    old = souvenir("Acme signs in March", "Scout", T0, "contexte")
    await make_page(pool, ws, "record", local(ws, acme), old, name="Acme")
    stand(T0 - DAY)
    text = f"Remember: {mention('Acme', acme)} signs in March"
    item = await said(pool, ws, "member", text, T0 - DAY)
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, item) == [("refreshed", None)]
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    assert line["day"] == T0.date()


def filler(count: int) -> list[str]:
    """Souvenirs the workspace wrote on Acme's page."""
    return [souvenir(f"Fact {n} of Acme", "Scout", T0 - 10 * DAY) for n in range(count)]


def by_hands(count: int) -> list[str]:
    """Lines a person writes on Acme's page (signed by them, ✍, when stored)."""
    return [f"- Rule {n} of Acme [relation]" for n in range(count)]


async def test_a_full_record_page_refuses_and_human_lines_are_not_counted(
    pool, ws, client, acme, stand
):
    # 19 counted souvenirs and five ✍ lines: one more is the twentieth, the next is refused.
    stand(T0 - DAY)
    page = await make_page(pool, ws, "record", local(ws, acme), "\n".join(filler(19)), name="Acme")
    await by_hand(client, ws, "admin", page, "\n".join(filler(19) + by_hands(5)))
    stand(T0)
    at = mention("Acme", acme)
    twentieth = await said(pool, ws, "member", f"Remember: {at} #20", T0)
    # Read after the first (items are read in their order of arrival).
    stand(T0 + MINUTE)
    over = await said(pool, ws, "member", f"Remember: {at} #21", T0 + MINUTE)
    reader = by_text(
        {
            "#20": lambda item, _: learning(item, "Acme buys in spring", about=on(acme)),
            "#21": lambda item, _: learning(item, "Acme buys in autumn", about=on(acme)),
        }
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, twentieth) == [("written", None)]
    assert await verdicts(pool, ws, over) == [("refused", "cap_reached")]
    found = await lines_of(pool, ws, "record", local(ws, acme))
    assert (len(found), sum(line["human"] for line in found)) == (25, 5)
    assert found[-1]["text"] == "Acme buys in spring"


async def test_a_page_full_of_human_lines_still_accepts(pool, ws, client, acme, stand):
    stand(T0 - DAY)
    page = await make_page(pool, ws, "record", local(ws, acme), filler(1)[0], name="Acme")
    await by_hand(client, ws, "admin", page, "\n".join(by_hands(20)))
    stand(T0)
    item = await said(pool, ws, "member", f"Remember: {mention('Acme', acme)}", T0)
    await dream_at(pool, ws, T0 + SOON, teaching("Acme buys in spring", about=on(acme)))
    assert await verdicts(pool, ws, item) == [("written", None)]
    found = await texts(pool, ws, "record", local(ws, acme))
    assert found == [*(f"Rule {n} of Acme" for n in range(20)), "Acme buys in spring"]


async def test_human_lines_and_the_mission_are_never_touched(pool, ws, client, stand):
    stand(T0 - DAY)
    kept = souvenir("Chez nous on signe les devis le lundi", "Scout", T0 - DAY, "consigne")
    agents = souvenir("Chez nous le DAF signe seul", "Scout", T0 - 10 * DAY, "consigne")
    given = "\n".join([MISSION, "", kept, "## Règles", agents])
    page = await make_page(pool, ws, "workspace", None, given, name="Acmecorp")
    human = "- Chez nous on tutoie [consigne]"
    given = "\n".join([MISSION, "", human, kept, "## Règles", agents])
    await by_hand(client, ws, "admin", page, given)
    human = souvenir("Chez nous on tutoie", "Admin", T0 - DAY, "consigne", human=True)
    stand(T0)
    workspace = About(kind="workspace")
    item = await said(pool, ws, "admin", "Retiens : chez nous", T0)
    reader = reading(
        lambda item, batch: [
            learning(
                item,
                "Chez nous on vouvoie",
                "consigne",
                workspace,
                contradicts=key_of(batch, "Chez nous on tutoie"),
            ),
            learning(
                item,
                "Chez nous le DAF et le CEO signent",
                "consigne",
                workspace,
                contradicts=key_of(batch, "Chez nous le DAF signe seul"),
            ),
            learning(item, "Chez nous les devis sont en euros", "consigne", workspace),
        ]
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, item) == [
        ("refused", "person_version_kept"),
        ("written", None),
        ("written", None),
    ]
    # The reader read the mission first; the page keeps it, its ✍ line, its headings.
    assert reader.calls[0].mission == "Nous retenons comment chaque client veut être contacté."
    after = await content(pool, ws, "workspace", None)
    # Learned from the admin's private conversation: named by its owner.
    source = "conversation:" + ws.gid(ws.members["admin"], "Member")
    assert after.split("\n") == [
        *MISSION.split("\n"),
        "",
        human,
        kept,
        "## Règles",
        souvenir("Chez nous le DAF et le CEO signent", "Admin", T0, "consigne", source),
        souvenir("Chez nous les devis sont en euros", "Admin", T0, "consigne", source),
    ]
