"""Routine and agent runs as the Dreamer's source (issue 10, item 1): ``recordRun``.

A run is an agent's or a routine's: its mission message, the messages after it (each with its
role, time and speaker), whether it was retried or failed before, and where it ran (a parent
conversation of the person the request acts for, a parent run for a subagent, which shares its
parent's conversation). Its owner is its runner's owner member, who pays for its pass; its
item is still the runner's, but when it ran in a person's conversation it is that person's
words: private to them (unless run and conversation are both the workspace's), their
``memory.shareWithTeam``, and a souvenir learned from it names their conversation. Who may
record one: the agent itself, the runner's owner (their session, their agents and MCP clients
acting for them) and an API key; every record its mission and messages mention must be one the
caller reads (else NOT_FOUND). Its external id is the caller's, one namespace per owner;
re-sending it with the same content answers the stored run, with other content a problem.

Answered after its mission: the caller's flag, or computed: any person's message (role user)
among the messages, which all come after the mission. Its item waits when the run was retried,
failed before or answered, else it is not read (``run_not_retried_failed_or_answered``); never
when its conversation's agent read another conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from db import dreamer
from db.dreamer import ConversationRow, ItemRow, NewItem, RunRow
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.dreamer.intake import (
    Named,
    arrive,
    external_id_problems,
    mentions,
    readable_or_not_found,
    run_status,
    scope_problems,
    text_problems,
    time_problems,
)
from resolvers.memory.dreamer.sources import RunSource

MAX_RUN_MESSAGES = 200
ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class RunMessageInput:
    """A message after the mission: a person's (role user, speaker a Member id, by default the
    conversation's person, else the person the request acts for, else the owner) or the
    runner's (role assistant, speaker an Agent id, by default the runner)."""

    role: str
    text: str
    at: datetime | None = None
    speaker_id: str | None = None


@dataclass(frozen=True, slots=True)
class RunInput:
    """A run as the caller sends it (an agent's token: its own run, agentId may be left out)."""

    external_id: str
    mission: str
    agent_id: str | None = None
    routine_id: str | None = None
    messages: Sequence[RunMessageInput] = ()
    retried: bool = False
    failed_before: bool = False
    answered_after_mission: bool = False
    conversation_id: str | None = None
    parent_run_id: str | None = None
    scope: str | None = None
    started_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class RecordedRun:
    """A run as stored, its conversation's and parent's external ids, its item, and whether
    it was stored before."""

    run: RunRow
    conversation_id: str | None
    parent_run_id: str | None
    item: ItemRow
    replayed: bool


@dataclass(frozen=True, slots=True)
class _Speaker:
    kind: str
    id: UUID | None


def _message_problems(
    principal: Principal, index: int, message: RunMessageInput, problems: list[Problem]
) -> _Speaker | None:
    """The problems of one message, and the speaker it names (None: missing)."""
    where = f"messages.{index}"
    if message.role not in ROLES:
        problems.append(Problem(f"one of {', '.join(ROLES)}", f"{where}.role"))
    problems += text_problems(message.text, f"{where}.text")
    problems += time_problems(message.at, f"{where}.at")
    if message.speaker_id is None or message.role not in ROLES:
        return _Speaker("", None)
    kind = "member" if message.role == "user" else "agent"
    type_name = "Member" if kind == "member" else "Agent"
    field = f"{where}.speakerId"
    try:
        return _Speaker(
            kind, ids.decode(message.speaker_id, type_name, principal.workspace_id, field)
        )
    except DomainError as error:
        if error.code is Code.NOT_FOUND:
            return None
        problems.extend(error.problems)
        return _Speaker("", None)


def _problems(
    principal: Principal, given: RunInput
) -> tuple[list[Problem], list[_Speaker | None], Named]:
    """Every problem of the input, each message's named speaker, and the records the mission
    and the messages mention."""
    problems = external_id_problems(given.external_id, "externalId")
    problems += text_problems(given.mission, "mission")
    named = mentions(principal.workspace_id, given.mission, problems, "mission")
    for n, said in enumerate(given.messages):
        named.add(mentions(principal.workspace_id, said.text, problems, f"messages.{n}.text"))
    problems += external_id_problems(given.conversation_id, "conversationId")
    problems += external_id_problems(given.parent_run_id, "parentRunId")
    problems += scope_problems(given.scope)
    problems += time_problems(given.started_at, "startedAt")
    if given.agent_id is not None and given.routine_id is not None:
        problems.append(Problem("a run is an agent's or a routine's, not both", "routineId"))
    elif given.agent_id is None and given.routine_id is None and principal.kind != "agent":
        problems.append(Problem("name the agent (agentId) or the routine (routineId)", "agentId"))
    if given.conversation_id is not None and principal.person_id is None:
        message = "an API key acts for no person: it names no person's conversation"
        problems.append(Problem(message, "conversationId"))
    if given.parent_run_id is not None and given.parent_run_id == given.external_id:
        problems.append(Problem("a run is not its own parent", "parentRunId"))
    if len(given.messages) > MAX_RUN_MESSAGES:
        problems.append(Problem(f"at most {MAX_RUN_MESSAGES} messages", "messages"))
    speakers = [
        _message_problems(principal, n, message, problems)
        for n, message in enumerate(given.messages)
    ]
    return problems, speakers, named


