"""What a waiting item says, from its stored source (resolvers/memory/dreamer/items.py): a
run's text is its messages after the mission, each by its named speaker; its mission is
context; a member who answered is its speaker. Pure."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from resolvers.common import ids
from resolvers.memory.dreamer.items import UNNAMED_PERSON, Speaker, source_of
from resolvers.memory.mail.window import Writer

WS = uuid4()
SCOUT, CLAIRE, OWNER = uuid4(), uuid4(), uuid4()
ACME, GLOBEX = uuid4(), uuid4()


def _mention(label: str, record: UUID) -> str:
    return f"@[{label}](record:{ids.encode('Record', WS, record)})"


def _run_row(messages: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    row = {
        "kind": "run",
        "mission": f"Chase the unpaid invoices of {_mention('Acme', ACME)}.",
        "run_messages": messages,
        "run_speaker_names": {str(SCOUT): "Scout", str(CLAIRE): "Claire"},
        "run_agent_id": SCOUT,
        "run_routine_id": None,
        "run_owner_id": OWNER,
        "run_person_id": CLAIRE,
        "private_to": CLAIRE,
    }
    return {**row, **more}


def _said(kind: str, speaker: UUID, role: str, text: str) -> dict[str, Any]:
    return {"speakerKind": kind, "speakerId": str(speaker), "role": role, "text": text}


def test_a_runs_text_is_what_was_said_after_its_mission_and_by_whom():
    answer = f"Not {_mention('Globex', GLOBEX)}: they pay in sixty days."
    source = source_of(
        _run_row(
            [
                _said("agent", SCOUT, "assistant", "Done: 3 reminders sent."),
                _said("member", CLAIRE, "user", answer),
            ]
        ),
        WS,
    )
    assert source.text == f"Scout: Done: 3 reminders sent.\nClaire: {answer}"
    assert source.context.startswith("Chase the unpaid invoices of @[Acme]")
    assert "Chase" not in source.text
    # The person answered: the item is theirs to have said; the mission's records link too.
    assert source.speaker == Speaker("member", CLAIRE)
    assert source.records == (ACME, GLOBEX)
    assert (source.person, source.source_kind, source.source_id) == (
        CLAIRE,
        "conversation",
        CLAIRE,
    )


def test_a_run_nobody_answered_is_its_runners_words():
    source = source_of(_run_row([_said("agent", SCOUT, "assistant", "Retried: sent.")]), WS)
    assert source.speaker == Speaker("agent", SCOUT)
    assert source.text == "Scout: Retried: sent."
    routine = source_of(
        _run_row([], run_agent_id=None, run_routine_id=SCOUT, run_person_id=None), WS
    )
    assert routine.speaker == Speaker("routine", SCOUT)
    assert (routine.text, routine.person) == ("", OWNER)


def test_a_speaker_who_is_gone_is_named_by_kind():
    gone = uuid4()
    source = source_of(_run_row([_said("member", gone, "user", "Stop.")]), WS)
    assert source.text == f"{UNNAMED_PERSON}: Stop."
    assert source.speaker == Speaker("member", gone)


# A mail exchange ---------------------------------------------------------------------------------

OPENING = uuid4()


def _mail_row(messages: list[dict[str, Any]], owner: UUID | None = CLAIRE) -> dict[str, Any]:
    return {
        "kind": "mail",
        "mail_messages": messages,
        "mail_opening_id": OPENING,
        "mailbox_owner_id": owner,
        "mail_records": [ACME, GLOBEX, ACME],
        "mail_subject": "Renewal",
    }


def _mail(ident: UUID, text: str, member: UUID | None = None) -> dict[str, Any]:
    return {
        "id": str(ident),
        "from": "claire@acme.example" if member else "bob@client.example",
        "name": None if member else "Bob",
        "text": text,
        "member": str(member) if member else None,
        "member_name": "Claire" if member else None,
        "attachments": ["offer.pdf"],
    }


def test_a_mail_exchange_is_its_messages_by_who_wrote_them():
    source = source_of(
        _mail_row([_mail(OPENING, "Can you confirm?"), _mail(uuid4(), "Yes.", CLAIRE)]), WS
    )
    assert source.text == (
        "[1] Bob <bob@client.example>: Can you confirm?\n(attached: offer.pdf)\n"
        "[2] Claire: Yes.\n(attached: offer.pdf)"
    )
    # Code knows who wrote each message the text numbers.
    assert source.writers == (
        Writer(None, "Bob <bob@client.example>"),
        Writer(CLAIRE, "Claire"),
    )
    assert source.context == "Subject: Renewal"
    # The owner's own words make them its speaker; its source is the important mail's record.
    assert source.speaker == Speaker("member", CLAIRE)
    assert (source.person, source.records) == (CLAIRE, (ACME, GLOBEX))
    assert (source.source_kind, source.source_id) == ("record", OPENING)


def test_a_mail_exchange_without_own_words_is_an_outsiders():
    source = source_of(_mail_row([_mail(uuid4(), "Hi"), _mail(OPENING, "Please")], None), WS)
    assert source.speaker == Speaker("outsider", None, "Bob <bob@client.example>")
    assert source.person is None
    assert source_of(_mail_row([], None), WS).speaker == Speaker("outsider", None, UNNAMED_PERSON)
