"""Mail read by real passes (the hourly job, then the Dreamer's pass with the rules reader or a
recording one): own words and an outsider's, each mailbox in its owner's scope, a shared
mailbox, what the reader receives (never attachments nor quoted history), mail after a
conversation, what stops an opened exchange from being read, and who pays."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from db.pool import begin_workspace
from resolvers.memory.dreamer.passes import PassSettings, Prices
from resolvers.memory.dreamer.reader import (
    About,
    Batch,
    Candidate,
    ItemLearnings,
    ReaderAnswer,
    Usage,
)
from tests.factories import company, local
from tests.memory.dreamer.dreaming import FixedReader, dream, items_of, lines_of, said
from tests.memory.mail.mailing import (
    address,
    attachment,
    exchanges_of,
    important,
    mailbox,
    message,
    open_at,
    post,
    reply,
    set_preference,
)

T0 = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
OPENED = T0 + timedelta(hours=3)
# A pass is due an hour after its oldest item arrived.
READ = OPENED + timedelta(hours=1)
RULE = "Retiens : le DAF d'Acme décide seul."


@pytest.fixture
async def acme(pool, ws):
    return await company(pool, ws, "Acme")


async def opened_and_read(pool, ws, settings=None):
    """The job at OPENED, then every pass due at READ."""
    await open_at(pool, ws, OPENED)
    return await dream(pool, ws, READ, settings)


async def verdicts_of(pool, ws):
    rows = await exchanges_of(pool, ws)
    return {
        row["opening"]: [(v["verdict"], v["reason"]) for v in item["verdicts"]]
        for row, item in zip(
            rows, await items_of(pool, ws, [r["item_id"] for r in rows]), strict=True
        )
    }


async def test_own_words_reach_the_records_page_an_outsiders_never_do(pool, ws, acme, stand):
    box = await mailbox(pool, ws)
    stand(T0)
    linked = {"record_ids": [acme]}
    await post(
        pool,
        ws,
        box,
        [
            # An outsider's words, whatever name its sender line gives.
            important("outsider", T0, thread="a", text=RULE, **linked),
            important(
                "spoofed",
                T0,
                thread="b",
                text=RULE,
                sender=address(ws, "member"),
                from_name="Member",
                **linked,
            ),
            # A reply filed sent, but from an address that is not the owner's.
            important("asks", T0, thread="c", **linked),
            reply("delegate", T0, ws, "other", thread="c", text=RULE, **linked),
            # The owner's own reply, filed sent from their own address.
            important("question", T0, thread="d", text="Qui décide chez vous ?", **linked),
            reply("own", T0, ws, thread="d", text=RULE, **linked),
        ],
        T0,
    )
    await opened_and_read(pool, ws)
    verdicts = await verdicts_of(pool, ws)
    assert verdicts["outsider"] == [("refused", "not_permitted")]
    assert verdicts["spoofed"] == [("refused", "not_permitted")]
    assert verdicts["asks"] == [("refused", "not_permitted")]
    assert verdicts["question"] == [("written", None)]
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    assert line["text"] == "Le DAF d'Acme décide seul."
    assert (line["author"], line["day"]) == ("Member", T0.date())
    # The source a souvenir learned from mail names: the important mail's record.
    question = next(row for row in await exchanges_of(pool, ws) if row["opening"] == "question")
    assert (line["source_kind"], line["source_id"]) == ("record", question["opening_id"])


async def test_a_mail_in_two_mailboxes_is_read_once_in_each_owners_scope(pool, ws, acme, stand):
    alices = await mailbox(pool, ws, "member")
    bobs = await mailbox(pool, ws, "other")
    for who in ("member", "other"):
        await set_preference(pool, ws, who, "memory.shareWithTeam", False, T0)
    stand(T0)
    same = important("provider-1", T0, text=RULE, record_ids=[acme])
    await post(pool, ws, alices, [same], T0)
    await post(pool, ws, bobs, [same], T0)
    reports = await opened_and_read(pool, ws)
    assert sorted((r.owner.owner_id, r.read) for r in reports) == sorted(
        [(ws.members["member"], 1), (ws.members["other"], 1)]
    )
    rows = {row["mailbox"]: row for row in await exchanges_of(pool, ws)}
    for who in ("member", "other"):
        # Each on its owner's own profile (sharing off), about Acme, from their own copy.
        [line] = await lines_of(pool, ws, "member", ws.members[who])
        assert line["about_id"] == local(ws, acme)
        assert line["source_id"] == rows[f"box-{who}"]["opening_id"]
        assert line["author"] == "Carol <carol@client.example>"
    assert await lines_of(pool, ws, "record", local(ws, acme)) == []
    async with pool.acquire() as conn:
        payers = await conn.fetch(
            "SELECT payer_kind, payer_id FROM memory_passes WHERE workspace_id = $1", ws.id
        )
    assert sorted(p["payer_id"] for p in payers) == sorted(
        [ws.members["member"], ws.members["other"]]
    )


async def test_a_shared_mailbox_feeds_workspace_memory_from_a_members_own_words(
    pool, ws, acme, stand
):
    shared = await mailbox(pool, ws, None)
    stand(T0)
    linked = {"record_ids": [acme]}
    await post(
        pool,
        ws,
        shared,
        [
            important("outsider", T0, thread="a", text=RULE, **linked),
            important("question", T0, thread="b", text="Qui décide ?", **linked),
            reply("member", T0, ws, "member", thread="b", text=RULE, **linked),
        ],
        T0,
    )
    [report] = await opened_and_read(pool, ws)
    assert (report.owner.owner_kind, report.owner.owner_id, report.read) == ("workspace", None, 2)
    verdicts = await verdicts_of(pool, ws)
    assert verdicts == {
        "outsider": [("refused", "not_permitted")],
        "question": [("written", None)],
    }
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    assert line["author"] == "Member"
    async with pool.acquire() as conn:
        payer = await conn.fetchrow(
            "SELECT payer_kind, payer_id FROM memory_passes WHERE workspace_id = $1", ws.id
        )
    assert (payer["payer_kind"], payer["payer_id"]) == ("workspace", None)


async def test_attachments_and_quoted_history_never_reach_the_reader(pool, ws, acme, stand):
    box = await mailbox(pool, ws)
    stand(T0)
    secret = b"CONTENTS-OF-THE-CONTRACT: never read"
    await post(
        pool,
        ws,
        box,
        [
            message("before", T0 - timedelta(minutes=5), text="Here is our offer."),
            important(
                "m1",
                T0,
                subject="Contract for Acme",
                text="Please sign the attached contract.\n\nBest,\nCarol",
                quoted="> QUOTED-HISTORY: an older mail, never read",
                attachments=[attachment("contract.pdf", secret), attachment("annex.xlsx", b"x")],
                record_ids=[acme],
            ),
            reply("r1", T0 + timedelta(minutes=5), ws, text="Signed.", quoted="> Please sign"),
        ],
        T0 + timedelta(minutes=5),
    )
    reader = FixedReader()
    await opened_and_read(pool, ws, PassSettings(reader=reader))
    [batch] = reader.calls
    [item] = batch.items
    sent = batch.model_dump_json()
    assert "QUOTED-HISTORY" not in sent and 'Please sign"' not in sent
    assert "CONTENTS-OF-THE-CONTRACT" not in sent
    assert "Q09OVEVOVFM" not in sent  # nor its base64
    assert item.kind == "mail" and item.context == "Subject: Contract for Acme"
    assert item.text.split("\n") == [
        "[1] Carol <carol@client.example>: Here is our offer.",
        "[2] Carol <carol@client.example>: Please sign the attached contract. Best, Carol",
        "(attached: contract.pdf, annex.xlsx)",
        "[3] Member: Signed.",
    ]
    assert (item.speaker.name, item.speaker.kind) == ("Member", "person")
    assert item.speaker.id is not None
    assert item.record_ids == (acme,)


async def test_mail_is_read_after_a_conversation_for_the_same_owner(pool, ws, stand):
    box = await mailbox(pool, ws)
    stand(T0)
    await post(pool, ws, box, [important("m1", T0)], T0)
    await open_at(pool, ws, OPENED)
    # The conversation arrives after the mail item, and is read before it.
    await said(pool, ws, "member", "Je préfère le tutoiement.", OPENED + timedelta(minutes=10))
    await said(pool, ws, "member", "Et les réponses courtes.", OPENED + timedelta(minutes=11))
    reader = FixedReader()
    [report] = await dream(pool, ws, READ, PassSettings(reader=reader))
    assert report.read == 3
    [batch] = reader.calls
    assert [item.kind for item in batch.items] == ["conversation", "conversation", "mail"]


async def test_an_exchange_is_not_read_once_learning_from_email_is_turned_off(pool, ws, stand):
    box = await mailbox(pool, ws)
    stand(T0)
    await post(pool, ws, box, [important("m1", T0, text=RULE)], T0)
    await open_at(pool, ws, OPENED)
    await set_preference(pool, ws, "member", "memory.learnFromEmail", False, OPENED)
    reader = FixedReader()
    assert [r.read for r in await dream(pool, ws, READ, PassSettings(reader=reader))] == [0]
    assert reader.calls == []
    [row] = await exchanges_of(pool, ws)
    assert (row["status"], row["reason"]) == ("not_read", "learn_from_email_off")
    # Turned on again: what was received before is never read.
    await set_preference(pool, ws, "member", "memory.learnFromEmail", True, READ)
    assert await open_at(pool, ws, READ + timedelta(hours=1)) == 0


async def test_an_exchange_turned_on_again_before_its_pass_is_not_read(pool, ws, stand):
    box = await mailbox(pool, ws)
    stand(T0)
    await post(pool, ws, box, [important("m1", T0, text=RULE)], T0)
    await open_at(pool, ws, OPENED)
    key = "memory.learnFromEmail"
    await set_preference(pool, ws, "member", key, False, OPENED + timedelta(minutes=1))
    await set_preference(pool, ws, "member", key, True, OPENED + timedelta(minutes=2))
    reader = FixedReader()
    await dream(pool, ws, READ, PassSettings(reader=reader))
    assert reader.calls == []
    [row] = await exchanges_of(pool, ws)
    assert (row["status"], row["reason"]) == ("not_read", "learn_from_email_off")


async def test_an_exchange_whose_important_mail_was_deleted_is_not_read(pool, ws, stand):
    box = await mailbox(pool, ws)
    stand(T0)
    mail = important("m1", T0, text=RULE)
    await post(pool, ws, box, [mail], T0)
    await open_at(pool, ws, OPENED)
    await post(pool, ws, box, [important("m1", T0, text=RULE, deleted=True)], OPENED)
    reader = FixedReader()
    await dream(pool, ws, READ, PassSettings(reader=reader))
    assert reader.calls == []
    [row] = await exchanges_of(pool, ws)
    assert (row["status"], row["reason"]) == ("not_read", "mail_deleted")
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        gone = await conn.fetchval("SELECT mail_deleted($1)", row["opening_id"])
        other = await conn.fetchval("SELECT mail_deleted($1)", row["mailbox_id"])
    assert (gone, other) == (True, False)


async def read_at(pool, ws, stand, when):
    """Every pass due at ``when``, the clock stood there: what the reader received."""
    stand(when)
    reader = FixedReader()
    reports = await dream(pool, ws, when, PassSettings(reader=reader))
    return reports, reader.calls


@pytest.mark.parametrize(("late", "read"), [(timedelta(0), True), (timedelta(seconds=1), False)])
async def test_only_mail_classified_in_the_30_days_before_the_pass_is_read(
    pool, ws, stand, late, read
):
    box = await mailbox(pool, ws)
    earlier = T0 - timedelta(days=2)
    thread = [message("before", earlier, text="Our offer."), important("m1", T0, text=RULE)]
    await post(pool, ws, box, thread, T0)
    assert await open_at(pool, ws, OPENED) == 1
    # The pass comes late (its payer's allowance waited, say): the message before the
    # important mail was classified 30 days before it (read), or a second more (not read).
    _, [batch] = await read_at(pool, ws, stand, earlier + timedelta(days=30) + late)
    offer = ["[1] Carol <carol@client.example>: Our offer."] if read else []
    rule = f"[{len(offer) + 1}] Carol <carol@client.example>: {RULE}"
    assert batch.items[0].text.split("\n") == [*offer, rule]


async def test_an_exchange_whose_important_mail_is_over_30_days_old_is_not_read(pool, ws, stand):
    box = await mailbox(pool, ws)
    await post(pool, ws, box, [important("m1", T0, text=RULE)], T0)
    await post(pool, ws, box, [important("m2", T0, thread="t2", text=RULE)], T0)
    assert await open_at(pool, ws, OPENED) == 2
    # Read next month, one second past the 30 days: neither is read, each says why.
    _, calls = await read_at(pool, ws, stand, T0 + timedelta(days=30, seconds=1))
    assert calls == []
    rows = await exchanges_of(pool, ws)
    assert [(row["status"], row["reason"]) for row in rows] == [("not_read", "mail_too_old")] * 2


async def test_an_exchange_read_on_the_30th_day_is_read(pool, ws, stand):
    box = await mailbox(pool, ws)
    await post(pool, ws, box, [important("m1", T0, text=RULE)], T0)
    assert await open_at(pool, ws, OPENED) == 1
    [report], calls = await read_at(pool, ws, stand, T0 + timedelta(days=30))
    assert report.read == 1 and len(calls) == 1


async def test_a_message_posted_late_is_read_when_its_time_is_inside_the_window(pool, ws, stand):
    box = await mailbox(pool, ws)
    last = T0 + timedelta(minutes=20)
    thread = [important("m1", T0, text="First."), reply("r1", last, ws)]
    await post(pool, ws, box, thread, last)
    assert await open_at(pool, ws, OPENED) == 1
    # After the exchange opened, the provider posts a message it had missed, sent between the
    # two, and a reply sent after the last: the first is read with the exchange (its window is
    # its first and last message as stored), the second is not.
    await post(
        pool,
        ws,
        box,
        [
            message("late", T0 + timedelta(minutes=10), text="Missed."),
            reply("after", OPENED, ws, text="Later."),
        ],
        OPENED,
    )
    _, [batch] = await read_at(pool, ws, stand, READ)
    assert batch.items[0].text.split("\n") == [
        "[1] Carol <carol@client.example>: First.",
        "[2] Carol <carol@client.example>: Missed.",
        "[3] Member: Hello.",
    ]


async def test_a_pass_run_at_a_time_given_with_an_offset_counts_its_day_and_month_in_utc(
    pool, ws, stand
):
    box = await mailbox(pool, ws)
    end = datetime(2027, 3, 31, 20, 0, tzinfo=UTC)
    await post(pool, ws, box, [important("m1", end, text=RULE)], end)
    assert await open_at(pool, ws, end + timedelta(hours=2)) == 1
    # 23:00 UTC on 31 March is already 1 April at +14:00 (`dreamer run --now` keeps the offset).
    at = datetime.fromisoformat("2027-04-01T13:00:00+14:00")
    reader = FixedReader(usage=Usage(input_tokens=1_000_000))
    settings = PassSettings(reader=reader, prices=Prices(Decimal(1), Decimal(0)))
    stand(at)
    [report] = await dream(pool, ws, at, settings)
    assert report.read == 1
    [batch] = reader.calls
    assert batch.today == date(2027, 3, 31)
    async with pool.acquire() as conn:
        months = await conn.fetch(
            "SELECT month FROM memory_spend WHERE workspace_id = $1 AND payer_id = $2",
            ws.id,
            ws.members["member"],
        )
    assert [row["month"] for row in months] == [date(2027, 3, 1)]


def crediting(claims: dict[str, int | None]):
    """A stand-in chat reader: for each mail item (by its subject), one learning about its
    linked record, said to be stated by the item's speaker (the mailbox's owner) and resting
    on the message ``claims`` names: a line number, or the owner's own line (0), or none."""

    def make(batch: Batch) -> ReaderAnswer:
        learnings = []
        for item in batch.items:
            claim = claims[item.context.removeprefix("Subject: ")]
            if claim == 0:
                own = next(line for line in item.text.split("\n") if "] Member: " in line)
                claim = int(own[1 : own.index("]")])
            candidate = Candidate(
                text="Le DAF d'Acme décide seul.",
                type="contexte",
                about=About(kind="record", id=item.record_ids[0]),
                stated_by=item.speaker,
                message=claim,
            )
            learnings.append(ItemLearnings(item_id=item.id, candidates=(candidate,)))
        return ReaderAnswer(learnings=tuple(learnings), usage=Usage())

    return make


