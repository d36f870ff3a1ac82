"""A conversation's messages as the Dreamer's source (issue 10, item 1): recorded by
``POST /agents/sessions/{id}/messages`` and ``recordMessage``.

A conversation is the person's own (its external id is theirs, as turnContext's), created on
its first message and keeping its person, its agent (one with no agent yet takes the first one
named) and its scope. A message's speaker is the person (role user) or the agent (role
assistant). Re-sending a message id with the same content answers the stored message; with other
content, a validation problem, and nothing is stored twice.

A person's message becomes an item (intake.py): waiting once the conversation is read (two of
the person's messages, or one asking to remember), else not read for too few messages until a
later message makes it read. A message saying the agent read another conversation flags the
conversation: nothing of it, of its runs or of its proposals is read from then on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from db import dreamer
from db.dreamer import ConversationRow, ItemRow, MessageRow, NewConversation, NewItem
from resolvers.common import clock
from resolvers.common.errors import Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.dreamer.cues import asks_to_remember
from resolvers.memory.dreamer.intake import (
    Named,
    arrive,
    conversation_status,
    decode_records,
    external_id_problems,
    mentions,
    readable_or_not_found,
    scope_problems,
    text_problems,
    time_problems,
    with_refused,
)
from resolvers.memory.dreamer.sources import ConversationSource, conversation_is_read
from resolvers.turns.turns import acting_for

ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class MessageInput:
    """One message of a conversation, as the caller sends it."""

    conversation_id: str
    role: str
    text: str
    message_id: str | None = None
    attached_record_id: str | None = None
    read_another_conversation: bool = False
    at: datetime | None = None
    person_id: str | None = None
    agent_id: str | None = None
    scope: str | None = None
    # Problems found while parsing it (a route's: a field of the wrong kind, missing or
    # unknown), listed with every other; the fields they name hold stand-ins.
    refused: Sequence[Problem] = ()


@dataclass(frozen=True, slots=True)
class RecordedMessage:
    """A message as stored, its conversation, its item (a person's message only), and whether
    it was stored before (a re-send: nothing new)."""

    conversation: ConversationRow
    message: MessageRow
    item: ItemRow | None
    replayed: bool


def _problems(given: MessageInput, workspace: UUID) -> tuple[list[Problem], Named, UUID | None]:
    """Every problem of the input, the records it names (attached, then mentioned) and the
    attached one."""
    problems = external_id_problems(given.conversation_id, "conversationId")
    problems += external_id_problems(given.message_id, "messageId")
    if given.role not in ROLES:
        problems.append(Problem(f"one of {', '.join(ROLES)}", "role"))
    problems += text_problems(given.text, "text")
    problems += time_problems(given.at, "at")
    problems += scope_problems(given.scope)
    attached = [given.attached_record_id] if given.attached_record_id is not None else []
    named = decode_records(workspace, attached, "attachedRecordId", problems)
    attached_id = named.ids[0] if named.ids else None
    mentioned = mentions(workspace, given.text, problems)
    named.ids += [r for r in mentioned.ids if r not in named.ids]
    named.missing = named.missing or mentioned.missing
    return with_refused(given.refused, problems), named, attached_id


async def record_message(
    conn: asyncpg.Connection, principal: Principal, given: MessageInput
) -> RecordedMessage:
    """Store a conversation's message (and its conversation on its first), with its item;
    a re-sent one answers as stored. Nothing is stored when anything is refused."""
    problems, named, attached = _problems(given, principal.workspace_id)
    if problems:
        raise invalid(problems)
    person, agent = acting_for(principal, given.person_id, given.agent_id)
    await readable_or_not_found(conn, principal, named)
    if agent is not None and not (principal.kind == "agent" and agent == principal.row.actor_id):
        if await dreamer.runner_owner(conn, "agent", agent) is None:
            raise not_found("agent")
    now = clock.now()
    # A savepoint: a refusal found once the conversation is open leaves nothing behind.
    async with conn.transaction():
        conversation = await dreamer.open_conversation(
            conn,
            NewConversation(
                uuid4(), given.conversation_id, person, agent, given.scope or "private", now
            ),
        )
        new = _message(given, conversation, agent, attached, now)
        stored = await dreamer.insert_message(conn, new)
        if stored is None:
            return await _replayed(conn, given, conversation, new)
        if given.read_another_conversation and not conversation.agent_read_another:
            await dreamer.mark_read_another(conn, conversation.id, now)
            conversation = replace(conversation, agent_read_another=True)
        item = None
        if stored.role == "user":
            item = await _arrive(conn, conversation, stored, now)
    return RecordedMessage(conversation, stored, item, replayed=False)


def _message(
    given: MessageInput,
    conversation: ConversationRow,
    agent: UUID | None,
    attached: UUID | None,
    now: datetime,
) -> MessageRow:
    """The message to store, once its conversation is known (its agent, its scope)."""
    problems = []
    if agent is not None and conversation.agent_id != agent:
        problems.append(Problem("this conversation is with another agent", "agentId"))
    if given.scope is not None and given.scope != conversation.scope:
        problems.append(Problem(f"this conversation's scope is {conversation.scope}", "scope"))
    user = given.role == "user"
    speaker = conversation.person_id if user else conversation.agent_id
    if speaker is None:
        message = "an assistant's message is an agent's: name the agent (agentId)"
        problems.append(Problem(message, "agentId"))
    if problems:
        raise invalid(problems)
    assert speaker is not None
    return MessageRow(
        id=uuid4(),
        conversation_id=conversation.id,
        external_id=given.message_id or uuid4().hex,
        speaker_kind="member" if user else "agent",
        speaker_id=speaker,
        role=given.role,
        text=given.text,
        attached_record_id=attached,
        read_another_conversation=given.read_another_conversation,
        said_at=given.at or now,
        created_at=now,
    )


def _same(stored: MessageRow, new: MessageRow, at_given: bool) -> bool:
    """Whether a re-sent message says what the stored one says (its time too, when given)."""
    fields = ("speaker_kind", "speaker_id", "role", "text", "attached_record_id")
    if any(getattr(stored, f) != getattr(new, f) for f in fields):
        return False
    if stored.read_another_conversation != new.read_another_conversation:
        return False
    return not at_given or stored.said_at == new.said_at


async def _replayed(
    conn: asyncpg.Connection, given: MessageInput, conversation: ConversationRow, new: MessageRow
) -> RecordedMessage:
    """The stored message a re-send names, when it says the same; else a problem."""
    stored = await dreamer.message_of(conn, conversation.id, new.external_id)
    assert stored is not None  # the conversation is locked: its message stays
    if not _same(stored, new, given.at is not None):
        message = "this message id was recorded with other content: nothing was stored"
        raise invalid([Problem(message, "messageId")])
    item = await dreamer.item_of(conn, "conversation", stored.id) if stored.role == "user" else None
    return RecordedMessage(conversation, stored, item, replayed=True)


async def _arrive(
    conn: asyncpg.Connection, conversation: ConversationRow, message: MessageRow, now: datetime
) -> ItemRow:
    """A person's message's item: its status from the person's messages so far; a message
    that makes the conversation read wakes its earlier items too."""
    texts = await dreamer.person_texts(conn, conversation.id)
    status = conversation_status(texts, conversation.agent_read_another)
    person = conversation.person_id
    item = await arrive(
        conn,
        NewItem(
            id=uuid4(),
            kind="conversation",
            owner_kind="member",
            owner_id=person,
            private_to=person if conversation.scope == "private" else None,
            payer_kind="member",
            payer_id=person,
            share_person=person,
            urgent=asks_to_remember(message.text),
            said_at=message.said_at,
            arrived_at=now,
            status=status.status,
            reason=status.reason,
            message_id=message.id,
        ),
    )
    earlier = list(texts)
    earlier.remove(message.text)
    if status.waiting and earlier and not conversation_is_read(ConversationSource(earlier)):
        await dreamer.wake_conversation_items(conn, conversation.id)
    return item
