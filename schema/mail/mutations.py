"""Mutations that set up mailboxes and record their mail (issue 11, item 1). Each stores nothing
when it fails, and answers what was stored before as stored."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from resolvers.memory.mail import mailboxes
from resolvers.memory.mail import messages as mail
from resolvers.memory.mail.checks import AttachmentInput, MailboxInput, MessageInput
from schema.context import Context
from schema.mail.types import Mailbox, MailboxKind, MailCategory, MailFiled, RecordedMail


@strawberry.input
class CreateMailboxInput:
    external_id: str = strawberry.field(description="Yours, one namespace per owner.")
    kind: MailboxKind
    name: str = strawberry.field(description="1 to 200 characters.")
    owner_id: strawberry.ID | None = strawberry.field(
        default=None, description="PERSONAL: its member (default your person)."
    )
    addresses: list[str] | None = strawberry.field(
        default=None,
        description="PERSONAL: the owner's own addresses (default their email; at most 20).",
    )


@strawberry.input
class MailAttachmentInput:
    name: str
    contents: str = strawberry.field(
        description="Base64; checked (at most 5 MB decoded), never stored."
    )


@strawberry.input
class MailMessageInput:
    external_id: str = strawberry.field(description="Yours, one namespace per mailbox.")
    thread_id: str
    filed: MailFiled = strawberry.field(description="As the provider filed it.")
    from_address: str = strawberry.field(name="from", description="The sender's address.")
    at: datetime = strawberry.field(description="When sent or received (offset required).")
    subject: str = ""
    text: str = strawberry.field(default="", description="Without its quoted history.")
    quoted: str = strawberry.field(default="", description="Its quoted history: never read.")
    category: MailCategory | None = strawberry.field(
        default=None, description="The classifier's (none: uncategorized)."
    )
    important: bool = False
    classified_at: datetime | None = strawberry.field(
        default=None, description="When the classifier filed it (default: at)."
    )
    from_name: str | None = strawberry.field(default=None, description="Its sender line's name.")
    attachments: list[MailAttachmentInput] = strawberry.field(default_factory=list)
    record_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list, description="The records it is linked to (at most 20)."
    )
    deleted: bool = strawberry.field(
        default=False, description="Deleted from the mailbox: marks a stored one deleted."
    )


def message_input(given: MailMessageInput) -> MessageInput:
    return MessageInput(
        external_id=given.external_id,
        thread_id=given.thread_id,
        filed=given.filed.value,
        from_address=given.from_address,
        at=given.at,
        subject=given.subject,
        text=given.text,
        quoted=given.quoted,
        category=given.category.value if given.category is not None else None,
        important=given.important,
        classified_at=given.classified_at,
        from_name=given.from_name,
        attachments=[AttachmentInput(a.name, a.contents) for a in given.attachments],
        record_ids=list(given.record_ids),
        deleted=given.deleted,
    )


@strawberry.type
class MailMutation:
    @strawberry.mutation(
        description="Create a mailbox memory learns from: PERSONAL (a member's, private to"
        " them) or SHARED (feeds the workspace's memory)."
    )
    async def create_mailbox(self, info: Info[Context, None], input: CreateMailboxInput) -> Mailbox:
        ctx = info.context
        found = await mailboxes.create_mailbox(
            ctx.conn,
            ctx.principal,
            MailboxInput(
                external_id=input.external_id,
                kind=input.kind.value,
                name=input.name,
                owner_id=input.owner_id,
                addresses=input.addresses,
            ),
        )
        return Mailbox.created(found, ctx.principal.workspace_id)

    @strawberry.mutation(
        description="Record a mailbox's messages (at most 100); each is a record of the mail"
        " object. Exchanges on them are opened once an hour."
    )
    async def record_mail(
        self, info: Info[Context, None], mailbox_id: strawberry.ID, messages: list[MailMessageInput]
    ) -> RecordedMail:
        ctx = info.context
        found = await mail.record_mail(
            ctx.conn, ctx.principal, mailbox_id, [message_input(m) for m in messages]
        )
        return RecordedMail.from_found(found, ctx.principal.workspace_id)
