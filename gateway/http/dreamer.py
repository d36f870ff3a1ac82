"""The plain routes of the Dreamer's sources: a conversation's message (the seed's
``POST /agents/sessions/{id}/messages``) and a meeting (``POST /v1/meetings``; and
``DELETE /v1/meetings/{id}``). Each parses its JSON object, calls one resolver and answers 201
with what was stored, or 200 with what a re-send names (stored before: nothing new). A field
of the wrong kind does not stop the checks: the resolver lists its problem with every other of
the body (DESIGN §8)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from db.dreamer import ItemRow
from gateway.http import fields
from gateway.http.fields import Answer, Body, Moment
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


class MessageBody(Body):
    """A message of a conversation."""

    role: str = Field(description="user (the person's) or assistant (the agent's).")
    text: str = Field(description="What was said (20,000 characters at most).")
    message_id: str | None = Field(None, description="Your id: a re-send answers the stored one.")
    attached_record_id: str | None = Field(None, description="The record the message is about.")
    read_another_conversation: bool | None = Field(
        None, description="The agent read another conversation: nothing of this one is learned."
    )
    at: Moment | None = Field(None, description="When it was said (default: now).")
    agent_id: str | None = Field(None, description="The conversation's agent.")
    person_id: str | None = Field(None, description="The person (an API key's message).")
    scope: str | None = Field(None, description="Where its lessons go (e.g. private).")


class ItemAnswer(Answer):
    """What the Dreamer does with a source: waiting, written, refreshed, refused or not read."""

    status: str
    reason: str | None
    urgent: bool
    share_with_team: bool
    arrived_at: datetime


class MessageAnswer(Answer):
    conversation_id: str
    message_id: str | None
    role: str
    text: str
    attached_record_id: str | None
    read_another_conversation: bool
    at: datetime
    scope: str | None
    replayed: bool
    item: ItemAnswer | None


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
        f, refused = fields.fields(parsed, MessageBody)
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


class MeetingBody(Body):
    """A meeting and its transcript."""

    external_id: str = Field(description="Your id: a re-send answers the stored one.")
    title: str
    transcript: str = Field(description="200,000 characters at most.")
    held_at: Moment | None = Field(None, description="When it was held (default: now).")
    record_ids: list[str] | None = Field(None, description="The records it is about.")
    scope: str | None = None


class MeetingAnswer(Answer):
    id: str
    external_id: str
    title: str
    held_at: datetime
    scope: str | None
    record_ids: list[str]
    replayed: bool
    item: ItemAnswer | None


class DeletedAnswer(Answer):
    id: str
    deleted: bool


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
        f, refused = fields.fields(parsed, MeetingBody)
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
        meeting_id = ids.decode_or_absent(
            request.path_params["id"], "Record", principal.workspace_id
        )
        await meetings.delete_meeting(request.scope["db"], principal, meeting_id)
    except DomainError as error:
        return domain_error_response(error)
    return json_response({"id": request.path_params["id"], "deleted": True})
