"""Each refusal reason of the Dreamer as a real pass records it in memory_verdicts (issue 10,
item 6), with its boundary: the same learning without what refuses it is written. Messages
are recorded by the real intake; the reader answers crafted learnings (or is the rules
reader where it suffices)."""

from __future__ import annotations

import pytest

from resolvers.memory.dreamer.reader import About
from tests.factories import company, local
from tests.memory.dreamer.dreaming import said
from tests.memory.dreamer.rulebook import (
    DAY,
    HOUR,
    SOON,
    T0,
    by_text,
    dream_at,
    learning,
    mention,
    on,
    reading,
    record,
    texts,
    verdicts,
)


@pytest.fixture
async def acme(pool, ws):
    return await company(pool, ws, "Acme")


@pytest.mark.parametrize(
    ("flag", "reason"),
    [
        ({"already_in_record": True}, "record_stores_it"),
        ({"log": True}, "log"),
        ({"task": True}, "task"),
        ({"one_off": True}, "one_off"),
        ({"transient": True}, "not_durable"),
        ({"stated_by": None}, "inference"),
    ],
    ids=["record_stores_it", "log", "task", "one_off", "transient", "inference"],
)
async def test_a_readers_flag_refuses_and_without_it_the_learning_is_written(
    pool, ws, acme, stand, flag, reason
):
    at = mention("Acme", acme)
    stand(T0)
    flagged = await said(pool, ws, "member", f"Remember: {at} #flagged", T0)
    plain = await said(pool, ws, "member", f"Remember: {at} #plain", T0)
    reader = by_text(
        {
            "#flagged": lambda item, _: learning(
                item, "Acme pays in 60 days", about=on(acme), **flag
            ),
            "#plain": lambda item, _: learning(item, "Acme buys in spring", about=on(acme)),
        }
    )
    [report] = await dream_at(pool, ws, T0 + SOON, reader)
    assert (report.read, report.written, report.refused) == (2, 1, 1)
    assert await verdicts(pool, ws, flagged) == [("refused", reason)]
    assert await verdicts(pool, ws, plain) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Acme buys in spring"]


async def test_an_item_that_teaches_nothing_is_refused_as_not_durable(pool, ws, stand):
    # Two messages of a conversation are read, with no request: the rules reader learns
    # nothing from them, and each item gets its one refusal.
    stand(T0)
    first = await said(pool, ws, "member", "We talked about the weather", T0)
    second = await said(pool, ws, "member", "and about lunch", T0 + SOON)
    # Read once the hour of grouping has passed.
    [report] = await dream_at(pool, ws, T0 + HOUR + SOON)
    assert (report.read, report.refused) == (2, 2)
    assert await verdicts(pool, ws, first) == [("refused", "not_durable")]
    assert await verdicts(pool, ws, second) == [("refused", "not_durable")]


async def test_a_learning_ending_before_its_day_is_not_durable_one_ending_that_day_is(
    pool, ws, acme, stand
):
    at = mention("Acme", acme)
    stand(T0)
    ended = await said(pool, ws, "member", f"Remember: {at} #ended", T0)
    today = await said(pool, ws, "member", f"Remember: {at} #today", T0)
    reader = by_text(
        {
            "#ended": lambda item, _: learning(
                item, "Acme is closed", "contexte", on(acme), until=(T0 - DAY).date()
            ),
            "#today": lambda item, _: learning(
                item, "Acme is open late", "contexte", on(acme), until=T0.date()
            ),
        }
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, ended) == [("refused", "not_durable")]
    assert await verdicts(pool, ws, today) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Acme is open late"]


async def test_sensitive_data_never_leaves_a_private_source_for_a_shared_page(
    pool, ws, acme, stand
):
    at = mention("Acme", acme)
    stand(T0)
    private = await said(pool, ws, "member", f"Remember: {at} #private", T0, conversation="p")
    own = await said(pool, ws, "member", "Remember: #mine", T0, conversation="p")
    shared = await said(
        pool, ws, "member", f"Remember: {at} #shared", T0, conversation="w", scope="workspace"
    )
    sick = {"sensitive": "health"}
    reader = by_text(
        {
            "#private": lambda item, _: learning(item, "Acme's CEO is ill", about=on(acme), **sick),
            "#mine": lambda item, _: learning(
                item, "I am on sick leave", "contexte", About(kind="speaker"), **sick
            ),
            "#shared": lambda item, _: learning(item, "Acme's CFO is ill", about=on(acme), **sick),
        }
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, private) == [("refused", "sensitive_private_to_shared")]
    # Within the private scope (the person's own profile), and from a workspace source, the
    # sharing rule does not apply.
    assert await verdicts(pool, ws, own) == [("written", None)]
    assert await verdicts(pool, ws, shared) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Acme's CFO is ill"]
    member = ws.members["member"]
    assert await texts(pool, ws, "member", member) == ["I am on sick leave"]


