"""DataLoaders over the named queries, made fresh for every request."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import asyncpg
from strawberry.dataloader import DataLoader

from db import cleanup_runs, identity, records
from resolvers.memory.cleanup.visible import changes_of_runs


@dataclass(slots=True)
class Loaders:
    """One request's loaders; they cache for that request only."""

    members_by_ids: DataLoader[UUID, identity.MemberRow | None]
    last_changes_by_records: DataLoader[UUID, records.ChangeRow | None]
    records_by_ids: DataLoader[UUID, records.RecordRow | None]
    # Keyed by (record id, how many entries): one statement per page size asked for.
    changes_by_records: DataLoader[tuple[UUID, int], list[records.ChangeRow]]
    # Keyed by (cleanup run id, how many, after which number).
    changes_by_cleanups: DataLoader[tuple[UUID, int, int], list[cleanup_runs.ChangeRow]]


def make_loaders(conn: asyncpg.Connection, readable: list[UUID], person: UUID | None) -> Loaders:
    """Loaders that batch through ``conn``, reading records as the caller (``readable``
    objects, ``person``)."""

    async def load_members(ids: Sequence[UUID]) -> list[identity.MemberRow | None]:
        found = {m.id: m for m in await identity.members_by_ids(conn, list(ids))}
        return [found.get(i) for i in ids]

    async def load_last_changes(ids: Sequence[UUID]) -> list[records.ChangeRow | None]:
        found = {c.record_id: c for c in await records.last_changes_by_records(conn, list(ids))}
        return [found.get(i) for i in ids]

    async def load_records(ids: Sequence[UUID]) -> list[records.RecordRow | None]:
        found = {r.id: r for r in await records.records_by_ids(conn, list(ids), readable, person)}
        return [found.get(i) for i in ids]

    async def load_changes(keys: Sequence[tuple[UUID, int]]) -> list[list[records.ChangeRow]]:
        found: dict[tuple[UUID, int], list[records.ChangeRow]] = {key: [] for key in keys}
        for limit in sorted({limit for _, limit in keys}):
            wanted = [record_id for record_id, size in keys if size == limit]
            for change in await records.changes_by_records(conn, wanted, limit):
                found[(change.record_id, limit)].append(change)
        return [found[key] for key in keys]

    async def load_cleanup_changes(
        keys: Sequence[tuple[UUID, int, int]],
    ) -> list[list[cleanup_runs.ChangeRow]]:
        return await changes_of_runs(conn, readable, person, keys)

    return Loaders(
        members_by_ids=DataLoader(load_fn=load_members),
        last_changes_by_records=DataLoader(load_fn=load_last_changes),
        records_by_ids=DataLoader(load_fn=load_records),
        changes_by_records=DataLoader(load_fn=load_changes),
        changes_by_cleanups=DataLoader(load_fn=load_cleanup_changes),
    )
