"""What a mailbox and a post of mail are checked for (resolvers/memory/mail/checks.py), at each
limit's boundary. Pure."""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime

import pytest

from resolvers.memory.mail.checks import (
    MAX_ATTACHMENT_BYTES,
    MAX_ATTACHMENTS,
    MAX_MESSAGE_RECORDS,
    MAX_MESSAGES,
    MAX_POST_ATTACHMENT_BYTES,
    MAX_POST_CHARS,
    MAX_QUOTED_CHARS,
    MAX_SUBJECT_CHARS,
    MAX_TEXT_CHARS,
    AttachmentInput,
    Checked,
    MailboxInput,
    MessageInput,
    address_problems,
    addresses_of,
    attachment_problems,
    mailbox_problems,
    message_problems,
    post_problems,
)

AT = datetime(2020, 1, 1, tzinfo=UTC)


def message(**more) -> MessageInput:
    given = {
        "external_id": "m1",
        "thread_id": "t1",
        "filed": "received",
        "from_address": "carol@client.example",
        "at": AT,
    }
    return MessageInput(**{**given, **more})


def fields(**more) -> list[str | None]:
    return [p.field for p in message_problems(message(**more), "m")[0]]


def encoded(size: int) -> str:
    return base64.b64encode(b"\x01" * size).decode()


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("carol@client.example", True),
        ("Carol.Smith+x@sub.client.example", True),
        ("carol", False),
        ("Carol <carol@client.example>", False),
        ("carol@client.example:evil", False),
        ("a b@c.example", False),
        ("a@b@c", False),
        ("x" * 310 + "@client.example", False),
        ("élodie@client.example", True),
        ("carol\x00@client.example", False),
        ("carol\x1b@client.example", False),
        ("carol@client\x7f.example", False),
        ("carol@client\x80.example", False),
        ("carol\x9f@client.example", False),
    ],
)
def test_an_address(value, ok):
    assert (address_problems(value, "from") == []) is ok


def test_addresses_are_kept_in_lower_case_each_once():
    assert addresses_of(["Bob@X.example", "bob@x.example", "a@b.example"]) == [
        "bob@x.example",
        "a@b.example",
    ]


def test_a_mailbox():
    assert mailbox_problems(MailboxInput("gmail", "personal", "Mine")) == []
    problems = mailbox_problems(MailboxInput("", "group", "\n", None, ["x"] * 21))
    assert {p.field for p in problems} >= {"externalId", "kind", "name", "addresses"}


@pytest.mark.parametrize(
    ("field", "cap", "key"),
    [
        ("subject", MAX_SUBJECT_CHARS, "subject"),
        ("text", MAX_TEXT_CHARS, "text"),
        ("quoted", MAX_QUOTED_CHARS, "quoted"),
    ],
)
def test_each_text_at_its_limit(field, cap, key):
    assert fields(**{key: "x" * cap}) == []
    assert fields(**{key: "x" * (cap + 1)}) == [f"m.{field}"]


def test_texts_hold_no_nul_and_a_subject_is_one_line():
    assert fields(text="a\x00b", quoted="\ud800", subject="a\nb") == [
        "m.subject",
        "m.text",
        "m.quoted",
    ]
    assert fields(text="Several\nlines\tare fine.") == []


def test_records_and_attachments_at_their_counts():
    assert fields(record_ids=["r"] * MAX_MESSAGE_RECORDS) == []
    assert fields(record_ids=["r"] * (MAX_MESSAGE_RECORDS + 1)) == ["m.recordIds"]
    files = [AttachmentInput(f"f{n}", "") for n in range(MAX_ATTACHMENTS)]
    assert fields(attachments=files) == []
    assert fields(attachments=[*files, AttachmentInput("one more", "")]) == ["m.attachments"]


def test_an_attachments_contents_are_checked_then_only_its_digest_kept():
    kept = attachment_problems(AttachmentInput("a.pdf", encoded(MAX_ATTACHMENT_BYTES)), "a")
    assert kept == {
        "name": "a.pdf",
        "size": MAX_ATTACHMENT_BYTES,
        "sha256": hashlib.sha256(b"\x01" * MAX_ATTACHMENT_BYTES).hexdigest(),
    }
    too_big = attachment_problems(AttachmentInput("a.pdf", encoded(MAX_ATTACHMENT_BYTES + 1)), "a")
    assert [p.field for p in too_big] == ["a.contents"]
    for bad in ("not base64", "YQ", "YQ==\n", "é"):
        found = attachment_problems(AttachmentInput("a.pdf", bad), "a")
        assert [p.field for p in found] == ["a.contents"], bad
    assert [p.field for p in attachment_problems(AttachmentInput(" ", ""), "a")] == ["a.name"]


def test_the_times():
    assert fields(at=None) == ["m.at"]
    assert fields(at=datetime(2020, 1, 1)) == ["m.at"]
    assert fields(classified_at=datetime(2999, 1, 1, tzinfo=UTC)) == ["m.classifiedAt"]


def test_a_whole_post():
    checked = Checked([], 0, 0)
    assert post_problems([message()] * 1, [checked]) == []
    assert [p.field for p in post_problems([], [])] == ["messages"]
    many = [message(external_id=f"m{n}") for n in range(MAX_MESSAGES + 1)]
    assert [p.field for p in post_problems(many[:-1], [checked] * MAX_MESSAGES)] == []
    assert [p.field for p in post_problems(many, [checked] * len(many))] == ["messages"]
    twice = [message(), message()]
    assert [p.field for p in post_problems(twice, [checked] * 2)] == ["messages.1.externalId"]
    full = [Checked([], MAX_POST_CHARS, MAX_POST_ATTACHMENT_BYTES)]
    assert post_problems([message()], full) == []
    over = [Checked([], MAX_POST_CHARS + 1, MAX_POST_ATTACHMENT_BYTES + 1)]
    assert [p.field for p in post_problems([message()], over)] == ["messages", "messages"]
