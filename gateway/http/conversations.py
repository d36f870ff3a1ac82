"""The plain routes of a conversation's compaction and end (issue 12, item 2):
``POST /agents/sessions/{id}/compact`` and ``POST /agents/sessions/{id}/end``. The body is
empty or an empty JSON object (``CompactBody``, ``EndBody``); the answer is the conversation's
state (``ConversationAnswer``), 200. Errors carry the shared error body (DESIGN §8): an unknown
field (400), a conversation that is not the caller's (404, as a missing one), compacting an
ended conversation (409)."""

from __future__ import annotations

from datetime import datetime

from starlette.requests import Request
from starlette.responses import Response

from gateway.http import fields
from gateway.http.fields import Answer, Body
from gateway.http.responses import domain_error_response, json_object_body, json_response
from resolvers.common.errors import DomainError, invalid
from resolvers.turns import conversations
from resolvers.turns.conversations import Conversation


class CompactBody(Body):
    """The body of POST /agents/sessions/{id}/compact: nothing (empty, or {})."""


class EndBody(Body):
    """The body of POST /agents/sessions/{id}/end: nothing (empty, or {})."""


class ConversationAnswer(Answer):
    """A conversation's state after its compaction or its end."""

    conversation_id: str
    compactions: int
    compacted_at: datetime | None
    ended_at: datetime | None
    ended: bool

    @classmethod
    def of(cls, found: Conversation) -> ConversationAnswer:
        state = found.state
        return cls(
            conversation_id=found.conversation_id,
            compactions=state.compactions,
            compacted_at=state.compacted_at,
            ended_at=state.ended_at,
            ended=state.ended_at is not None,
        )


async def _change(request: Request, body: type[Body], compact: bool) -> Response:
    parsed = await json_object_body(request, empty={})
    if isinstance(parsed, Response):
        return parsed
    db, principal = request.scope["db"], request.scope["principal"]
    conversation_id = request.path_params["id"]
    try:
        _, problems = fields.fields(parsed, body)
        if problems:
            raise invalid(problems)
        if compact:
            found = await conversations.compact(db, principal, conversation_id)
        else:
            found = await conversations.end(db, principal, conversation_id)
    except DomainError as error:
        return domain_error_response(error)
    # orjson writes the times as GraphQL does (+00:00).
    return json_response(ConversationAnswer.of(found).model_dump(by_alias=True))


async def post_compact(request: Request) -> Response:
    """POST /agents/sessions/{id}/compact: the caller's conversation {id} is compacted; its
    next turn reads the profiles afresh."""
    return await _change(request, CompactBody, compact=True)


async def post_end(request: Request) -> Response:
    """POST /agents/sessions/{id}/end: the end of the caller's conversation {id} is recorded."""
    return await _change(request, EndBody, compact=False)
