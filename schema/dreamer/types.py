"""The Dreamer's sources as recorded: a conversation's message, a meeting, a run, and the item
each became for a pass."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from uuid import UUID

import strawberry

from db.dreamer import ItemRow
from resolvers.common import ids
from resolvers.memory.dreamer.meetings import RecordedMeeting as MeetingFound
from resolvers.memory.dreamer.messages import RecordedMessage as MessageFound
from resolvers.memory.dreamer.runs import RecordedRun as RunFound


@strawberry.enum
class MessageRole(Enum):
    USER = "user"
    ASSISTANT = "assistant"


@strawberry.enum(description="Private to its owner, or the workspace's.")
class SourceScope(Enum):
    PRIVATE = "private"
    WORKSPACE = "workspace"


@strawberry.enum
class MemoryItemStatus(Enum):
    WAITING = "waiting"
    READ = "read"
    NOT_READ = "not_read"


@strawberry.enum
class RunnerKind(Enum):
    AGENT = "agent"
    ROUTINE = "routine"


def _gid(type_name: str, workspace_id: UUID, local: UUID | None) -> strawberry.ID | None:
    return strawberry.ID(ids.encode(type_name, workspace_id, local)) if local else None


@strawberry.type(description="What a source became for the Dreamer when it arrived.")
class IntakeItem:
    status: MemoryItemStatus
    reason: str | None = strawberry.field(
        description="Why it is not read: too_few_messages, agent_read_another_conversation,"
        " run_not_retried_failed_or_answered, no_linked_records, agent_memory_off (its"
        " agent's tool groups leave memory out)."
    )
    urgent: bool = strawberry.field(
        description="A remember-request or a proposal: its pass waits only a few minutes."
    )
    share_with_team: bool = strawberry.field(
        description="Its person's memory.shareWithTeam when it arrived (no person: false)."
    )
    arrived_at: datetime

    @classmethod
    def from_row(cls, row: ItemRow) -> IntakeItem:
        return cls(
            status=MemoryItemStatus(row.status),
            reason=row.reason,
            urgent=row.urgent,
            share_with_team=row.share_with_team,
            arrived_at=row.arrived_at,
        )


@strawberry.type(description="A conversation's message as stored.")
class RecordedMessage:
    conversation_id: str = strawberry.field(description="The person's own conversation id.")
    message_id: str
    role: MessageRole
    text: str
    attached_record_id: strawberry.ID | None
    read_another_conversation: bool
    at: datetime = strawberry.field(description="When it was said.")
    scope: SourceScope = strawberry.field(description="The conversation's.")
    replayed: bool = strawberry.field(description="Stored before: nothing new was stored.")
    item: IntakeItem | None = strawberry.field(
        description="A person's message's item; an agent's message is none (context only)."
    )

    @classmethod
    def from_row(cls, found: MessageFound, workspace_id: UUID) -> RecordedMessage:
        message = found.message
        return cls(
            conversation_id=found.conversation.external_id,
            message_id=message.external_id,
            role=MessageRole(message.role),
            text=message.text,
            attached_record_id=_gid("Record", workspace_id, message.attached_record_id),
            read_another_conversation=message.read_another_conversation,
            at=message.said_at,
            scope=SourceScope(found.conversation.scope),
            replayed=found.replayed,
            item=IntakeItem.from_row(found.item) if found.item is not None else None,
        )


@strawberry.type(description="A meeting as stored: a record of the meeting object.")
class RecordedMeeting:
    id: strawberry.ID = strawberry.field(description="The meeting's record.")
    external_id: str
    title: str
    held_at: datetime
    scope: SourceScope
    record_ids: list[strawberry.ID] = strawberry.field(description="The records it is linked to.")
    replayed: bool = strawberry.field(description="Stored before: nothing new was stored.")
    item: IntakeItem

    @classmethod
    def from_row(cls, found: MeetingFound, workspace_id: UUID) -> RecordedMeeting:
        meeting = found.meeting
        return cls(
            id=strawberry.ID(ids.encode("Record", workspace_id, meeting.meeting_id)),
            external_id=meeting.external_id,
            title=meeting.title,
            held_at=meeting.held_at,
            scope=SourceScope(found.scope),
            record_ids=[
                strawberry.ID(ids.encode("Record", workspace_id, r)) for r in meeting.record_ids
            ],
            replayed=found.replayed,
            item=IntakeItem.from_row(found.item),
        )


@strawberry.type(description="An agent's or a routine's run as stored.")
class RecordedRun:
    external_id: str
    runner_kind: RunnerKind
    agent_id: strawberry.ID | None
    routine_id: strawberry.ID | None
    owner_id: strawberry.ID = strawberry.field(
        description="The runner's owner: the member its pass is charged to."
    )
    scope: SourceScope
    mission: str
    retried: bool
    failed_before: bool
    answered_after_mission: bool = strawberry.field(
        description="As sent, or a person's message among those after the mission."
    )
    conversation_id: str | None
    parent_run_id: str | None
    started_at: datetime
    replayed: bool = strawberry.field(description="Stored before: nothing new was stored.")
    item: IntakeItem

    @classmethod
    def from_row(cls, found: RunFound, workspace_id: UUID) -> RecordedRun:
        run = found.run
        return cls(
            external_id=run.external_id,
            runner_kind=RunnerKind(run.runner_kind),
            agent_id=_gid("Agent", workspace_id, run.agent_id),
            routine_id=_gid("Routine", workspace_id, run.routine_id),
            owner_id=strawberry.ID(ids.encode("Member", workspace_id, run.owner_id)),
            scope=SourceScope(run.scope),
            mission=run.mission,
            retried=run.retried,
            failed_before=run.failed_before,
            answered_after_mission=run.answered_after_mission,
            conversation_id=found.conversation_id,
            parent_run_id=found.parent_run_id,
            started_at=run.started_at,
            replayed=found.replayed,
            item=IntakeItem.from_row(found.item),
        )
