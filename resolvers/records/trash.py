"""The trash for records: a trashed record is read by no one until it is restored, and keeps
its memory page (DESIGN §5)."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from db import records
from db.records import TargetRow
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError, not_found
from resolvers.common.principals import Principal

# Records no record API trashes: a skill goes with deleteSkill, memory is the workspace's, a
# memory store goes with its own delete.
NOT_TRASHABLE = ("skill", "memory", "memory_store")


def _visible(principal: Principal, row: TargetRow) -> bool:
    """Whether the caller could read the record were it not in the trash."""
    if not principal.may("read", row.object_id):
        return False
    person = principal.person_id
    return row.visibility == "workspace" or (
        row.visibility == "private"
        and person is not None
        and (row.owner_member_id == person or person in row.shared_with)
    )


async def set_trashed(
    conn: asyncpg.Connection, principal: Principal, record_id: UUID, trashed: bool
) -> None:
    """Move a record the caller may delete to the trash, or out of it."""
    found = await records.record_targets(
        conn, [record_id], [], principal.readable_objects, principal.person_id
    )
    row = found[0] if found else None
    if row is None:
        raise not_found()
    kinds = {o.id: o.kind for o in await records.objects(conn)}
    # A memory record is read through its page only: refused as such, whoever asks.
    if kinds.get(row.object_id) == "memory" or (
        kinds.get(row.object_id) in NOT_TRASHABLE and _visible(principal, row)
    ):
        raise DomainError(
            Code.SCHEMA_SYSTEM_ENTITY_IMMUTABLE,
            f"{row.object} records cannot be trashed through the record API.",
        )
    if not _visible(principal, row):
        raise not_found()
    if not principal.may("delete", row.object_id):
        raise DomainError(Code.FORBIDDEN, f"Your role may not delete {row.object} records.")
    await records.set_record_trashed(conn, record_id, clock.now() if trashed else None)
