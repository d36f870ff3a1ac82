"""The Dreamer's intake (issue 10, items 1-3): what every source shares as it arrives.

A source (a person's message, a meeting, a run, a proposal) becomes one item of
``memory_items`` in the transaction that stores it, with its page owner, the person it is
private to, its payer, the person's ``memory.shareWithTeam`` as it is at arrival, and its status
by the rules of ``sources.py``: waiting for a pass, or not read with the reason. An item that
waits wakes the scheduler (``pg_notify('skillmem_dreamer')``, at commit). An agent's message is
no item: it is context a pass may read beside the person's messages.

The status rules are pure (tested without a database); the checks every source's input shares
(external ids, texts, times, scopes, the records it names) are here too. A time given (a
message's, a meeting's, a run's and its messages') may be at most ``MAX_CLOCK_AHEAD`` (five
minutes) after now: a souvenir's day comes from it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal
from uuid import UUID, uuid4

import asyncpg

from db import dreamer, records
from db.dreamer import ItemRow, NewItem
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, not_found
from resolvers.common.principals import Principal
from resolvers.memory.dreamer.sources import (
    ConversationSource,
    MeetingSource,
    ProposalSource,
    RunSource,
    conversation_is_read,
    meeting_reads,
    proposal_is_read,
    run_is_read,
)
from resolvers.turns.cards import mentioned_ids

Scope = Literal["private", "workspace"]
SCOPES: tuple[Scope, ...] = ("private", "workspace")
MAX_EXTERNAL_ID_CHARS = 200
MAX_MESSAGE_CHARS = 20_000
# How far after now a given time may be (a caller's clock a little ahead of ours); later is
# refused.
MAX_CLOCK_AHEAD = timedelta(minutes=5)

# Why an item arrives (or turns) not read.
TOO_FEW_MESSAGES = "too_few_messages"
AGENT_READ_ANOTHER = "agent_read_another_conversation"
RUN_NOT_READ = "run_not_retried_failed_or_answered"
NO_LINKED_RECORDS = "no_linked_records"
# It came through an agent whose tool groups leave memory out (item_memory_on, migration 0019):
# written so by insert_item on arrival, and by a pass for one waiting when the group went off.
AGENT_MEMORY_OFF = "agent_memory_off"


@dataclass(frozen=True, slots=True)
class Status:
    """An item's status on arrival: waiting, or not read with its reason."""

    status: Literal["waiting", "not_read"]
    reason: str | None = None

    @property
    def waiting(self) -> bool:
        return self.status == "waiting"


WAITING = Status("waiting")


def _not_read(reason: str) -> Status:
    return Status("not_read", reason)


def conversation_status(person_texts: Sequence[str], agent_read_another: bool) -> Status:
    """A person's message's status, from every message of the conversation's person so far."""
    if agent_read_another:
        return _not_read(AGENT_READ_ANOTHER)
    if conversation_is_read(ConversationSource(person_texts)):
        return WAITING
    return _not_read(TOO_FEW_MESSAGES)


def run_status(run: RunSource) -> Status:
    """A run's status: read when retried, failed before or answered after its mission."""
    if run.conversation_agent_read_another:
        return _not_read(AGENT_READ_ANOTHER)
    return WAITING if run_is_read(run) else _not_read(RUN_NOT_READ)


def meeting_status(record_ids: Sequence[UUID]) -> Status:
    """A meeting's status: read for the records it is linked to, none without any."""
    read_for = meeting_reads(MeetingSource([str(r) for r in record_ids]))
    return WAITING if read_for else _not_read(NO_LINKED_RECORDS)


def proposal_status(from_conversation_agent_read_another: bool) -> Status:
    """A proposal's status: read, unless its conversation's agent read another one."""
    source = ProposalSource(from_conversation_agent_read_another)
    return WAITING if proposal_is_read(source) else _not_read(AGENT_READ_ANOTHER)


# --- what every input is checked for ------------------------------------------------------------


def external_id_problems(value: str | None, field: str) -> list[Problem]:
    """Why an external id (the caller's own) is refused: 1 to 200 characters, no control."""
    if value is None:
        return []
    if not 1 <= len(value) <= MAX_EXTERNAL_ID_CHARS or not value.strip() or _controls(value):
        message = f"1 to {MAX_EXTERNAL_ID_CHARS} characters, not blank, no control character"
        return [Problem(message, field)]
    return []