async def test_a_learning_about_nothing_or_about_an_unlinked_record_has_no_subject(
    pool, ws, acme, stand
):
    globex = await company(pool, ws, "Globex")
    stand(T0)
    nothing = await said(pool, ws, "member", "Remember: #nothing", T0)
    unlinked = await said(pool, ws, "member", f"Remember: {mention('Acme', acme)} #globex", T0)
    linked = await said(pool, ws, "member", f"Remember: {mention('Acme', acme)} #acme", T0)
    reader = by_text(
        {
            "#nothing": lambda item, _: learning(item, "Prices rise in spring"),
            # Globex exists, but the item is not linked to it: never a record guessed.
            "#globex": lambda item, _: learning(item, "Globex pays late", about=on(globex)),
            "#acme": lambda item, _: learning(item, "Acme pays late", about=on(acme)),
        }
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, nothing) == [("refused", "no_subject")]
    assert await verdicts(pool, ws, unlinked) == [("refused", "no_subject")]
    assert await verdicts(pool, ws, linked) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, globex)) == []


async def test_the_rules_reader_never_guesses_a_record_from_its_name(pool, ws, acme, stand):
    stand(T0)
    named = await said(pool, ws, "member", "Remember: Acme pays in sixty days", T0)
    marked = await said(
        pool,
        ws,
        "member",
        f"Remember: {mention('Acme', acme)} pays in sixty days",
        T0,
        conversation="c2",
    )
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, named) == [("refused", "no_subject")]
    assert await verdicts(pool, ws, marked) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["Acme pays in sixty days"]


async def test_a_satellite_with_no_record_to_point_to_refuses(pool, ws, acme, stand):
    loose = await record(pool, ws, "notes", "Loose note")
    tied = await record(pool, ws, "notes", "Call notes", company=acme)
    stand(T0)
    refused = await said(pool, ws, "member", "Remember: #loose", T0, attached=loose)
    kept = await said(pool, ws, "member", "Remember: #tied", T0, conversation="c2", attached=tied)
    reader = by_text(
        {
            "#loose": lambda item, _: learning(item, "They renew yearly", about=on(loose)),
            "#tied": lambda item, _: learning(item, "They renew in May", about=on(tied)),
        }
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, refused) == [("refused", "satellite_no_record")]
    # The note points to Acme: its souvenir goes to Acme's page, and a note has none.
    assert await verdicts(pool, ws, kept) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == ["They renew in May"]
    assert await texts(pool, ws, "record", local(ws, loose)) == []
    assert await texts(pool, ws, "record", local(ws, tied)) == []


async def test_a_viewers_words_never_shape_a_record_they_cannot_update(pool, ws, acme, stand):
    # The cookbook's words, by a viewer (reads Acme, may not update it), then by a member.
    text = f"Remember: {mention('Acme', acme)} wants every message in French."
    stand(T0)
    viewer = await said(pool, ws, "viewer", text, T0)
    member = await said(pool, ws, "member", text, T0)
    await dream_at(pool, ws, T0 + SOON)
    assert await verdicts(pool, ws, viewer) == [("refused", "not_permitted")]
    assert await verdicts(pool, ws, member) == [("written", None)]
    assert await texts(pool, ws, "record", local(ws, acme)) == [
        "Acme wants every message in French."
    ]
    # Nothing went to the viewer's profile instead.
    assert await texts(pool, ws, "member", ws.members["viewer"]) == []


async def test_every_learning_of_an_item_gets_its_own_verdict_in_order(pool, ws, acme, stand):
    stand(T0)
    item = await said(pool, ws, "member", f"Remember: {mention('Acme', acme)}", T0)
    reader = reading(
        lambda item, _: [
            learning(item, "Acme pays late", about=on(acme)),
            learning(item, "Sent Acme the quote", about=on(acme), log=True),
        ]
    )
    await dream_at(pool, ws, T0 + SOON, reader)
    assert await verdicts(pool, ws, item) == [("written", None), ("refused", "log")]
