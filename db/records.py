"""Objects, attributes, records, relations, shares and the change log."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from db.sql import queries
from db.uuids import hex_of

Q = queries("records")


@dataclass(frozen=True, slots=True)
class AttributeRow:
    slug: str
    title: str
    type: str
    target: str | None
    principal_rank: int | None


@dataclass(frozen=True, slots=True)
class ObjectRow:
    id: UUID
    slug: str
    singular: str
    plural: str
    kind: str
    created_at: datetime
    attributes: tuple[AttributeRow, ...]


@dataclass(slots=True)
class RecordRow:
    id: UUID
    seq: int
    object: str
    label: str
    values: dict[str, Any]
    visibility: str
    owner_member_id: UUID | None
    created_at: datetime
    updated_at: datetime
    # (attribute, record) pairs of readable relations; None when they were not fetched.
    relations: list[tuple[str, RelatedRow]] | None = None

    @property
    def id_hex(self) -> str:  # as global ids spell it
        return self.id.hex


class RelatedRow:
    """A record a page's record points to, as the page's JSON gave it: each column is
    converted when it is read (a page reads a few of them, of one relation of each record),
    with the values a ``RecordRow`` of the same record holds. Its own relations are not
    fetched (None): they are loaded when asked for."""

    __slots__ = ("item",)

    relations: None = None

    def __init__(self, item: Mapping[str, Any]) -> None:
        self.item = item

    def __eq__(self, other: object) -> bool:
        # Two are equal when the page gave the same record in the same state.
        return isinstance(other, RelatedRow) and self.item == other.item

    __hash__ = None  # type: ignore[assignment]  # mutable content: unhashable, like a dict

    def __repr__(self) -> str:
        return f"RelatedRow({dict(self.item)!r})"

    @property
    def id(self) -> UUID:
        return UUID(self.item["id"])

    @property
    def id_hex(self) -> str:
        return hex_of(self.item["id"])

    @property
    def seq(self) -> int:
        seq: int = self.item["seq"]
        return seq

    @property
    def object(self) -> str:
        slug: str = self.item["object"]
        return slug

    @property
    def label(self) -> str:
        label: str = self.item["label"]
        return label

    @property
    def values(self) -> dict[str, Any]:
        values: dict[str, Any] = self.item["values"]
        return values

    @property
    def visibility(self) -> str:
        visibility: str = self.item["visibility"]
        return visibility

    @property
    def owner_member_id(self) -> UUID | None:
        owner = self.item["owner_member_id"]
        return UUID(owner) if owner else None

    @property
    def created_at(self) -> datetime:
        return datetime.fromisoformat(self.item["created_at"])

    @property
    def updated_at(self) -> datetime:
        return datetime.fromisoformat(self.item["updated_at"])


@dataclass(frozen=True, slots=True)
class ChangeRow:
    record_id: UUID
    id: int
    changed_at: datetime
    actor_kind: str
    actor_id: UUID | None
    actor_name: str
    operation: str
    fields: list[str]


@dataclass(frozen=True, slots=True)
class TargetRow:
    """A record named by a write, with what the write needs to know about it."""

    id: UUID
    object: str
    external_id: str | None
    label: str
    values: dict[str, Any]
    visibility: str
    owner_member_id: UUID | None
    object_id: UUID
    readable: bool
    links: dict[str, str]
    shared_with: list[UUID]


def _record(row: asyncpg.Record) -> RecordRow:
    # Named one by one: a dict of columns spread into the constructor costs 1.4 µs more a row,
    # on every record of every page.
    return RecordRow(
        id=row["id"],
        seq=row["seq"],
        object=row["object"],
        label=row["label"],
        values=row["values"],
        visibility=row["visibility"],
        owner_member_id=row["owner_member_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        relations=[(item["attribute"], RelatedRow(item)) for item in row["relations"]],
    )


async def objects(conn: asyncpg.Connection) -> list[ObjectRow]:
    """Every object of the workspace with its attributes."""
    return [
        ObjectRow(
            id=row["id"],
            slug=row["slug"],
            singular=row["singular"],
            plural=row["plural"],
            kind=row["kind"],
            created_at=row["created_at"],
            attributes=tuple(AttributeRow(**a) for a in row["attributes"]),
        )
        for row in await conn.fetch(Q["objects"])
    ]


async def insert_object(
    conn: asyncpg.Connection, object_id: UUID, slug: str, singular: str, plural: str, kind: str
) -> None:
    """Create an object."""
    await conn.execute(Q["insert_object"], object_id, slug, singular, plural, kind)


async def insert_attribute(
    conn: asyncpg.Connection,
    object_id: UUID,
    slug: str,
    title: str,
    type_: str,
    *,
    target: str | None = None,
    principal_rank: int | None = None,
    position: int = 0,
) -> None:
    """Add an attribute; a relation's ``target`` is an object slug."""
    await conn.execute(
        Q["insert_attribute"], object_id, slug, title, type_, target, principal_rank, position
    )


async def records_page(
    conn: asyncpg.Connection,
    object_slug: str,
    readable: Sequence[UUID],
    person: UUID | None,
    *,
    after: UUID | None,
    after_created_at: datetime | None = None,
    limit: int,
    label_contains: str | None = None,
    values_contain: dict[str, Any] | None = None,
    related_to: UUID | None = None,
) -> list[RecordRow]:
    """Readable records of one object in creation order, after the record ``after`` created at
    ``after_created_at`` (from the start when None), with their readable relations."""
    if label_contains is None and values_contain is None and related_to is None:
        rows = await conn.fetch(
            Q["records_page_plain"], object_slug, readable, person, after, limit, after_created_at
        )
        return [_record(row) for row in rows]
    rows = await conn.fetch(
        Q["records_page"],
        object_slug,
        readable,
        person,
        after,
        limit,
        label_contains,
        values_contain,
        related_to,
        after_created_at,
    )
    return [_record(row) for row in rows]


