"""The plain routes of the Dreamer's sources: a conversation's message (the seed's
``POST /agents/sessions/{id}/messages``) and a meeting (``POST /v1/meetings``; and
``DELETE /v1/meetings/{id}``). Each parses its JSON object, calls one resolver and answers 201
with what was stored, or 200 with what a re-send names (stored before: nothing new). A field
of the wrong kind does not stop the checks: the resolver lists its problem with every other of
the body (DESIGN §8)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from starlette.requests import Request
from starlette.responses import Response

from db.dreamer import ItemRow
from gateway.http import fields
from gateway.http.responses import domain_error_response, json_object_body, json_response
from resolvers.common import ids
from resolvers.common.errors import DomainError
from resolvers.memory.dreamer import meetings, messages
from resolvers.memory.dreamer.meetings import RecordedMeeting
from resolvers.memory.dreamer.messages import RecordedMessage

# A message's 20,000 characters, each escaped in JSON at worst (a surrogate pair, 12 bytes).
MAX_MESSAGE_BODY_BYTES = 256 * 1024
# A meeting's 200,000 characters of transcript, the same way.
MAX_MEETING_BODY_BYTES = 4 * 1024 * 1024


def _gid(workspace: UUID, type_name: str, local: UUID | None) -> str | None:
    return ids.encode(type_name, workspace, local) if local is not None else None


def item_json(item: ItemRow | None) -> dict[str, Any] | None:
    if item is None:
        return None
    return {
        "status": item.status,
        "reason": item.reason,
        "urgent": item.urgent,
        "shareWithTeam": item.share_with_team,
        "arrivedAt": item.arrived_at.isoformat(),
    }


_MESSAGE_FIELDS: dict[str, fields.Reader] = {
    "messageId": fields.text,
    "role": fields.text,
    "text": fields.text,
    "attachedRecordId": fields.text,
    "readAnotherConversation": fields.flag,
    "at": fields.moment,
    "agentId": fields.text,
    "personId": fields.text,
    "scope": fields.text,
}


def message_json(found: RecordedMessage, workspace: UUID) -> dict[str, Any]:
    message = found.message
    return {
        "conversationId": found.conversation.external_id,
        "messageId": message.external_id,
        "role": message.role,
        "text": message.text,
        "attachedRecordId": _gid(workspace, "Record", message.attached_record_id),
        "readAnotherConversation": message.read_another_conversation,
        "at": message.said_at.isoformat(),
        "scope": found.conversation.scope,
        "replayed": found.replayed,
        "item": item_json(found.item),
    }


async def post_message(request: Request) -> Response:
    """POST /agents/sessions/{id}/messages with {"role", "text", "messageId", ...}: record a
    message of the person's conversation {id}."""
    parsed = await json_object_body(request, limit=MAX_MESSAGE_BODY_BYTES)
    if isinstance(parsed, Response):
        return parsed
    principal = request.scope["principal"]
    try:
        f, refused = fields.fields(parsed, _MESSAGE_FIELDS, ("role", "text"))
        given = messages.MessageInput(
            conversation_id=request.path_params["id"],
            role=f["role"],
            text=f["text"],
            message_id=f["messageId"],
            attached_record_id=f["attachedRecordId"],
            read_another_conversation=bool(f["readAnotherConversation"]),
            at=f["at"],
            person_id=f["personId"],
            agent_id=f["agentId"],
            scope=f["scope"],
            refused=refused,
        )
        found = await messages.record_message(request.scope["db"], principal, given)
    except DomainError as error:
        return domain_error_response(error)
    body = message_json(found, principal.workspace_id)
    return json_response(body, 200 if found.replayed else 201)


_MEETING_FIELDS: dict[str, fields.Reader] = {
    "externalId": fields.text,
    "title": fields.text,
    "transcript": fields.text,
    "heldAt": fields.moment,
    "recordIds": fields.texts,
    "scope": fields.text,
}


def meeting_json(found: RecordedMeeting, workspace: UUID) -> dict[str, Any]:
    meeting = found.meeting
    return {
        "id": ids.encode("Record", workspace, meeting.meeting_id),
        "externalId": meeting.external_id,
        "title": meeting.title,
        "heldAt": meeting.held_at.isoformat(),
        "scope": found.scope,
        "recordIds": [ids.encode("Record", workspace, r) for r in meeting.record_ids],
        "replayed": found.replayed,
        "item": item_json(found.item),
    }


async def post_meeting(request: Request) -> Response:
    """POST /v1/meetings with {"externalId", "title", "transcript", "heldAt", "recordIds",
    "scope"}: record a meeting."""
    parsed = await json_object_body(request, limit=MAX_MEETING_BODY_BYTES)
    if isinstance(parsed, Response):
        return parsed
    principal = request.scope["principal"]
    try:
        f, refused = fields.fields(parsed, _MEETING_FIELDS, ("externalId", "title", "transcript"))
        given = meetings.MeetingInput(
            external_id=f["externalId"],
            title=f["title"],
            transcript=f["transcript"],
            held_at=f["heldAt"],
            record_ids=f["recordIds"] or [],
            scope=f["scope"],
            refused=refused,
        )
        found = await meetings.record_meeting(request.scope["db"], principal, given)
    except DomainError as error:
        return domain_error_response(error)
    body = meeting_json(found, principal.workspace_id)
    return json_response(body, 200 if found.replayed else 201)


async def delete_meeting(request: Request) -> Response:
    """DELETE /v1/meetings/{id}: delete a meeting the caller may read; 200 with its id."""
    principal = request.scope["principal"]
    try:
        meeting_id = ids.decode(request.path_params["id"], "Record", principal.workspace_id)
        await meetings.delete_meeting(request.scope["db"], principal, meeting_id)
    except DomainError as error:
        return domain_error_response(error)
    return json_response({"id": request.path_params["id"], "deleted": True})