async def test_an_outsiders_line_credited_to_the_owner_gets_none_of_the_owners_rights(
    pool, ws, acme, stand
):
    box = await mailbox(pool, ws)
    linked = {"record_ids": [acme]}
    subjects = ("outsider", "unnamed", "beyond", "own")
    said = [important(s, T0, thread=s, subject=s, text=RULE, **linked) for s in subjects]
    answered = T0 + timedelta(minutes=5)
    said += [reply(f"re-{s}", answered, ws, thread=s, subject=s) for s in subjects]
    await post(pool, ws, box, said, answered)
    assert await open_at(pool, ws, OPENED) == 4
    # The reader says the owner stated each learning; only "own" rests on the owner's line.
    claims = {"outsider": 1, "unnamed": None, "beyond": 3, "own": 0}
    reader = FixedReader(crediting(claims))
    stand(READ)
    await dream(pool, ws, READ, PassSettings(reader=reader))
    assert len(reader.calls) == 1
    verdicts = await verdicts_of(pool, ws)
    # Not by the owner's update right on Acme: an outsider's words stay off its page.
    assert verdicts["outsider"] == [("refused", "not_permitted")]
    assert verdicts["unnamed"] == [("refused", "not_permitted")]
    assert verdicts["beyond"] == [("refused", "not_permitted")]
    assert verdicts["own"] == [("written", None)]
    [line] = await lines_of(pool, ws, "record", local(ws, acme))
    assert (line["author"], line["text"]) == ("Member", "Le DAF d'Acme décide seul.")
