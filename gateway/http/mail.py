"""The plain routes of mail (issue 11, item 1): ``POST /v1/mailboxes`` (a partner scripts its
mailboxes with an API key) and ``POST /v1/mailboxes/{id}/messages`` (a post of a mailbox's
messages). Each parses its JSON object, calls one resolver and answers 201 with what was
stored, or 200 when everything was stored before. A field of the wrong kind does not stop the
checks: the resolver lists its problem with every other of the body (DESIGN §8)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from db.mail import MailboxRow, MessageRow
from gateway.http import fields
from gateway.http.fields import Answer, Body, Moment
from gateway.http.responses import domain_error_response, json_object_body, json_response
from resolvers.common import ids
from resolvers.common.errors import DomainError
from resolvers.memory.mail import mailboxes, messages
from resolvers.memory.mail.checks import AttachmentInput, MailboxInput, MessageInput
from resolvers.memory.mail.mailboxes import MAILBOX_TYPE

# A post's 15 MB of attachments in base64 and its 2,000,000 characters of text: what a post
# may hold, all told.
MAX_MAIL_BODY_BYTES = 24 * 1024 * 1024


class MailboxBody(Body):
    """A mailbox the workspace learns from."""

    external_id: str = Field(description="Your id: a re-send answers the stored one.")
    kind: str = Field(description="personal (a member's) or shared.")
    name: str
    owner_id: str | None = Field(None, description="A personal mailbox's member.")
    addresses: list[str] | None = Field(None, description="Its e-mail addresses.")


class MailboxAnswer(Answer):
    id: str
    external_id: str
    kind: str
    name: str
    owner_id: str | None
    addresses: list[str]
    created_at: datetime
    replayed: bool


def mailbox_json(row: MailboxRow, workspace: UUID, replayed: bool) -> dict[str, Any]:
    return {
        "id": ids.encode(MAILBOX_TYPE, workspace, row.id),
        "externalId": row.external_id,
        "kind": row.kind,
        "name": row.name,
        "ownerId": ids.encode("Member", workspace, row.owner_id) if row.owner_id else None,
        "addresses": list(row.addresses),
        "createdAt": row.created_at.isoformat(),
        "replayed": replayed,
    }


async def post_mailbox(request: Request) -> Response:
    """POST /v1/mailboxes with {"externalId", "kind", "name", "ownerId", "addresses"}."""
    parsed = await json_object_body(request)
    if isinstance(parsed, Response):
        return parsed
    principal = request.scope["principal"]
    try:
        f, refused = fields.fields(parsed, MailboxBody)
        given = MailboxInput(
            external_id=f["externalId"],
            kind=f["kind"],
            name=f["name"],
            owner_id=f["ownerId"],
            addresses=f["addresses"],
            refused=refused,
        )
        found = await mailboxes.create_mailbox(request.scope["db"], principal, given)
    except DomainError as error:
        return domain_error_response(error)
    body = mailbox_json(found.mailbox, principal.workspace_id, found.replayed)
    return json_response(body, 200 if found.replayed else 201)


class AttachmentBody(Body):
    name: str
    contents: str = Field(description="The file's bytes in base64.")


class MailMessageBody(Body):
    """One message of a mailbox."""

    external_id: str = Field(description="Your id: a re-send answers the stored one.")
    thread_id: str
    filed: str = Field(description="inbox or sent.")
    from_: str = Field(alias="from", description="The sender's address.")
    at: Moment = Field(description="When it was sent.")
    from_name: str | None = None
    subject: str | None = None
    text: str | None = None
    quoted: str | None = Field(None, description="The quoted part of the text.")
    category: str | None = None
    important: bool | None = None
    classified_at: Moment | None = None
    attachments: list[AttachmentBody] | None = None
    record_ids: list[str] | None = None
    deleted: bool | None = Field(None, description="The message was deleted from the mailbox.")


class MailPostBody(Body):
    messages: list[MailMessageBody]


class MailMessageAnswer(Answer):
    """A message as stored; one whose record the caller may not read: its id, external id,
    deleted and replayed only."""

    id: str
    external_id: str
    thread_id: str | None = None
    filed: str | None = None
    category: str | None = None
    important: bool | None = None
    at: datetime | None = None
    subject: str | None = None
    attachments: list[dict[str, Any]] | None = None
    record_ids: list[str] | None = None
    deleted: bool
    replayed: bool


class MailPostAnswer(Answer):
    mailbox_id: str
    messages: list[MailMessageAnswer]


def _message(raw: dict[str, Any], where: str) -> MessageInput:
    """One message of the body, with the problems of its fields' kinds."""
    f, refused = fields.fields(raw, MailMessageBody, where)
    attachments = []
    for n, item in enumerate(f["attachments"] or []):
        a, more = fields.fields(item, AttachmentBody, f"{where}attachments.{n}.")
        refused += more
        attachments.append(AttachmentInput(a["name"], a["contents"]))
    return MessageInput(
        external_id=f["externalId"],
        thread_id=f["threadId"],
        filed=f["filed"],
        from_address=f["from"],
        at=f["at"],
        subject=f["subject"] or "",
        text=f["text"] or "",
        quoted=f["quoted"] or "",
        category=f["category"],
        important=bool(f["important"]),
        classified_at=f["classifiedAt"],
        from_name=f["fromName"],
        attachments=attachments,
        record_ids=f["recordIds"] or [],
        deleted=bool(f["deleted"]),
        refused=refused,
    )


def message_json(
    message: MessageRow, workspace: UUID, replayed: bool, shown: bool = True
) -> dict[str, Any]:
    """A message as answered; one stored before whose record the caller may not read
    (``shown`` False): only its id, external id, deleted and replayed."""
    if not shown:
        return {
            "id": ids.encode("Record", workspace, message.id),
            "externalId": message.external_id,
            "deleted": message.deleted,
            "replayed": replayed,
        }
    return {
        "id": ids.encode("Record", workspace, message.id),
        "externalId": message.external_id,
        "threadId": message.thread_id,
        "filed": message.filed,
        "category": message.category,
        "important": message.important,
        "at": message.sent_at.isoformat(),
        "subject": message.subject,
        "attachments": [dict(a) for a in message.attachments],
        "recordIds": [ids.encode("Record", workspace, r) for r in message.record_ids],
        "deleted": message.deleted,
        "replayed": replayed,
    }


async def post_messages(request: Request) -> Response:
    """POST /v1/mailboxes/{id}/messages with {"messages": [{"externalId", "threadId", "filed",
    "from", "at", "subject", "text", "quoted", "category", "important", "classifiedAt",
    "fromName", "attachments": [{"name", "contents"}], "recordIds", "deleted"}, ...]}."""
    parsed = await json_object_body(request, limit=MAX_MAIL_BODY_BYTES)
    if isinstance(parsed, Response):
        return parsed
    principal = request.scope["principal"]
    try:
        f, refused = fields.fields(parsed, MailPostBody)
        given = [_message(raw, f"messages.{n}.") for n, raw in enumerate(f["messages"])]
        found = await messages.record_mail(
            request.scope["db"], principal, request.path_params["id"], given, refused
        )
    except DomainError as error:
        return domain_error_response(error)
    workspace = principal.workspace_id
    body = {
        "mailboxId": ids.encode(MAILBOX_TYPE, workspace, found.mailbox.id),
        "messages": [
            message_json(m.message, workspace, m.replayed, m.shown) for m in found.messages
        ],
    }
    return json_response(body, 201 if found.changed else 200)
