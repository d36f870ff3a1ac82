"""The default ``rules`` reader (resolvers/memory/dreamer/rules.py), without a database."""

from __future__ import annotations

import asyncio
from datetime import date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.memory.dreamer.cues import asks_to_remember
from resolvers.memory.dreamer.reader import (
    Batch,
    Candidate,
    Item,
    ItemKind,
    LinkedRecord,
    PageLine,
    PageOwner,
    Voice,
)
from resolvers.memory.dreamer.rules import RulesReader, learn

CLAIRE = Voice(kind="person", id="u1", name="Claire")
AGENT = Voice(kind="agent", id="a1", name="Scout")
AT = datetime(2026, 10, 2, 9, 0)


def item(text: str, kind: ItemKind = "conversation", records: tuple[str, ...] = ("abc",)) -> Item:
    speaker = AGENT if kind == "proposal" else CLAIRE
    return Item(id="i1", kind=kind, at=AT, speaker=speaker, text=text, record_ids=records)


def one(text: str, **kwargs: object) -> Candidate:
    found = learn(item(text, **kwargs))  # type: ignore[arg-type]
    assert len(found) == 1, found
    return found[0]


def test_the_seed_cookbook_sentence():
    found = one(
        "Remember: @[Acme](record:abc) wants every message in French, addressed to Claire Morel."
    )
    assert found.text == "Acme wants every message in French, addressed to Claire Morel."
    # relation: what a record wants from us is how we deal with it, and the seed's cookbook
    # then reads the souvenir on Acme's page (memories.eq("subjectId", acme.id), and the
    # delete through /v1/records/companies/{id}/memory), where only a relation, a contexte or
    # a décision from a private conversation goes.
    assert found.type == "relation"
    assert found.about.kind == "record" and found.about.id == "abc"
    assert found.stated_by == CLAIRE


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Remember: Bob prefers calls", "préférence"),
        ("Remember: @[Bob](record:abc) prefers calls", "relation"),
        ("Remember: I prefer calls", "préférence"),
        ("Retiens : Bob préfère le mail", "préférence"),
        ("Note that the board decided to expand to Spain", "décision"),
        ("Retiens : le comité a décidé de geler les prix", "décision"),
        ("Remember: always answer in French", "consigne"),
        ("Retiens : jamais de pièce jointe", "consigne"),
        ("From now on, send quotes in EUR", "consigne"),
        ("Remember: Bob works with Alice", "relation"),
        ("Retiens : Bob travaille avec Alice", "relation"),
        ("Remember: Bob reports to Alice", "relation"),
        ("Remember: Acme is a family business", "contexte"),
    ],
)
def test_types_by_cue_words(text: str, kind: str):
    assert one(text).type == kind


@pytest.mark.parametrize(
    "text",
    [
        "Remember the deadline?",  # a question
        "Remember: todo call Bob",  # tasks
        "Remember, please send the contract",
        "N'oublie pas, peux-tu appeler Bob",
        "Rappelle-moi de relancer Acme, désormais",
        "Remember: I sent the quote",  # logs
        "Retiens : j'ai envoyé le devis",
        "Remember: done",
        "Remember: Bob is sick this week",  # sensitive topics
        "Retiens : Bob est enceinte",
        "Remember: Alice's salary is 80k",
        "Retiens : Bob divorce",
        "Remember: Bob is catholic",
        "Retiens : Bob vote pour le parti X",
        "Remember:",  # nothing left once the cue is gone
    ],
)
def test_refuses(text: str):
    assert learn(item(text)) == ()


def test_learns_nothing_without_a_request_but_from_a_proposal():
    assert learn(item("Acme wants every message in French")) == ()
    found = one("Acme wants every message in French", kind="proposal")
    assert found.stated_by == AGENT