def _runner(principal: Principal, given: RunInput) -> tuple[str, UUID]:
    """The run's runner (agent or routine); an agent's token records its own runs only."""
    workspace = principal.workspace_id
    own = principal.row.actor_id if principal.kind == "agent" else None
    if given.routine_id is not None:
        if own is not None:
            raise DomainError(Code.FORBIDDEN, "An agent records its own runs only.")
        return "routine", ids.decode(given.routine_id, "Routine", workspace, "routineId")
    if given.agent_id is None:
        assert own is not None  # checked with the input
        return "agent", own
    named = ids.decode(given.agent_id, "Agent", workspace, "agentId")
    if own is not None and named != own:
        raise DomainError(Code.FORBIDDEN, "An agent records its own runs only.")
    return "agent", named


async def _owner(conn: asyncpg.Connection, principal: Principal, runner: tuple[str, UUID]) -> UUID:
    """The runner's owner, once the caller may record its runs."""
    owner = await dreamer.runner_owner(conn, *runner)
    if owner is None:
        raise not_found(runner[0])
    if principal.kind in ("member", "mcp_client") and principal.person_id != owner:
        raise DomainError(
            Code.FORBIDDEN, "You record the runs of your own agents and routines only."
        )
    return owner


async def _check_speakers(conn: asyncpg.Connection, speakers: list[_Speaker | None]) -> None:
    """NOT_FOUND unless every speaker named is a member or an agent of the workspace."""
    if any(s is None for s in speakers):
        raise not_found("speaker")
    named = {(s.kind, s.id) for s in speakers if s is not None and s.id is not None}
    if not named:
        return
    members = [i for k, i in named if k == "member" and i is not None]
    agents = [i for k, i in named if k == "agent" and i is not None]
    if named - await dreamer.known_actors(conn, members, agents):
        raise not_found("speaker")


async def record_run(
    conn: asyncpg.Connection, principal: Principal, given: RunInput
) -> RecordedRun:
    """Store a run with its item; a re-sent one answers as stored. Nothing is stored when
    anything is refused."""
    problems, speakers, named = _problems(principal, given)
    if problems:
        raise invalid(problems)
    runner = _runner(principal, given)
    owner = await _owner(conn, principal, runner)
    await _check_speakers(conn, speakers)
    await readable_or_not_found(conn, principal, named)
    conversation = None
    if given.conversation_id is not None:
        assert principal.person_id is not None  # checked with the input
        conversation = await dreamer.conversation_of(
            conn, principal.person_id, given.conversation_id
        )
        if conversation is None:
            raise not_found("conversation")
    now = clock.now()
    # A savepoint, and the external id's lock: a re-send waits for the first and finds it.
    async with conn.transaction():
        await dreamer.lock_source(conn, f"{principal.workspace_id}:run:{owner}:{given.external_id}")
        parent = None
        if given.parent_run_id is not None:
            parent = await dreamer.run_of(conn, owner, given.parent_run_id)
            if parent is None:
                raise not_found("run")
            conversation = await _in_parents_conversation(conn, conversation, parent)
        new = _run(principal, given, (runner, owner), speakers, conversation, parent, now)
        found = await dreamer.run_of(conn, owner, given.external_id)
        if found is not None:
            if not _same(found, new, given):
                message = "this external id was recorded with other content: nothing was stored"
                raise invalid([Problem(message, "externalId")])
            item = await dreamer.item_of(conn, "run", found.id)
            assert item is not None  # stored with its run
            return _recorded(found, conversation, given, item, replayed=True)
        stored = await dreamer.insert_run(conn, new)
        read_another = conversation is not None and conversation.agent_read_another
        status = run_status(
            RunSource(
                stored.retried, stored.failed_before, stored.answered_after_mission, read_another
            )
        )
        item = await arrive(conn, _item(stored, conversation, status.status, status.reason, now))
    return _recorded(stored, conversation, given, item, replayed=False)


