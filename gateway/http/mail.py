"""The plain routes of mail (issue 11, item 1): ``POST /v1/mailboxes`` (a partner scripts its
mailboxes with an API key) and ``POST /v1/mailboxes/{id}/messages`` (a post of a mailbox's
messages). Each parses its JSON object, calls one resolver and answers 201 with what was
stored, or 200 when everything was stored before. A field of the wrong kind does not stop the
checks: the resolver lists its problem with every other of the body (DESIGN §8)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

from starlette.requests import Request
from starlette.responses import Response

from db.mail import MailboxRow, MessageRow
from gateway.http.responses import domain_error_response, json_object_body, json_response
from resolvers.common import ids
from resolvers.common.errors import DomainError, Problem
from resolvers.memory.mail import mailboxes, messages
from resolvers.memory.mail.checks import AttachmentInput, MailboxInput, MessageInput
from resolvers.memory.mail.mailboxes import MAILBOX_TYPE

# A post's 15 MB of attachments in base64 and its 2,000,000 characters of text: what a post
# may hold, all told.
MAX_MAIL_BODY_BYTES = 24 * 1024 * 1024

Reader = Callable[[Any], tuple[bool, Any]]


def _text(value: Any) -> tuple[bool, Any]:
    return isinstance(value, str), value


def _flag(value: Any) -> tuple[bool, Any]:
    return isinstance(value, bool), value


def _time(value: Any) -> tuple[bool, Any]:
    if not isinstance(value, str):
        return False, None
    try:
        return True, datetime.fromisoformat(value)
    except ValueError:
        return False, None


def _texts(value: Any) -> tuple[bool, Any]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value), value


def _objects(value: Any) -> tuple[bool, Any]:
    return isinstance(value, list) and all(isinstance(v, dict) for v in value), value


_SAYS: dict[Reader, str] = {
    _text: "a string",
    _flag: "true or false",
    _time: "an ISO 8601 time with its offset",
    _texts: "a list of strings",
    _objects: "a list of objects",
}
# What a field of the wrong kind, or a required one missing, holds while the resolver checks
# the rest (it never checks that field again: its problem is listed already).
_STAND_INS: dict[Reader, Any] = {_text: "", _flag: False, _time: None, _texts: [], _objects: []}


def fields(
    body: dict[str, Any], spec: dict[str, Reader], required: tuple[str, ...], where: str = ""
) -> tuple[dict[str, Any], list[Problem]]:
    """The body's fields read by ``spec`` (absent or null: None, or a required one's
    stand-in), and every problem of their kinds, each at ``where`` + its name."""
    problems = [Problem("unknown field", f"{where}{name}") for name in body if name not in spec]
    found: dict[str, Any] = {}
    for name, read in spec.items():
        value = body.get(name)
        if value is not None:
            ok, found[name] = read(value)
            if ok:
                continue
            problems.append(Problem(_SAYS[read], f"{where}{name}"))
        elif name in required:
            problems.append(Problem("required", f"{where}{name}"))
        found[name] = _STAND_INS[read] if name in required else None
    return found, problems


_MAILBOX_FIELDS: dict[str, Reader] = {
    "externalId": _text,
    "kind": _text,
    "name": _text,
    "ownerId": _text,
    "addresses": _texts,
}


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
        f, refused = fields(parsed, _MAILBOX_FIELDS, ("externalId", "kind", "name"))
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


_MESSAGE_FIELDS: dict[str, Reader] = {
    "externalId": _text,
    "threadId": _text,
    "filed": _text,
    "from": _text,
    "fromName": _text,
    "at": _time,
    "subject": _text,
    "text": _text,
    "quoted": _text,
    "category": _text,
    "important": _flag,
    "classifiedAt": _time,
    "attachments": _objects,
    "recordIds": _texts,
    "deleted": _flag,
}
_MESSAGE_REQUIRED = ("externalId", "threadId", "filed", "from", "at")
_ATTACHMENT_FIELDS: dict[str, Reader] = {"name": _text, "contents": _text}


def _message(raw: dict[str, Any], where: str) -> MessageInput:
    """One message of the body, with the problems of its fields' kinds."""
    f, refused = fields(raw, _MESSAGE_FIELDS, _MESSAGE_REQUIRED, where)
    attachments = []
    for n, item in enumerate(f["attachments"] or []):
        a, more = fields(item, _ATTACHMENT_FIELDS, ("name", "contents"), f"{where}attachments.{n}.")
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
        f, refused = fields(parsed, {"messages": _objects}, ("messages",))
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
