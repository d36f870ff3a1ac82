"""Learning from mail (issue 11, items 1 and 2): mailboxes, their messages (records of the mail
object), and the exchanges the hourly job opens (``db/queries/mail.sql``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import asyncpg

from db.sql import queries

Q = queries("mail")


@dataclass(frozen=True, slots=True)
class MailboxRow:
    id: UUID
    external_id: str
    kind: str
    owner_id: UUID | None
    name: str
    addresses: list[str]
    created_at: datetime


async def mailbox_of(
    conn: asyncpg.Connection, owner: UUID | None, external_id: str
) -> MailboxRow | None:
    """A mailbox by its owner (None: the workspace's) and external id."""
    row = await conn.fetchrow(Q["mailbox_of"], owner, external_id)
    return MailboxRow(**dict(row)) if row else None


async def mailbox_by_id(conn: asyncpg.Connection, mailbox_id: UUID) -> MailboxRow | None:
    """A mailbox by its id."""
    row = await conn.fetchrow(Q["mailbox_by_id"], mailbox_id)
    return MailboxRow(**dict(row)) if row else None


async def member_email(conn: asyncpg.Connection, member_id: UUID) -> str | None:
    """A member's email in lower case; None when there is no such member."""
    found: str | None = await conn.fetchval(Q["member_email"], member_id)
    return found


async def insert_mailbox(conn: asyncpg.Connection, new: MailboxRow) -> MailboxRow:
    """Store a mailbox."""
    row = await conn.fetchrow(
        Q["insert_mailbox"],
        new.id,
        new.external_id,
        new.kind,
        new.owner_id,
        new.name,
        list(new.addresses),
        new.created_at,
    )
    assert row is not None  # an insert returns its row
    return MailboxRow(**dict(row))


@dataclass(frozen=True, slots=True)
class MessageRow:
    """A message of a mailbox; ``attachments``: their names, sizes and sha256, never their
    contents; ``record_ids``: the records it is linked to, in order."""

    id: UUID
    external_id: str
    thread_id: str
    filed: str
    category: str | None
    important: bool
    classified_at: datetime
    from_address: str
    from_name: str | None
    sent_at: datetime
    subject: str
    text: str
    quoted: str
    attachments: list[dict[str, Any]]
    deleted: bool
    record_ids: list[UUID]


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A stored message, and whether the caller may read its record (``record_readable``)."""

    message: MessageRow
    readable: bool


async def messages_of(
    conn: asyncpg.Connection,
    mailbox_id: UUID,
    external_ids: Sequence[str],
    readable: Sequence[UUID],
    person: UUID | None,
) -> dict[str, StoredMessage]:
    """A mailbox's messages among these external ids, by external id, each with whether the
    caller (``readable`` objects, ``person``) may read its record."""
    rows = await conn.fetch(
        Q["messages_of"], mailbox_id, list(external_ids), list(readable), person
    )
    found = {}
    for row in rows:
        values = dict(row)
        may_read = values.pop("readable")
        found[row["external_id"]] = StoredMessage(MessageRow(**values), may_read)
    return found


@dataclass(frozen=True, slots=True)
class Author:
    """Who a change to a record is logged as."""

    kind: str
    id: UUID | None
    name: str


async def insert_messages(
    conn: asyncpg.Connection,
    mailbox: MailboxRow,
    mail_object: UUID,
    new: Sequence[tuple[MessageRow, str]],
    author: Author,
    at: datetime,
) -> int:
    """Store new messages of ``mailbox`` (each with its record's label), their records and
    links; how many."""
    if not new:
        return 0
    given = []
    for message, label in new:
        values = asdict(message)
        del values["deleted"]
        values["label"] = label
        values["id"] = str(message.id)
        values["record_ids"] = [str(r) for r in message.record_ids]
        values["classified_at"] = message.classified_at.isoformat()
        values["sent_at"] = message.sent_at.isoformat()
        given.append(values)
    owner = mailbox.owner_id
    stored: int = await conn.fetchval(
        Q["insert_messages"],
        mailbox.id,
        mail_object,
        given,
        author.kind,
        author.id,
        author.name,
        "private" if owner is not None else "workspace",
        owner,
        at,
    )
    return stored


async def mark_deleted(conn: asyncpg.Connection, message_ids: Sequence[UUID], at: datetime) -> None:
    """Mark messages deleted at ``at`` (those not deleted yet)."""
    if message_ids:
        await conn.execute(Q["mark_deleted"], list(message_ids), at)


async def reclassify(conn: asyncpg.Connection, messages: Sequence[MessageRow]) -> None:
    """Update stored messages' classification (category, important flag, classification time)
    as these rows say, in one statement."""
    if messages:
        await conn.execute(
            Q["reclassify"],
            [m.id for m in messages],
            [m.category for m in messages],
            [m.important for m in messages],
            [m.classified_at for m in messages],
        )


async def deleted_mail(conn: asyncpg.Connection, record_ids: Sequence[UUID]) -> set[UUID]:
    """Which of these records are mail marked deleted: a souvenir naming one as its source has
    lost it (in SQL, per record: ``mail_deleted(record_id)``)."""
    rows = await conn.fetch(Q["deleted_mail"], list(record_ids))
    return {row["id"] for row in rows}


# --- the hourly job -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MailRules:
    """What the job opens by: the quiet a thread needs, how far back a mail's classification
    reaches, and each workspace's room (at most ``hour_cap`` since ``hour``, ``day_cap`` since
    ``day``)."""

    quiet: timedelta
    reach: timedelta
    hour: datetime
    day: datetime
    hour_cap: int
    day_cap: int


@dataclass(frozen=True, slots=True)
class DueWorkspace:
    """A workspace with exchanges to open: how many could open, the longest quiet's start."""

    workspace_id: UUID
    openable: int
    quiet_since: datetime


async def due_workspaces(
    conn: asyncpg.Connection, now: datetime, rules: MailRules
) -> list[DueWorkspace]:
    """Every workspace with exchanges to open at ``now`` and room for them, longest quiet first,
    read as the application role with no workspace (its own transaction)."""
    async with conn.transaction():
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        rows = await conn.fetch(
            Q["due_workspaces"],
            now,
            rules.quiet,
            rules.reach,
            rules.hour,
            rules.day,
            rules.hour_cap,
            rules.day_cap,
        )
    return [DueWorkspace(**dict(row)) for row in rows]


async def open_exchanges(conn: asyncpg.Connection, now: datetime, rules: MailRules) -> int:
    """Open the workspace's exchanges due at ``now`` within its room, each with its item; how
    many."""
    opened: int = await conn.fetchval(
        Q["open_exchanges"],
        now,
        rules.quiet,
        rules.reach,
        rules.hour,
        rules.day,
        rules.hour_cap,
        rules.day_cap,
    )
    return opened


async def close_items(conn: asyncpg.Connection, item_ids: Sequence[UUID], reason: str) -> None:
    """Mail items that will not be read after all, with their reason."""
    if item_ids:
        await conn.execute(Q["close_items"], list(item_ids), reason)