def _recorded(
    run: RunRow,
    conversation: ConversationRow | None,
    given: RunInput,
    item: ItemRow,
    *,
    replayed: bool,
) -> RecordedRun:
    external = conversation.external_id if conversation is not None else None
    return RecordedRun(run, external, given.parent_run_id, item, replayed)


async def _in_parents_conversation(
    conn: asyncpg.Connection, conversation: ConversationRow | None, parent: RunRow
) -> ConversationRow | None:
    """A subagent's run is in its parent's conversation (when the parent has one)."""
    if parent.conversation_id is None:
        return conversation
    if conversation is not None:
        if conversation.id != parent.conversation_id:
            message = "a subagent's run is in its parent run's conversation"
            raise invalid([Problem(message, "conversationId")])
        return conversation
    return await dreamer.conversation_by_id(conn, parent.conversation_id)


def _run(
    principal: Principal,
    given: RunInput,
    whose: tuple[tuple[str, UUID], UUID],
    speakers: list[_Speaker | None],
    conversation: ConversationRow | None,
    parent: RunRow | None,
    now: datetime,
) -> RunRow:
    """The run to store."""
    (runner_kind, runner), owner = whose
    started_at = given.started_at or now
    person = conversation.person_id if conversation is not None else principal.person_id
    messages: list[dict[str, Any]] = []
    for message, speaker in zip(given.messages, speakers, strict=True):
        assert speaker is not None  # every speaker named was found
        kind, speaker_id = speaker.kind, speaker.id
        if speaker_id is None:
            user = message.role == "user"
            kind = "member" if user else runner_kind
            speaker_id = (person or owner) if user else runner
        messages.append(
            {
                "speakerKind": kind,
                "speakerId": str(speaker_id),
                "role": message.role,
                "at": (message.at or started_at).astimezone(UTC).isoformat(),
                "text": message.text,
            }
        )
    answered = given.answered_after_mission or any(m.role == "user" for m in given.messages)
    return RunRow(
        id=uuid4(),
        external_id=given.external_id,
        runner_kind=runner_kind,
        agent_id=runner if runner_kind == "agent" else None,
        routine_id=runner if runner_kind == "routine" else None,
        owner_id=owner,
        scope=given.scope or "private",
        conversation_id=conversation.id if conversation is not None else None,
        parent_run_id=parent.id if parent is not None else None,
        mission=given.mission,
        messages=messages,
        retried=given.retried,
        failed_before=given.failed_before,
        answered_after_mission=answered,
        started_at=started_at,
        created_at=now,
    )


_SAME_FIELDS = (
    "runner_kind",
    "agent_id",
    "routine_id",
    "conversation_id",
    "parent_run_id",
    "mission",
    "retried",
    "failed_before",
    "answered_after_mission",
)


def _same(found: RunRow, new: RunRow, given: RunInput) -> bool:
    """Whether a re-sent run says what the stored one says (its scope and times too, when
    given)."""
    if any(getattr(found, f) != getattr(new, f) for f in _SAME_FIELDS):
        return False
    if given.scope is not None and found.scope != new.scope:
        return False
    if given.started_at is not None and found.started_at != new.started_at:
        return False
    if len(found.messages) != len(new.messages):
        return False
    for stored, sent, message in zip(found.messages, new.messages, given.messages, strict=True):
        keys = ["role", "text", "speakerKind", "speakerId"]
        if message.at is not None:
            keys.append("at")
        if any(stored.get(k) != sent[k] for k in keys):
            return False
    return True


def _item(
    run: RunRow,
    conversation: ConversationRow | None,
    status: str,
    reason: str | None,
    now: datetime,
) -> NewItem:
    """A run's item: its runner's pages, paid by the runner's owner. Its person is the
    conversation's when it ran in one (their words and their sharing preference), else the
    runner's owner; it is private to that person unless both the run and its conversation are
    the workspace's."""
    runner = run.agent_id or run.routine_id
    person = conversation.person_id if conversation is not None else run.owner_id
    private = run.scope == "private" or (
        conversation is not None and conversation.scope == "private"
    )
    return NewItem(
        id=uuid4(),
        kind="run",
        owner_kind=run.runner_kind,
        owner_id=runner,
        private_to=person if private else None,
        payer_kind="member",
        payer_id=run.owner_id,
        share_person=person,
        urgent=False,
        said_at=run.started_at,
        arrived_at=now,
        status=status,
        reason=reason,
        run_id=run.id,
    )
