"""A conversation created with its memory stores (issue 14, item 6; seed 001 "Memory stores —
cross-session state"): before its first turn or message, a person's conversation (their own
id, as turnContext's) is created with its agent and at most 8 memory stores, each `read_only`
or `read_write` (the default) with instructions. Stores attach then only: a conversation that
has begun in any way is not created again. The conversation's agent writes none of its
read-only stores (resolvers/stores/access.py, the SQL function store_write_refused)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

import asyncpg

from db import conversation_stores as db
from db import dreamer
from db.conversation_stores import AttachedStore, NewAttachment
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.stores.workspace import (
    WORKSPACE_STORE_DESCRIPTION,
    WORKSPACE_STORE_ID,
    WORKSPACE_STORE_NAME,
    workspace_store,
)
from resolvers.turns.turns import MAX_ID_CHARS, acting_for

MAX_CONVERSATION_STORES = 8
ACCESSES = ("read_only", "read_write")
MAX_INSTRUCTIONS_CHARS = 4096
# A store's id as the Anthropic SDK's routes spell it: `memstore_` and its global id.
STORE_ID_PREFIX = "memstore_"
STORE_TYPE = "MemoryStore"
ONLY_AT_CREATION = "memory stores attach when a conversation is created only: this one has begun"


@dataclass(frozen=True, slots=True)
class StoreAttachment:
    """A store to attach, as given: its `memstore_…` id (or GraphQL id), its access and the
    instructions the agent is given with it."""

    memory_store_id: str
    access: str = "read_write"
    instructions: str = ""


@dataclass(frozen=True, slots=True)
class StartInput:
    conversation_id: str
    agent_id: str | None = None
    memory_stores: Sequence[StoreAttachment] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ConversationStore:
    """An attached store as read: its `memstore_…` id, access, instructions, name and
    description (what the agent is told of its mount)."""

    memory_store_id: str
    access: str
    instructions: str
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class CreatedConversation:
    conversation_id: str
    agent_id: UUID | None
    created_at: datetime
    memory_stores: list[ConversationStore]


def public_store_id(workspace_id: UUID, store_id: UUID) -> str:
    """A store's id as the SDK's routes spell it."""
    return STORE_ID_PREFIX + ids.encode(STORE_TYPE, workspace_id, store_id)


def store_id_of(text: str, workspace_id: UUID, field: str) -> UUID:
    """The store an attachment names: its `memstore_…` id or its GraphQL (record) id. A
    malformed id is a validation error; another workspace's answers NOT_FOUND."""
    if text.startswith(STORE_ID_PREFIX):
        return ids.decode(text.removeprefix(STORE_ID_PREFIX), STORE_TYPE, workspace_id, field)
    return ids.decode(text, "Record", workspace_id, field)


def _one(
    item: StoreAttachment, workspace_id: UUID, field: str, missing: list[str]
) -> tuple[UUID | None, list[Problem]]:
    """The store one attachment names (None when it names none) and its problems."""
    problems = []
    if item.access not in ACCESSES:
        problems.append(Problem("access is 'read_only' or 'read_write'", f"{field}.access"))
    if len(item.instructions) > MAX_INSTRUCTIONS_CHARS or "\x00" in item.instructions:
        text = f"at most {MAX_INSTRUCTIONS_CHARS} characters, no NUL"
        problems.append(Problem(text, f"{field}.instructions"))
    try:
        store_id = store_id_of(item.memory_store_id, workspace_id, f"{field}.memoryStoreId")
    except DomainError as error:
        if error.code is not Code.NOT_FOUND:
            return None, error.problems + problems
        missing.append(item.memory_store_id)
        return None, problems
    if store_id == WORKSPACE_STORE_ID and item.access == "read_write":
        text = "the workspace's memory store is read-only: attach it read_only"
        problems.append(Problem(text, f"{field}.access"))
    return store_id, problems


