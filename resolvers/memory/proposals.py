"""Proposals (DESIGN §5): what agents (and people) hand the Dreamer, at most 30 an hour per
proposer, counted in the database so every replica agrees."""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from uuid import UUID, uuid4

import asyncpg

from db import dreamer, memory_proposals, records
from db.dreamer import ConversationRow
from db.memory_proposals import ProposalRow
from resolvers.agents.agents import memory_on
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.dreamer.intake import (
    arrive,
    external_id_problems,
    proposal_item,
    proposal_status,
)
from resolvers.memory.writing import actor_of

PROPOSALS_PER_HOUR = 30
PROPOSAL_MAX_CHARS = 2_000
MEMORY_OBJECT = "memory"


def text_problems(text: str) -> list[Problem]:
    """Why a proposal's text is refused (empty when it is not)."""
    if not text.strip():
        return [Problem("a proposal says something", "text")]
    if len(text) > PROPOSAL_MAX_CHARS:
        return [Problem(f"a proposal is at most {PROPOSAL_MAX_CHARS} characters", "text")]
    if any(unicodedata.category(c) in ("Cc", "Cs") and c not in "\n\t" for c in text):
        return [Problem("a proposal holds no control character", "text")]
    return []


async def propose(
    conn: asyncpg.Connection,
    principal: Principal,
    text: str,
    record_gid: str | None = None,
    conversation_id: str | None = None,
) -> ProposalRow:
    """Store a proposal with its proposer, the person it is on behalf of, the record it is
    about (one the caller may read) and the conversation it was made from (the person's own),
    and its item for the Dreamer (intake.py)."""
    problems = text_problems(text) + _conversation_problems(principal, conversation_id)
    record_id: UUID | None = None
    if record_gid is not None:
        try:
            record_id = ids.decode(record_gid, "Record", principal.workspace_id, "recordId")
        except DomainError as error:
            if error.code is not Code.SCHEMA_VALIDATION_FAILED or not problems:
                raise
            problems.extend(error.problems)
    if problems:
        raise invalid(problems)
    await _may_propose(conn, principal)
    if record_id is not None:
        readable = await records.readable_records(
            conn, [record_id], principal.readable_objects, principal.person_id
        )
        if record_id not in readable:
            raise not_found("record")
    who = actor_of(principal)
    # A savepoint: a proposal refused past the hourly limit leaves nothing written.
    async with conn.transaction():
        conversation = await _conversation(conn, principal, conversation_id)
        status = proposal_status(conversation is not None and conversation.agent_read_another)
        await memory_proposals.lock_proposer(conn, f"{principal.workspace_id}:{who.kind}:{who.id}")
        now = clock.now()
        row = await memory_proposals.insert_proposal_within_limit(
            conn,
            uuid4(),
            who,
            principal.person_id,
            record_id,
            text,
            now,
            PROPOSALS_PER_HOUR,
            conversation.id if conversation is not None else None,
            status.reason,
        )
        if row is None:
            oldest = await memory_proposals.oldest_recent_proposal(conn, who, now)
            again = (oldest or now) + timedelta(hours=1)
            raise DomainError(
                Code.SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED,
                f"At most {PROPOSALS_PER_HOUR} proposals an hour: the next one is accepted"
                f" from {again.isoformat(timespec='seconds')}.",
            )
        await arrive(conn, proposal_item(row.id, principal.person_id, now, status))
    return row


async def _may_propose(conn: asyncpg.Connection, principal: Principal) -> None:
    """FORBIDDEN unless the caller's role reads memory and, for an agent, its tool groups hold
    ``memory``."""
    memory_object = await records.object_id(conn, MEMORY_OBJECT)
    if memory_object is None or not principal.may("read", memory_object):
        raise DomainError(Code.FORBIDDEN, "Your role has no access to memory.")
    if not await memory_on(conn, principal):
        raise DomainError(Code.FORBIDDEN, "This agent's tool groups leave memory out.")


def _conversation_problems(principal: Principal, conversation_id: str | None) -> list[Problem]:
    problems = external_id_problems(conversation_id, "conversationId")
    if conversation_id is not None and principal.person_id is None:
        message = "an API key acts for no person: it names no person's conversation"
        problems.append(Problem(message, "conversationId"))
    return problems


async def _conversation(
    conn: asyncpg.Connection, principal: Principal, external_id: str | None
) -> ConversationRow | None:
    """The person's conversation a proposal was made from (share-locked: whether its agent
    read another one holds until the proposal is stored); an agent names its own only."""
    if external_id is None or principal.person_id is None:
        return None
    found = await dreamer.conversation_of(conn, principal.person_id, external_id)
    if found is None:
        raise not_found("conversation")
    agent = principal.row.actor_id if principal.kind == "agent" else None
    if agent is not None and found.agent_id not in (None, agent):
        raise DomainError(Code.FORBIDDEN, "This conversation is with another agent.")
    return found


async def my_proposals(
    conn: asyncpg.Connection, principal: Principal, first: int
) -> list[ProposalRow]:
    """The caller's own proposals, newest first, with their status: an agent's, only those it
    made for the person it now acts for."""
    return await memory_proposals.proposals_by_proposer(
        conn, actor_of(principal), principal.person_id, first
    )
