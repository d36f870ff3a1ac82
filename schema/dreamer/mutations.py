"""Mutations that record the Dreamer's sources (issue 10): a conversation's message, a
meeting, a run. Each stores nothing when it fails, and answers a re-sent source as stored."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from resolvers.common import ids
from resolvers.memory.dreamer import meetings, messages, runs
from schema.context import Context
from schema.dreamer.types import (
    MessageRole,
    RecordedMeeting,
    RecordedMessage,
    RecordedRun,
    SourceScope,
)


@strawberry.input
class RecordMessageInput:
    conversation_id: str = strawberry.field(
        description="The person's own conversation id (as turnContext's)."
    )
    role: MessageRole = strawberry.field(description="USER: the person's; ASSISTANT: the agent's.")
    text: str = strawberry.field(
        description="1 to 20,000 characters; it mentions records as @[Label](record:<id>)."
    )
    message_id: str | None = strawberry.field(
        default=None, description="Yours; re-sent with the same content, nothing new is stored."
    )
    attached_record_id: strawberry.ID | None = strawberry.field(
        default=None, description="The record whose page the message is sent from."
    )
    read_another_conversation: bool = strawberry.field(
        default=False,
        description="The agent read another conversation: nothing of this one is learned.",
    )
    at: datetime | None = strawberry.field(
        default=None, description="When it was said (default now; never over 5 minutes ahead)."
    )
    person_id: strawberry.ID | None = strawberry.field(
        default=None, description="The person the conversation is with (your token's)."
    )
    agent_id: strawberry.ID | None = strawberry.field(
        default=None, description="The conversation's agent (an agent's token: itself)."
    )
    scope: SourceScope | None = strawberry.field(
        default=None, description="Set by the first message (PRIVATE); kept after."
    )


@strawberry.input
class RecordMeetingInput:
    external_id: str = strawberry.field(description="Yours, one namespace per owner.")
    title: str
    transcript: str = strawberry.field(description="At most 200,000 characters.")
    held_at: datetime | None = strawberry.field(
        default=None, description="When (default now; never over 5 minutes ahead)."
    )
    record_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list, description="The records it is linked to (at most 100)."
    )
    scope: SourceScope | None = strawberry.field(
        default=None,
        description="PRIVATE (the default): owned by your person; WORKSPACE: owned by nobody.",
    )


@strawberry.input
class RunMessageInput:
    role: MessageRole
    text: str
    at: datetime | None = strawberry.field(
        default=None, description="When (default the run's start; never over 5 minutes ahead)."
    )
    speaker_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="USER: a member (your person, else the owner); ASSISTANT: an agent (the"
        " runner).",
    )


@strawberry.input
class RecordRunInput:
    external_id: str = strawberry.field(description="Yours, one namespace per runner's owner.")
    mission: str = strawberry.field(description="The mission message.")
    agent_id: strawberry.ID | None = strawberry.field(
        default=None, description="The agent that ran (an agent's token: itself)."
    )
    routine_id: strawberry.ID | None = strawberry.field(
        default=None, description="Or the routine that ran."
    )
    messages: list[RunMessageInput] = strawberry.field(
        default_factory=list, description="The messages after the mission (at most 200)."
    )
    retried: bool = False
    failed_before: bool = False
    answered_after_mission: bool = strawberry.field(
        default=False,
        description="A person answered after the mission; also true when a message is USER.",
    )
    conversation_id: str | None = strawberry.field(
        default=None, description="The conversation it ran from (the person's own id)."
    )
    parent_run_id: str | None = strawberry.field(
        default=None, description="A subagent's: its parent run's external id (same owner)."
    )
    scope: SourceScope | None = strawberry.field(default=None, description="PRIVATE by default.")
    started_at: datetime | None = strawberry.field(
        default=None, description="When (default now; never over 5 minutes ahead)."
    )


def _scope(scope: SourceScope | None) -> str | None:
    return scope.value if scope is not None else None


@strawberry.type
class DreamerMutation:
    @strawberry.mutation(
        description="Record a conversation's message for memory (created with its first"
        " message); a person's message becomes an item the Dreamer reads."
    )
    async def record_message(
        self, info: Info[Context, None], input: RecordMessageInput
    ) -> RecordedMessage:
        ctx = info.context
        found = await messages.record_message(
            ctx.conn,
            ctx.principal,
            messages.MessageInput(
                conversation_id=input.conversation_id,
                role=input.role.value,
                text=input.text,
                message_id=input.message_id,
                attached_record_id=input.attached_record_id,
                read_another_conversation=input.read_another_conversation,
                at=input.at,
                person_id=input.person_id,
                agent_id=input.agent_id,
                scope=_scope(input.scope),
            ),
        )
        return RecordedMessage.from_row(found, ctx.principal.workspace_id)

    @strawberry.mutation(
        description="Record a meeting (a record of the meeting object) with its transcript and"
        " linked records; the Dreamer reads it for those records."
    )
    async def record_meeting(
        self, info: Info[Context, None], input: RecordMeetingInput
    ) -> RecordedMeeting:
        ctx = info.context
        found = await meetings.record_meeting(
            ctx.conn,
            ctx.principal,
            meetings.MeetingInput(
                external_id=input.external_id,
                title=input.title,
                transcript=input.transcript,
                held_at=input.held_at,
                record_ids=list(input.record_ids),
                scope=_scope(input.scope),
            ),
        )
        return RecordedMeeting.from_row(found, ctx.principal.workspace_id)

    @strawberry.mutation(
        description="Delete a meeting you may read (your role's right to delete meetings):"
        " its record, transcript and links; souvenirs it was the source of go at the next"
        " Monday removal."
    )
    async def delete_meeting(self, info: Info[Context, None], id: strawberry.ID) -> bool:
        ctx = info.context
        local = ids.decode_or_absent(id, "Record", ctx.principal.workspace_id)
        await meetings.delete_meeting(ctx.conn, ctx.principal, local)
        return True

    @strawberry.mutation(
        description="Record an agent's or a routine's run; read when retried, failed before"
        " or answered by a person after its mission."
    )
    async def record_run(self, info: Info[Context, None], input: RecordRunInput) -> RecordedRun:
        ctx = info.context
        found = await runs.record_run(
            ctx.conn,
            ctx.principal,
            runs.RunInput(
                external_id=input.external_id,
                mission=input.mission,
                agent_id=input.agent_id,
                routine_id=input.routine_id,
                messages=[
                    runs.RunMessageInput(m.role.value, m.text, m.at, m.speaker_id)
                    for m in input.messages
                ],
                retried=input.retried,
                failed_before=input.failed_before,
                answered_after_mission=input.answered_after_mission,
                conversation_id=input.conversation_id,
                parent_run_id=input.parent_run_id,
                scope=_scope(input.scope),
                started_at=input.started_at,
            ),
        )
        return RecordedRun.from_row(found, ctx.principal.workspace_id)