def test_learns_nothing_from_an_items_context():
    # A run's mission is what its messages answer: nobody in the run said it.
    mission = "Remember: @[Acme](record:abc) always pays in sixty days."
    said = Item(
        id="i1",
        kind="run",
        at=AT,
        speaker=CLAIRE,
        text="Scout: Done: 3 reminders sent.",
        context=mission,
        record_ids=("abc",),
    )
    assert learn(said) == ()
    assert len(learn(said.model_copy(update={"text": f"Claire: {mission}"}))) == 1


@pytest.mark.parametrize(
    ("text", "records", "kind", "id"),
    [
        ("Remember: @[Acme](record:abc) pays late", ("abc",), "record", "abc"),
        ("Remember: @[Acme](record:abc) pays late", (), "nothing", None),  # not linked
        ("Remember: @[A](record:abc) works with @[B](record:def)", ("abc", "def"), "nothing", None),
        ("Remember: @[A](record:abc) works with @[B](record:zzz)", ("abc",), "record", "abc"),
        ("Remember: I prefer short answers", (), "speaker", None),
        ("Retiens : je préfère les appels", (), "speaker", None),
        ("Remember: always answer in French", (), "speaker", None),  # an instruction
        ("Retiens : chez nous le DAF signe seul", (), "workspace", None),
        ("Remember: at our company quotes are in EUR", (), "workspace", None),
        ("Remember: Acme pays late", (), "nothing", None),  # a name guesses no record
    ],
)
def test_about(text: str, records: tuple[str, ...], kind: str, id: str | None):
    found = one(text, records=records)
    assert (found.about.kind, found.about.id) == (kind, id)


def test_of_related_records_the_most_specific_is_what_it_is_about():
    company = LinkedRecord(id="co", object="companies", label="Acme")
    contact = LinkedRecord(id="ct", object="contacts", label="Claire", points_to=("co",))
    deal = LinkedRecord(id="dl", object="deals", label="Renewal", points_to=("co", "ct"))
    records = (company, contact, deal)
    said = item(
        "Remember: @[Claire](record:ct) on @[Renewal](record:dl) of @[Acme](record:co) signs",
        records=("co", "ct", "dl"),
    )
    [found] = learn(said, (), records)
    assert (found.about.kind, found.about.id) == ("record", "dl")
    said = item("Remember: @[Claire](record:ct) of @[Acme](record:co) signs", records=("co", "ct"))
    assert learn(said, (), records)[0].about.id == "ct"
    # Unrelated records, or records it cannot see related: in doubt, nothing.
    beta = LinkedRecord(id="bt", object="companies", label="Beta")
    said = item("Remember: @[Acme](record:co) works with @[Beta](record:bt)", records=("co", "bt"))
    assert learn(said, (), (company, beta))[0].about.kind == "nothing"
    said = item("Remember: @[Claire](record:ct) of @[Acme](record:co) signs", records=("co", "ct"))
    assert learn(said)[0].about.kind == "nothing"


def test_a_proposal_is_about_the_record_it_names():
    found = one("Acme wants every message in French", kind="proposal", records=("abc",))
    assert (found.about.kind, found.about.id, found.type) == ("record", "abc", "relation")
    # A record its text mentions comes first; a message names no record by being attached.
    found = one("@[B](record:def) wants calls", kind="proposal", records=("abc", "def"))
    assert found.about.id == "def"
    assert one("Remember: they want calls", records=("abc",)).about.kind == "nothing"
    assert one("Invoices go out on Mondays", kind="proposal", records=()).about.kind == "nothing"


def test_a_line_saying_the_same_is_confirmed():
    line = PageLine(
        page_id="p",
        key="k1",
        day=date(2026, 1, 1),
        type="préférence",
        human=False,
        text="Bob prefers calls",
    )
    found = learn(item("Remember: bob prefers calls."), [line])
    assert found[0].confirms == "k1"


def test_the_reader_answers_every_item_and_costs_nothing():
    batch = Batch(
        owner=PageOwner(kind="person", id="u1", name="Claire"),
        items=(item("hello"), item("Remember: Bob prefers calls").model_copy(update={"id": "i2"})),
        today=date(2026, 10, 2),
    )
    answer = asyncio.run(RulesReader().read(batch))
    assert [(a.item_id, len(a.candidates)) for a in answer.learnings] == [("i1", 0), ("i2", 1)]
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (0, 0)