def text_problems(text: str, field: str, cap: int = MAX_MESSAGE_CHARS) -> list[Problem]:
    """Why a text is refused: blank, longer than ``cap``, or holding NUL or half a character."""
    if not text.strip():
        return [Problem("says something (1 character at least, not blank)", field)]
    problems = []
    if len(text) > cap:
        problems.append(Problem(f"at most {cap} characters", field))
    if "\x00" in text or any(unicodedata.category(c) == "Cs" for c in text):
        problems.append(Problem("holds no NUL and no lone surrogate", field))
    return problems


def _controls(value: str) -> bool:
    return any(unicodedata.category(c) in ("Cc", "Cs") for c in value)


def time_problems(at: datetime | None, field: str) -> list[Problem]:
    """A time is given with its offset (2026-03-02T09:00:00+01:00) and is not in the future:
    a souvenir's day comes from it, and a line of a future day could never be replaced by
    evidence of its day or later. ``MAX_CLOCK_AHEAD`` allows for the caller's clock running
    ahead of ours."""
    if at is None:
        return []
    if at.utcoffset() is None:
        return [Problem("a time with its UTC offset (2026-03-02T09:00:00Z)", field)]
    if at > clock.now() + MAX_CLOCK_AHEAD:
        minutes = int(MAX_CLOCK_AHEAD.total_seconds() // 60)
        return [Problem(f"not in the future (at most {minutes} minutes after now)", field)]
    return []


def with_refused(refused: Sequence[Problem], problems: Sequence[Problem]) -> list[Problem]:
    """Every problem of an input in one list: those found while parsing it (a field of the
    wrong kind, missing or unknown: a route's), then the input's own on every other field (a
    refused field holds a stand-in, not checked again)."""
    marked = {problem.field for problem in refused}
    return [*refused, *(problem for problem in problems if problem.field not in marked)]


def scope_problems(scope: str | None, field: str = "scope") -> list[Problem]:
    if scope is not None and scope not in SCOPES:
        return [Problem(f"one of {', '.join(SCOPES)}", field)]
    return []


@dataclass(slots=True)
class Named:
    """The records an input names (global ids decoded, each once, in order), and whether one
    names no record of this workspace (another type, another workspace)."""

    ids: list[UUID]
    missing: bool = False

    def add(self, other: Named) -> None:
        """The records ``other`` names too, after these (each once)."""
        self.ids += [local for local in other.ids if local not in self.ids]
        self.missing = self.missing or other.missing


def decode_records(
    workspace: UUID, gids: Sequence[str], field: str, problems: list[Problem]
) -> Named:
    """The local ids of ``gids`` (each once, in order); malformed ones add a problem at
    ``field`` (or ``field.<i>``), ones of another type or workspace make ``missing``."""
    named = Named([])
    for gid in gids:
        try:
            local = ids.decode(gid, "Record", workspace, field)
        except DomainError as error:
            if error.code is Code.NOT_FOUND:
                named.missing = True
            else:
                problems.append(Problem("not a valid record id", field))
            continue
        if local not in named.ids:
            named.ids.append(local)
    return named


def mentions(workspace: UUID, text: str, problems: list[Problem], field: str = "text") -> Named:
    """The records a text mentions (``@[Label](record:<id>)``)."""
    return decode_records(workspace, mentioned_ids(text), field, problems)


async def readable_or_not_found(
    conn: asyncpg.Connection, principal: Principal, named: Named
) -> None:
    """NOT_FOUND unless the caller may read every record named (a missing one, one of another
    workspace and one the caller may not read answer alike)."""
    if named.missing:
        raise not_found("record")
    if not named.ids:
        return
    readable = await records.readable_records(
        conn, named.ids, principal.readable_objects, principal.person_id
    )
    if any(record_id not in readable for record_id in named.ids):
        raise not_found("record")


# --- arrival --------------------------------------------------------------------------------------


async def arrive(conn: asyncpg.Connection, new: NewItem) -> ItemRow:
    """Store a source's item; one that waits wakes the scheduler."""
    item = await dreamer.insert_item(conn, new)
    if item.status == "waiting":
        await dreamer.notify_dreamer(conn)
    return item


def proposal_item(proposal_id: UUID, person: UUID | None, at: datetime, status: Status) -> NewItem:
    """A proposal's item, urgent: the pages and payment of the person it is for (private to
    them), or the workspace's for an API key's proposal (no person)."""
    kind = "member" if person is not None else "workspace"
    return NewItem(
        id=uuid4(),
        kind="proposal",
        owner_kind=kind,
        owner_id=person,
        private_to=person,
        payer_kind=kind,
        payer_id=person,
        share_person=person,
        urgent=True,
        said_at=at,
        arrived_at=at,
        status=status.status,
        reason=status.reason,
        proposal_id=proposal_id,
    )
