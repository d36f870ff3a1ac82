"""A conversation compacted or ended (issue 12, item 2; seed 000 "What agents see"): the
profiles snapshot a conversation reads at its start is kept until it ends or is compacted.

Compacting a conversation records it (conversation_events, append-only): the next turn reads
the profiles afresh and keeps them until the next compaction, so a page the Dreamer rewrote
meanwhile reaches the agent. Ending it is recorded the same way: its messages' turns still
replay as stored, but a new turn of it is refused. An ended conversation is not compacted; ending
it again answers the end recorded.

Only the conversation's person (their own token, or one acting for them) and its agent (the
agent's token) may compact or end it: a conversation id is its person's own, so another
person's, another agent's or another workspace's answers NOT_FOUND like one that never began.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from db import turns
from db.turns import ConversationEvent, ConversationState
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.turns.turns import MAX_ID_CHARS, acting_for

COMPACTED = "compacted"
ENDED = "ended"


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation's id (the person's own) and its state after the change."""

    conversation_id: str
    state: ConversationState


def _id_problems(conversation_id: str) -> list[Problem]:
    if not 1 <= len(conversation_id) <= MAX_ID_CHARS or "\x00" in conversation_id:
        return [Problem(f"1 to {MAX_ID_CHARS} characters, no NUL", "conversationId")]
    return []


def _ended() -> DomainError:
    return DomainError(
        Code.MEMORY_PRECONDITION_FAILED,
        "This conversation has ended: it is not compacted (a new turn begins another).",
        [Problem("this conversation has ended", "conversationId")],
    )


@dataclass(frozen=True, slots=True)
class _Caller:
    person: UUID
    agent: UUID | None  # an agent's token: the conversation must be that agent's
    actor_kind: str
    actor_id: UUID


def _caller(principal: Principal) -> _Caller:
    """Who changes the conversation: the person (an API key is no one), or their agent."""
    person, agent = acting_for(principal, None, None)
    if agent is not None:
        return _Caller(person, agent, "agent", agent)
    return _Caller(person, None, "member", person)


async def _state(
    conn: asyncpg.Connection, caller: _Caller, conversation_id: str
) -> ConversationState:
    """The conversation as the caller may see it, or NOT_FOUND."""
    if problems := _id_problems(conversation_id):
        raise invalid(problems)
    state = await turns.conversation_state(conn, caller.person, conversation_id, caller.agent)
    if state is None:
        raise not_found("conversation")
    return state


async def _record(
    conn: asyncpg.Connection, caller: _Caller, conversation_id: str, kind: str
) -> datetime | None:
    event = ConversationEvent(
        id=uuid4(),
        person_id=caller.person,
        conversation_id=conversation_id,
        kind=kind,
        actor_kind=caller.actor_kind,
        actor_id=caller.actor_id,
        at=clock.now(),
    )
    return await turns.record_conversation_event(conn, event)


async def compact(
    conn: asyncpg.Connection, principal: Principal, conversation_id: str
) -> Conversation:
    """Mark the caller's conversation compacted: its next turn reads the profiles afresh. An
    ended conversation is refused (MEMORY_PRECONDITION_FAILED)."""
    caller = _caller(principal)
    state = await _state(conn, caller, conversation_id)
    if state.ended_at is not None:
        raise _ended()
    at = await _record(conn, caller, conversation_id, COMPACTED)
    if at is None:  # it ended meanwhile
        raise _ended()
    return Conversation(
        conversation_id, ConversationState(state.compactions + 1, at, state.ended_at)
    )


async def end(conn: asyncpg.Connection, principal: Principal, conversation_id: str) -> Conversation:
    """Record the end of the caller's conversation (once: ending it again answers the end
    recorded). Its turns replay as stored; a new turn of it is refused."""
    caller = _caller(principal)
    state = await _state(conn, caller, conversation_id)
    if state.ended_at is not None:
        return Conversation(conversation_id, state)
    at = await _record(conn, caller, conversation_id, ENDED)
    if at is None:  # ended meanwhile: that end is the one
        again = await _state(conn, caller, conversation_id)
        return Conversation(conversation_id, again)
    return Conversation(
        conversation_id, ConversationState(state.compactions, state.compacted_at, at)
    )
