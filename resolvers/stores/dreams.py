"""Dreams (issue 14, item 5): asked for, read, listed, canceled and archived. A dream
consolidates a memory store with the Dreamer's reader, as a job (``dreaming``): on a copy of the
store (``create_new``) or on the store itself (``update_existing``).

Who reads a dream: whoever asked for it, and whoever may read its input store. Asking needs the
input store readable and live; ``create_new`` needs the right to create memory stores,
``update_existing`` the right to update the store. Canceling and archiving: whoever asked for
it, or a role that may update memory stores. The payer is the person the caller acts for, else
the workspace (DESIGN §5 "Allowances"), as for any pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from db import dreams, records
from db.dreams import DreamFilter, DreamRow, NewDream
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.writing import actor_of
from resolvers.stores.stores import STORE_OBJECT, store, writable_store
from resolvers.stores.workspace import is_workspace_store

MISSING = "dream"
CREATE_NEW = "create_new"
UPDATE_EXISTING = "update_existing"
TERMINAL = ("completed", "failed", "canceled")
STATUSES = ("pending", "running", *TERMINAL)
MAX_SESSIONS = 100
MAX_INSTRUCTIONS_CHARS = 4096


@dataclass(frozen=True, slots=True)
class DreamInput:
    """What a dream is asked for: its store, conversations, model and behavior (the store
    ``update_existing`` names must be the input's)."""

    store_id: UUID
    model: str
    session_ids: list[UUID] = field(default_factory=list)
    speed: str | None = None
    instructions: str | None = None
    behavior: str = CREATE_NEW
    output_store_id: UUID | None = None


def input_problems(given: DreamInput) -> list[Problem]:
    """What is wrong with a dream's input that needs no I/O."""
    problems = []
    if not given.model.strip():
        problems.append(Problem("a model is named", "model"))
    instructions = given.instructions
    if instructions is not None and not 1 <= len(instructions) <= MAX_INSTRUCTIONS_CHARS:
        problems.append(
            Problem(f"instructions hold 1 to {MAX_INSTRUCTIONS_CHARS} characters", "instructions")
        )
    if len(given.session_ids) > MAX_SESSIONS or len(set(given.session_ids)) != len(
        given.session_ids
    ):
        problems.append(Problem(f"1 to {MAX_SESSIONS} unique sessions", "inputs.session_ids"))
    if given.behavior == UPDATE_EXISTING and given.output_store_id != given.store_id:
        problems.append(
            Problem(
                "update_existing names the input memory store", "output_behavior.memory_store_id"
            )
        )
    return problems


async def _object_id(conn: asyncpg.Connection) -> UUID:
    found = await records.object_id(conn, STORE_OBJECT)
    assert found is not None  # every workspace has the native memory_store object
    return found


async def create_dream(
    conn: asyncpg.Connection, principal: Principal, given: DreamInput
) -> DreamRow:
    """A pending dream of a live store the caller may read (and write, or copy)."""
    if problems := input_problems(given):
        raise invalid(problems, "The dream is not valid: nothing was started.")
    if is_workspace_store(given.store_id):
        await store(conn, principal, given.store_id)
        raise invalid(
            [Problem("the workspace's memory is consolidated by the Dreamer itself", "inputs")],
            "The workspace memory store cannot be dreamed: nothing was started.",
        )
    if given.behavior == UPDATE_EXISTING:
        found = await writable_store(conn, principal, given.store_id)
    else:
        found = await store(conn, principal, given.store_id)
        if found.archived_at is not None:
            raise invalid([Problem("the memory store is archived", "inputs.memory_store_id")])
        if not principal.may("create", found.object_id):
            raise DomainError(Code.FORBIDDEN, "Your role may not create memory stores.")
    readable = await dreams.conversations_readable(conn, given.session_ids, principal.person_id)
    if missing := [s for s in given.session_ids if s not in readable]:
        raise not_found(f"session ({len(missing)} of those given)")
    person = principal.person_id
    dream_id = uuid4()
    await dreams.insert_dream(
        conn,
        NewDream(
            id=dream_id,
            input_store_id=given.store_id,
            session_ids=sorted(given.session_ids),
            model=given.model,
            speed=given.speed,
            instructions=given.instructions,
            behavior=given.behavior,
            actor=actor_of(principal),
            person_id=person,
            payer_kind="member" if person is not None else "workspace",
            payer_id=person,
            created_at=clock.now(),
        ),
    )
    return await dream(conn, principal, dream_id)


async def dream(conn: asyncpg.Connection, principal: Principal, dream_id: UUID) -> DreamRow:
    """A dream the caller may read; NOT_FOUND otherwise, exactly like a missing one."""
    found = await dreams.dream_readable(
        conn, dream_id, principal.readable_objects, principal.person_id, principal.row.actor_id
    )
    if found is None:
        raise not_found(MISSING)
    return found


async def _changeable(conn: asyncpg.Connection, principal: Principal, dream_id: UUID) -> DreamRow:
    """A dream the caller may cancel or archive, locked until the transaction ends."""
    found = await dream(conn, principal, dream_id)
    if found.actor_id != principal.row.actor_id and not principal.may(
        "update", await _object_id(conn)
    ):
        raise DomainError(Code.FORBIDDEN, "Only who asked for a dream, or a role that may update"
                          " memory stores, cancels or archives it.")  # fmt: skip
    locked = await dreams.dream_for_update(conn, dream_id)
    assert locked is not None  # read just now, never removed
    return locked


async def cancel(conn: asyncpg.Connection, principal: Principal, dream_id: UUID) -> DreamRow:
    """A pending or running dream canceled (it never runs, or applies nothing); a canceled one
    is answered as it is; a completed or failed one is refused."""
    found = await _changeable(conn, principal, dream_id)
    if found.status in ("completed", "failed"):
        raise invalid(
            [Problem(f"the dream is {found.status}", "status")],
            f"A {found.status} dream cannot be canceled.",
        )
    await dreams.cancel_dream(conn, dream_id, clock.now())
    return await dream(conn, principal, dream_id)


async def archive(conn: asyncpg.Connection, principal: Principal, dream_id: UUID) -> DreamRow:
    """A terminal dream archived (archiving again changes nothing); a pending or running one
    is refused."""
    found = await _changeable(conn, principal, dream_id)
    if found.status not in TERMINAL:
        raise invalid(
            [Problem(f"the dream is {found.status}", "status")],
            "Only a completed, failed or canceled dream can be archived.",
        )
    await dreams.archive_dream(conn, dream_id, clock.now())
    return await dream(conn, principal, dream_id)


async def listing(
    conn: asyncpg.Connection,
    principal: Principal,
    limit: int,
    before: tuple[datetime, UUID] | None,
    kept: DreamFilter,
) -> list[DreamRow]:
    """Up to ``limit`` + 1 dreams the caller may read, newest first."""
    if kept.statuses is not None and (unknown := set(kept.statuses) - set(STATUSES)):
        raise invalid(
            [Problem(f"unknown status {s!r}: one of {', '.join(STATUSES)}", "statuses") for s in
             sorted(unknown)]
        )  # fmt: skip
    return await dreams.dreams_page(
        conn,
        principal.readable_objects,
        principal.person_id,
        principal.row.actor_id,
        limit + 1,
        before,
        kept,
    )