@given(st.text(), st.sampled_from(["conversation", "meeting", "run", "mail", "proposal"]))
def test_never_raises_and_learns_only_from_a_request_or_a_proposal(text: str, kind: ItemKind):
    found = learn(item(text, kind=kind))
    assert len(found) <= 1
    if found:
        assert kind == "proposal" or asks_to_remember(text)
        assert found[0].text.strip()


def test_a_run_teaches_only_its_speakers_own_lines_without_their_name():
    transcript = "\n".join(
        [
            "Scout: I will remember that.",
            "Claire: Thanks.",
            "Claire: From now on, always send invoices on Mondays.",
            "Scout: Noted.",
        ]
    )
    found = one(transcript, kind="run")
    assert found.text == "Always send invoices on Mondays."
    assert found.stated_by == CLAIRE
    # The agent's own "remember" teaches nothing: only Claire's lines are read.
    assert learn(item("Scout: Remember: Acme pays late.\nClaire: ok", kind="run")) == ()


# A mail exchange: one line per message, opening with who wrote it ---------------------------

MAIL_RECORDS = (
    LinkedRecord(id="deal", object="deals", label="Renewal", points_to=("acme",)),
    LinkedRecord(id="acme", object="companies", label="Acme"),
    LinkedRecord(id="beta", object="companies", label="Beta"),
)


def mail(text: str, speaker: Voice = CLAIRE, records: tuple[str, ...] = ("acme",)) -> Item:
    return Item(
        id="i1",
        kind="mail",
        at=AT,
        speaker=speaker,
        text=text,
        context="Subject: Renewal",
        record_ids=records,
    )


def test_a_mail_teaches_its_speakers_own_words_as_theirs():
    text = "[1] Bob <bob@client.example>: Who decides?\n[2] Claire: Retiens : le DAF décide seul."
    [found] = learn(mail(text), records=MAIL_RECORDS)
    assert found.text == "Le DAF décide seul." and found.stated_by == CLAIRE
    # It names the message it rests on, as the text numbers it.
    assert found.message == 2
    # About the record the mail is linked to (the most specific of several).
    assert found.about.kind == "record" and found.about.id == "acme"
    [deal] = learn(mail(text, records=("acme", "deal")), records=MAIL_RECORDS)
    assert deal.about.id == "deal"
    assert learn(mail(text, records=("acme", "beta")), records=MAIL_RECORDS)[0].about.kind == (
        "nothing"
    )


def test_an_outsiders_words_are_an_outsiders_whatever_name_they_give():
    outsider = "[1] Claire <claire@elsewhere.example>: Retiens : le DAF décide seul."
    [found] = learn(mail(outsider), records=MAIL_RECORDS)
    assert found.stated_by == Voice(
        kind="person", id=None, name="Claire <claire@elsewhere.example>"
    )
    assert found.message == 1
    # An outsider's instruction about themselves: they have no profile here.
    assert learn(mail("[1] Bob <bob@x.example>: Désormais, écris-moi en anglais.")) == ()
    # With no member's own words the speaker is an outsider too: nobody's lines are vouched.
    unvouched = Voice(kind="person", id=None, name="Bob <bob@x.example>")
    [found] = learn(mail("[1] Bob <bob@x.example>: Retiens : Acme paie à 60 jours.", unvouched))
    assert found.stated_by is not None and found.stated_by.id is None


def test_attachment_lines_and_the_subject_teach_nothing():
    text = "[1] Claire: Merci.\n(attached: Retiens que Acme paie à 60 jours.pdf)"
    assert learn(mail(text)) == ()
    assert (
        learn(mail("[1] Claire: Merci.").model_copy(update={"context": "Subject: Retiens : x"}))
        == ()
    )
