"""Mail (issue 11, item 1): ``recordMail`` and ``POST /v1/mailboxes/{id}/messages``.

A partner posts a mailbox's messages, threads' worth at a time: each with its thread, filed as
received or sent by the provider, the classifier's category, important flag and time, its
subject, text and quoted history (kept apart, never read), its attachments (names and base64
contents: checked, never stored), the records it is linked to (each one the caller reads), and
whether it was deleted. Each message is a record of the native ``mail`` object (its subject
the label), private to a personal mailbox's owner or the workspace's for a shared one.

A message's external id is the poster's, one namespace per mailbox: re-sent with the same
content it answers the stored one; with only its classification (category, important flag,
classification time) changed it updates the stored one's (the next hourly job sees it: a mail
flagged important later opens its exchange then; an exchange opened already stays as it is);
with ``deleted: true`` it marks the stored one deleted (for
good: a deleted mail is never read, and a souvenir learned from it has lost its source); with
other content it is a validation problem. A message found stored is answered with its content
only to a caller who may read its record (``record_readable``, as ``record(id)``): an admin or
an API key posting into a member's mailbox learns its id and whether it is deleted, never its
subject, thread or attachments. Posting needs the role's right to create mail, and
the mailbox's owner (their own session) or the settings update right. Nothing is stored when
anything is refused. No item arrives here: the hourly job opens exchanges (``exchanges``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from uuid import UUID, uuid4

import asyncpg

from db import dreamer, mail, records
from db.mail import Author, MailboxRow, MessageRow, StoredMessage
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.principals import Principal
from resolvers.memory.dreamer.intake import (
    Named,
    decode_records,
    readable_or_not_found,
    with_refused,
)
from resolvers.memory.mail.checks import Checked, MessageInput, message_problems, post_problems
from resolvers.memory.mail.mailboxes import mailbox_for

MAIL_OBJECT = "mail"
NO_SUBJECT = "(no subject)"
# What a re-send must say as stored; its classification (below) it may update.
_SAME_FIELDS = (
    "thread_id",
    "filed",
    "from_address",
    "from_name",
    "sent_at",
    "subject",
    "text",
    "quoted",
    "attachments",
    "record_ids",
)
# The classifier's verdict on a message, which a provider may change later (a mail flagged
# important the next day): a re-send saying only this otherwise updates the stored message.
_CLASSIFICATION = ("category", "important", "classified_at")


@dataclass(frozen=True, slots=True)
class RecordedMessage:
    """A message as stored now, and what this post did to it: stored it (``replayed`` False),
    found it as it was, or marked it deleted. ``shown``: whether its stored content may be
    answered to the caller (a message this post stored, or a stored one whose record the
    caller may read, as ``record(id)`` decides); otherwise only its id, external id, whether
    it is deleted and ``replayed`` are answered."""

    message: MessageRow
    replayed: bool
    shown: bool = True


@dataclass(frozen=True, slots=True)
class RecordedMail:
    mailbox: MailboxRow
    messages: list[RecordedMessage]

    @property
    def changed(self) -> bool:
        return any(not recorded.replayed for recorded in self.messages)


def _problems(
    principal: Principal, messages: Sequence[MessageInput]
) -> tuple[list[Problem], list[Checked], list[Named]]:
    """Every problem of the post, what each message's attachments keep, and the records each
    names."""
    problems: list[Problem] = []
    checked: list[Checked] = []
    named: list[Named] = []
    for n, given in enumerate(messages):
        found, kept = message_problems(given, f"messages.{n}")
        records_named = decode_records(
            principal.workspace_id, given.record_ids, f"messages.{n}.recordIds", found
        )
        problems += with_refused(given.refused, found)
        checked.append(kept)
        named.append(records_named)
    return [*problems, *post_problems(messages, checked)], checked, named


def _row(given: MessageInput, checked: Checked, named: Named) -> MessageRow:
    assert given.at is not None  # checked
    return MessageRow(
        id=uuid4(),
        external_id=given.external_id,
        thread_id=given.thread_id,
        filed=given.filed,
        category=given.category,
        important=given.important,
        classified_at=given.classified_at or given.at,
        from_address=given.from_address.lower(),
        from_name=given.from_name,
        sent_at=given.at,
        subject=given.subject,
        text=given.text,
        quoted=given.quoted,
        attachments=checked.attachments,
        deleted=given.deleted,
        record_ids=list(named.ids),
    )


def _same(found: MessageRow, new: MessageRow, fields: Sequence[str] = _SAME_FIELDS) -> bool:
    return all(getattr(found, f) == getattr(new, f) for f in fields)


async def record_mail(
    conn: asyncpg.Connection,
    principal: Principal,
    mailbox_gid: str,
    messages: Sequence[MessageInput],
    refused: Sequence[Problem] = (),
) -> RecordedMail:
    """Store a post of a mailbox's messages; re-sent ones answer as stored, ones re-sent as
    deleted are marked so. Nothing is stored when anything is refused."""
    problems, checked, named = _problems(principal, messages)
    problems = with_refused(refused, problems)
    if problems:
        raise invalid(problems)
    mailbox = await mailbox_for(conn, principal, mailbox_gid)
    mail_object = await records.object_id(conn, MAIL_OBJECT)
    if mail_object is None or not principal.may("create", mail_object):
        raise DomainError(Code.FORBIDDEN, "Your role may not create mail.")
    every = Named([])
    for one in named:
        every.add(one)
    await readable_or_not_found(conn, principal, every)
    new = [_row(g, c, n) for g, c, n in zip(messages, checked, named, strict=True)]
    now = clock.now()
    # A savepoint, and the mailbox's lock: posts into one mailbox take turns.
    async with conn.transaction():
        await dreamer.lock_source(conn, f"{principal.workspace_id}:mailbox:{mailbox.id}")
        stored = await mail.messages_of(
            conn,
            mailbox.id,
            [m.external_id for m in new],
            principal.readable_objects,
            principal.person_id,
        )
        recorded, fresh, deleting, reclassified = _sorted(new, stored)
        row = principal.row
        author = Author(principal.kind, row.actor_id, row.actor_name)
        labelled = [(message, message.subject.strip() or NO_SUBJECT) for message in fresh]
        await mail.insert_messages(conn, mailbox, mail_object, labelled, author, now)
        await mail.mark_deleted(conn, deleting, now)
        await mail.reclassify(conn, reclassified)
    return RecordedMail(mailbox, recorded)


def _sorted(
    new: Sequence[MessageRow], stored: dict[str, StoredMessage]
) -> tuple[list[RecordedMessage], list[MessageRow], list[UUID], list[MessageRow]]:
    """Each message as this post leaves it, the ones to store, the stored ones to mark
    deleted, and the stored ones whose classification a re-send updates; a validation problem
    for a re-sent one saying something else. A stored one is answered with its content only
    to a caller who may read its record."""
    recorded: list[RecordedMessage] = []
    fresh: list[MessageRow] = []
    deleting: list[UUID] = []
    reclassified: list[MessageRow] = []
    problems: list[Problem] = []
    for n, message in enumerate(new):
        known = stored.get(message.external_id)
        if known is None:
            # A mail deleted before it was ever posted is kept too, marked (a re-send finds it).
            fresh.append(message)
            if message.deleted:
                deleting.append(message.id)
            recorded.append(RecordedMessage(message, replayed=False))
            continue
        found, shown = known.message, known.readable
        if message.deleted and not found.deleted:
            deleting.append(found.id)
            marked = replace(found, deleted=True)
            recorded.append(RecordedMessage(marked, replayed=False, shown=shown))
        elif found.deleted and not message.deleted:
            message_text = "this mail was deleted: a deleted mail stays deleted"
            problems.append(Problem(message_text, f"messages.{n}.deleted"))
        elif message.deleted or _same(found, message, (*_SAME_FIELDS, *_CLASSIFICATION)):
            recorded.append(RecordedMessage(found, replayed=True, shown=shown))
        elif _same(found, message):
            updated = replace(message, id=found.id, deleted=found.deleted)
            reclassified.append(updated)
            recorded.append(RecordedMessage(updated, replayed=False, shown=shown))
        else:
            message_text = "this external id was recorded with other content: nothing was stored"
            problems.append(Problem(message_text, f"messages.{n}.externalId"))
    if problems:
        raise invalid(problems)
    return recorded, fresh, deleting, reclassified