async def records_by_ids(
    conn: asyncpg.Connection, ids: Sequence[UUID], readable: Sequence[UUID], person: UUID | None
) -> list[RecordRow]:
    """Readable records among ``ids``, with their readable relations."""
    return [_record(row) for row in await conn.fetch(Q["records_by_ids"], ids, readable, person)]


def _change(row: asyncpg.Record) -> ChangeRow:
    return ChangeRow(**dict(row))


async def last_changes_by_records(conn: asyncpg.Connection, ids: Sequence[UUID]) -> list[ChangeRow]:
    """The latest change of each record in ``ids`` that has one."""
    return [_change(row) for row in await conn.fetch(Q["last_changes_by_records"], ids)]


async def changes_by_records(
    conn: asyncpg.Connection, record_ids: Sequence[UUID], limit: int
) -> list[ChangeRow]:
    """The change logs of several records, newest first, at most ``limit`` entries each."""
    rows = await conn.fetch(Q["changes_by_records"], list(record_ids), limit)
    return [_change(row) for row in rows]


async def record_targets(
    conn: asyncpg.Connection,
    ids: Sequence[UUID],
    external_refs: Sequence[tuple[str, str]],
    readable: Sequence[UUID],
    person: UUID | None,
) -> list[TargetRow]:
    """Records named by id or by (object slug, external id), whether readable or not."""
    rows = await conn.fetch(
        Q["record_targets"],
        ids,
        [slug for slug, _ in external_refs],
        [external for _, external in external_refs],
        readable,
        person,
    )
    return [TargetRow(**dict(row)) for row in rows]


async def insert_record(
    conn: asyncpg.Connection,
    record_id: UUID,
    object_id: UUID,
    external_id: str | None,
    label: str,
    values: dict[str, Any],
    visibility: str,
    owner_member_id: UUID | None,
) -> bool:
    """Create a record; False (nothing written) when its object already holds a record with
    this external id, once any concurrent writer of it has committed."""
    created = await conn.fetchval(
        Q["insert_record"],
        record_id,
        object_id,
        external_id,
        label,
        values,
        visibility,
        owner_member_id,
    )
    return created is not None


async def update_record(
    conn: asyncpg.Connection,
    record_id: UUID,
    label: str,
    values: dict[str, Any],
    visibility: str,
    owner_member_id: UUID | None,
) -> None:
    """Replace a record's label, values, visibility and owner."""
    await conn.execute(Q["update_record"], record_id, label, values, visibility, owner_member_id)


async def upsert_link(
    conn: asyncpg.Connection, record_id: UUID, attribute: str, target_id: UUID
) -> None:
    """Point a record's relation at a record."""
    await conn.execute(Q["upsert_link"], record_id, attribute, target_id)


async def delete_link(conn: asyncpg.Connection, record_id: UUID, attribute: str) -> None:
    """Clear a record's relation."""
    await conn.execute(Q["delete_link"], record_id, attribute)


async def replace_shares(
    conn: asyncpg.Connection, record_id: UUID, member_ids: Sequence[UUID]
) -> None:
    """Share a record with exactly ``member_ids``."""
    await conn.execute(Q["replace_shares"], record_id, list(member_ids))


async def insert_change(
    conn: asyncpg.Connection,
    record_id: UUID,
    actor_kind: str,
    actor_id: UUID | None,
    actor_name: str,
    operation: str,
    fields: Sequence[str],
) -> None:
    """Append to a record's change log."""
    await conn.execute(
        Q["insert_change"], record_id, actor_kind, actor_id, actor_name, operation, list(fields)
    )


# Records as memory needs them: which a caller reads, which may carry a page, the trash.


async def readable_records(
    conn: asyncpg.Connection, ids: Sequence[UUID], readable: Sequence[UUID], person: UUID | None
) -> dict[UUID, str]:
    """The labels of those of ``ids`` the caller may read."""
    rows = await conn.fetch(Q["readable_records"], list(ids), readable, person)
    return {row["id"]: row["label"] for row in rows}


async def set_record_trashed(
    conn: asyncpg.Connection, record_id: UUID, at: datetime | None
) -> bool:
    """Move a record to the trash (``at``) or out of it (None); whether it exists."""
    found = await conn.fetchval(Q["set_record_trashed"], record_id, at)
    return found is not None


async def carries_pages(conn: asyncpg.Connection, record_id: UUID) -> bool | None:
    """Whether a record's object may carry pages; None when there is no such record."""
    found: bool | None = await conn.fetchval(Q["carries_pages"], record_id)
    return found


# Objects and sharing, asked by skills and memory ---------------------------------------------


async def object_id(conn: asyncpg.Connection, slug: str) -> UUID | None:
    """The id of the object ``slug``."""
    value: UUID | None = await conn.fetchval(Q["object_id"], slug)
    return value


async def record_shared_with(conn: asyncpg.Connection, record_id: UUID) -> list[UUID]:
    """The members a record is shared with."""
    value: list[UUID] | None = await conn.fetchval(Q["record_shared_with"], record_id)
    return value or []
