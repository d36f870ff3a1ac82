"""Mailboxes and their mail as stored (issue 11, item 1), and a mail item's exchange as
memoryItems shows it."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from uuid import UUID

import strawberry

from db.dreamer_items import ItemRow
from db.mail import MailboxRow, MessageRow
from resolvers.common import ids
from resolvers.memory.mail.mailboxes import MAILBOX_TYPE, CreatedMailbox
from resolvers.memory.mail.messages import RecordedMail as MailFound


@strawberry.enum(description="One member's, private to them; or the workspace's.")
class MailboxKind(Enum):
    PERSONAL = "personal"
    SHARED = "shared"


@strawberry.enum(description="How the mailbox's provider filed a message.")
class MailFiled(Enum):
    RECEIVED = "received"
    SENT = "sent"


@strawberry.enum(description="The mailbox classifier's category (none: uncategorized).")
class MailCategory(Enum):
    DIRECT = "direct"
    NEWSLETTER = "newsletter"
    NOTIFICATION = "notification"
    MARKETING = "marketing"
    TRANSACTIONAL = "transactional"
    CUSTOM = "custom"


def _gid(type_name: str, workspace_id: UUID, local: UUID | None) -> strawberry.ID | None:
    return strawberry.ID(ids.encode(type_name, workspace_id, local)) if local else None


@strawberry.type(description="A mailbox memory learns from.")
class Mailbox:
    id: strawberry.ID
    external_id: str
    kind: MailboxKind
    name: str
    owner_id: strawberry.ID | None = strawberry.field(description="A personal mailbox's member.")
    addresses: list[str] = strawberry.field(
        description="The owner's own addresses: mail filed sent from one is their own words."
    )
    created_at: datetime
    replayed: bool = strawberry.field(description="Stored before: nothing new was stored.")

    @classmethod
    def from_row(cls, row: MailboxRow, workspace_id: UUID, replayed: bool = False) -> Mailbox:
        return cls(
            id=strawberry.ID(ids.encode(MAILBOX_TYPE, workspace_id, row.id)),
            external_id=row.external_id,
            kind=MailboxKind(row.kind),
            name=row.name,
            owner_id=_gid("Member", workspace_id, row.owner_id),
            addresses=list(row.addresses),
            created_at=row.created_at,
            replayed=replayed,
        )

    @classmethod
    def created(cls, found: CreatedMailbox, workspace_id: UUID) -> Mailbox:
        return cls.from_row(found.mailbox, workspace_id, found.replayed)


@strawberry.type(description="What is kept of an attachment: never its contents.")
class MailAttachment:
    name: str
    size: int = strawberry.field(description="Its size in bytes, decoded.")
    sha256: str


_HIDDEN = "null when this mail was stored before and you may not read it"


@strawberry.type(
    description="A message as stored: a record of the mail object. A message stored before"
    " whose record you may not read (a member's private mail) answers only its id, external"
    " id, deleted and replayed; its other fields are null."
)
class RecordedMailMessage:
    id: strawberry.ID = strawberry.field(description="Its record.")
    external_id: str
    thread_id: str | None = strawberry.field(description=_HIDDEN)
    filed: MailFiled | None = strawberry.field(description=_HIDDEN)
    category: MailCategory | None = strawberry.field(
        description=f"null when uncategorized, or {_HIDDEN}"
    )
    important: bool | None = strawberry.field(description=_HIDDEN)
    at: datetime | None = strawberry.field(description=_HIDDEN)
    subject: str | None = strawberry.field(description=_HIDDEN)
    attachments: list[MailAttachment] | None = strawberry.field(description=_HIDDEN)
    record_ids: list[strawberry.ID] | None = strawberry.field(description=_HIDDEN)
    deleted: bool
    replayed: bool = strawberry.field(
        description="Stored before as it is: nothing new was stored (false when this post"
        " stored it, marked it deleted or updated its classification)."
    )

    @classmethod
    def from_row(
        cls, row: MessageRow, workspace_id: UUID, replayed: bool, shown: bool = True
    ) -> RecordedMailMessage:
        found = cls(
            id=strawberry.ID(ids.encode("Record", workspace_id, row.id)),
            external_id=row.external_id,
            thread_id=None,
            filed=None,
            category=None,
            important=None,
            at=None,
            subject=None,
            attachments=None,
            record_ids=None,
            deleted=row.deleted,
            replayed=replayed,
        )
        if not shown:
            return found
        found.thread_id = row.thread_id
        found.filed = MailFiled(row.filed)
        found.category = MailCategory(row.category) if row.category else None
        found.important = row.important
        found.at = row.sent_at
        found.subject = row.subject
        found.attachments = [
            MailAttachment(name=a["name"], size=a["size"], sha256=a["sha256"])
            for a in row.attachments
        ]
        found.record_ids = [
            strawberry.ID(ids.encode("Record", workspace_id, r)) for r in row.record_ids
        ]
        return found


@strawberry.type(description="A post of mail as stored.")
class RecordedMail:
    mailbox_id: strawberry.ID
    messages: list[RecordedMailMessage]

    @classmethod
    def from_found(cls, found: MailFound, workspace_id: UUID) -> RecordedMail:
        return cls(
            mailbox_id=strawberry.ID(ids.encode(MAILBOX_TYPE, workspace_id, found.mailbox.id)),
            messages=[
                RecordedMailMessage.from_row(m.message, workspace_id, m.replayed, m.shown)
                for m in found.messages
            ],
        )


@strawberry.type(description="The exchange a mail item reads: one thread of one mailbox.")
class MailExchange:
    mailbox_id: strawberry.ID
    mailbox_name: str
    thread_id: str
    opened_at: datetime = strawberry.field(description="When the hourly job opened it.")
    quiet_since: datetime = strawberry.field(description="The thread's last message then.")
    first_message_at: datetime = strawberry.field(
        description="Its window's first message: the one just before the important mail."
    )
    last_message_at: datetime = strawberry.field(description="Its window's last message.")

    @classmethod
    def from_item(cls, row: ItemRow, workspace_id: UUID) -> MailExchange | None:
        exchange = row.exchange
        if exchange is None:
            return None
        return cls(
            mailbox_id=strawberry.ID(
                ids.encode(MAILBOX_TYPE, workspace_id, UUID(str(exchange["mailbox_id"])))
            ),
            mailbox_name=exchange["mailbox_name"],
            thread_id=exchange["thread_id"],
            opened_at=datetime.fromisoformat(exchange["opened_at"]),
            quiet_since=datetime.fromisoformat(exchange["quiet_since"]),
            first_message_at=datetime.fromisoformat(exchange["first_at"]),
            last_message_at=datetime.fromisoformat(exchange["last_at"]),
        )