def parse_stores(
    given: Sequence[StoreAttachment], workspace_id: UUID
) -> tuple[list[tuple[UUID | None, StoreAttachment]], list[str], list[Problem]]:
    """The stores named (in order, None for an id naming none), the ids naming no store of the
    workspace, and every problem of the list (pure)."""
    problems: list[Problem] = []
    if len(given) > MAX_CONVERSATION_STORES:
        text = f"a conversation attaches at most {MAX_CONVERSATION_STORES} memory stores"
        problems.append(Problem(text, "memoryStores"))
    parsed: list[tuple[UUID | None, StoreAttachment]] = []
    missing: list[str] = []
    for index, item in enumerate(given):
        field = f"memoryStores[{index}]"
        store_id, found = _one(item, workspace_id, field, missing)
        if store_id is not None and store_id in [p[0] for p in parsed]:
            found.append(Problem("a store is attached once", f"{field}.memoryStoreId"))
        problems += found
        parsed.append((store_id, item))
    return parsed, missing, problems


def _id_problems(conversation_id: str) -> list[Problem]:
    if not 1 <= len(conversation_id) <= MAX_ID_CHARS or "\x00" in conversation_id:
        return [Problem(f"1 to {MAX_ID_CHARS} characters, no NUL", "conversationId")]
    return []


async def _readable(
    conn: asyncpg.Connection,
    principal: Principal,
    parsed: Sequence[tuple[UUID | None, StoreAttachment]],
) -> None:
    """NOT_FOUND unless the caller may read every store named."""
    wanted = [s for s, _ in parsed if s is not None and s != WORKSPACE_STORE_ID]
    found = await db.attachable_stores(
        conn, wanted, principal.readable_objects, principal.person_id
    )
    if len({s.id for s in found}) != len(set(wanted)):
        raise not_found("memory store")
    if any(s == WORKSPACE_STORE_ID for s, _ in parsed):
        if await workspace_store(conn, principal) is None:
            raise not_found("memory store")


async def start_conversation(
    conn: asyncpg.Connection, principal: Principal, given: StartInput
) -> CreatedConversation:
    """Create the caller's conversation with its agent and memory stores; every problem
    listed and nothing stored when any is found. A conversation that has begun is refused
    (SCHEMA_VALIDATION_FAILED: stores attach at creation only); a store the caller may not
    read is NOT_FOUND."""
    problems = _id_problems(given.conversation_id)
    parsed, missing, found = parse_stores(given.memory_stores, principal.workspace_id)
    person, agent = acting_for(principal, None, given.agent_id)
    if problems := problems + found:
        raise invalid(problems)
    if missing:
        raise not_found("memory store")
    await _readable(conn, principal, parsed)
    if agent is not None and not (principal.kind == "agent" and agent == principal.row.actor_id):
        if await dreamer.runner_owner(conn, "agent", agent) is None:
            raise not_found("agent")
    begun = await db.conversation_begun(conn, person, given.conversation_id)
    if begun or not await db.insert_start(conn, person, given.conversation_id, agent, clock.now()):
        raise invalid([Problem(ONLY_AT_CREATION, "memoryStores")])
    attachments = [
        NewAttachment(None if s == WORKSPACE_STORE_ID else s, item.access, item.instructions)
        for s, item in parsed
    ]
    if attachments:
        await db.insert_store_attachments(
            conn, person, given.conversation_id, attachments, clock.now()
        )
    created = await conversation(conn, principal, given.conversation_id)
    assert created is not None  # created above, in this transaction
    return created


def _store(row: AttachedStore, workspace_id: UUID) -> ConversationStore:
    if row.store_id is None:
        return ConversationStore(
            public_store_id(workspace_id, WORKSPACE_STORE_ID),
            row.access,
            row.instructions,
            WORKSPACE_STORE_NAME,
            WORKSPACE_STORE_DESCRIPTION,
        )
    assert row.name is not None and row.description is not None
    return ConversationStore(
        public_store_id(workspace_id, row.store_id),
        row.access,
        row.instructions,
        row.name,
        row.description,
    )


async def conversation(
    conn: asyncpg.Connection, principal: Principal, conversation_id: str
) -> CreatedConversation | None:
    """The caller's conversation as created with its stores (an agent's token: its own
    conversations only); None when it was not created by startConversation."""
    if problems := _id_problems(conversation_id):
        raise invalid(problems)
    person, agent = acting_for(principal, None, None)
    row = await db.conversation_stores(conn, person, conversation_id, agent)
    if row is None:
        return None
    workspace = principal.workspace_id
    stores = [_store(s, workspace) for s in row.stores]
    return CreatedConversation(conversation_id, row.agent_id, row.created_at, stores)
