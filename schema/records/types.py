"""Objects, attributes, records, their relations and change log, and record connections."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from enum import Enum
from uuid import UUID

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from db.records import ChangeRow, RecordRow, RelatedRow
from resolvers.common import ids
from resolvers.records import read
from resolvers.records.objects import ObjectView
from schema.context import Context
from schema.identity.types import Member


@strawberry.enum
class Visibility(Enum):
    WORKSPACE = "workspace"
    PRIVATE = "private"


# By stored value: a dict lookup, cheaper than Visibility(value) for every record of a page.
VISIBILITIES = {v.value: v for v in Visibility}


@strawberry.enum
class ObjectKind(Enum):
    CUSTOM = "custom"
    SKILL = "skill"
    MEMORY = "memory"
    DOCUMENT = "document"
    MEMORY_STORE = "memory_store"


@strawberry.type
class Attribute:
    slug: str
    title: str
    type: str
    target: str | None = strawberry.field(description="A relation's target object slug.")
    principal_rank: int | None = strawberry.field(
        description="Position among a card's principal values; null when not principal."
    )


@strawberry.type
class ObjectPermissions:
    read: bool
    create: bool
    update: bool
    delete: bool


@strawberry.type(name="Object")
class RecordObject:
    slug: str
    singular: str
    plural: str
    kind: ObjectKind
    satellite: bool = strawberry.field(
        description="Points to another object by a single relation, and nothing points to it."
    )
    attributes: list[Attribute]
    permissions: ObjectPermissions = strawberry.field(
        description="What the caller's role may do with this object's records."
    )

    @classmethod
    def from_row(cls, view: ObjectView) -> RecordObject:
        row = view.row
        return cls(
            slug=row.slug,
            singular=row.singular,
            plural=row.plural,
            kind=ObjectKind(row.kind),
            satellite=view.satellite,
            attributes=[
                Attribute(
                    slug=a.slug,
                    title=a.title,
                    type=a.type,
                    target=a.target,
                    principal_rank=a.principal_rank,
                )
                for a in row.attributes
            ],
            permissions=ObjectPermissions(
                read=view.can_read,
                create=view.can_create,
                update=view.can_update,
                delete=view.can_delete,
            ),
        )


@strawberry.type
class RecordChange:
    at: datetime
    actor_kind: str
    actor_name: str
    operation: str
    fields: list[str]

    @classmethod
    def from_row(cls, row: ChangeRow) -> RecordChange:
        return cls(
            at=row.changed_at,
            actor_kind=row.actor_kind,
            actor_name=row.actor_name,
            operation=row.operation,
            fields=row.fields,
        )


@strawberry.type
class RecordRelation:
    attribute: str
    record: Record


# A record's row: read with the record (a page, a lookup), or reached through a relation.
Row = RecordRow | RelatedRow


@strawberry.type
class Record:
    """Each field reads the row when it is asked for: a page reads a few fields of each record
    and of the record each one points to (the other columns are never converted)."""

    row: strawberry.Private[Row]
    workspace_id: strawberry.Private[UUID]
    # Loads a record with its relations, for records reached through a relation.
    load: strawberry.Private[Callable[[UUID], Awaitable[RecordRow | None]]]

    @strawberry.field
    def id(self) -> strawberry.ID:
        return strawberry.ID(ids.encode_hex("Record", self.workspace_id, self.row.id_hex))

    @strawberry.field(description="The slug of the record's object.")
    def object(self) -> str:
        return self.row.object

    @strawberry.field
    def label(self) -> str:
        return self.row.label

    @strawberry.field(description="Attribute slug to value; relations are under `relations`.")
    def values(self) -> JSON:
        return JSON(self.row.values)

    @strawberry.field
    def visibility(self) -> Visibility:
        return VISIBILITIES[self.row.visibility]

    @strawberry.field
    def created_at(self) -> datetime:
        return self.row.created_at

    @strawberry.field
    def updated_at(self) -> datetime:
        return self.row.updated_at

    @classmethod
    def from_row(
        cls,
        row: Row,
        workspace_id: UUID,
        load: Callable[[UUID], Awaitable[RecordRow | None]],
    ) -> Record:
        return cls(row=row, workspace_id=workspace_id, load=load)

    async def _full_relations(self) -> list[tuple[str, RelatedRow]]:
        full = await self.load(self.row.id)
        return (full.relations or []) if full else []

    async def _relations_later(self) -> list[RecordRelation]:
        return [
            RecordRelation(attribute=a, record=self._child(r))
            for a, r in await self._full_relations()
        ]

    async def _relation_later(self, attribute: str) -> Record | None:
        return next(
            (self._child(r) for a, r in await self._full_relations() if a == attribute), None
        )

    def _child(self, row: RelatedRow) -> Record:
        return Record(row=row, workspace_id=self.workspace_id, load=self.load)

    @strawberry.field(description="Single relations to records the caller may read.")
    def relations(self) -> list[RecordRelation]:
        # Synchronous when the relations came with the record (a page, a lookup); a record
        # reached through a relation loads its own, batched.
        if self.row.relations is not None:
            return [
                RecordRelation(attribute=a, record=self._child(r)) for a, r in self.row.relations
            ]
        return self._relations_later()  # type: ignore[return-value]

    @strawberry.field(description="The record one relation points to, if the caller may read it.")
    def relation(self, attribute: str) -> Record | None:
        relations = self.row.relations
        if relations is None:
            return self._relation_later(attribute)  # type: ignore[return-value]
        for name, row in relations:  # a loop: every record of a page asks for one
            if name == attribute:
                return Record(row=row, workspace_id=self.workspace_id, load=self.load)
        return None

    @strawberry.field(description="The member who owns a private record.")
    async def owner(self, info: Info[Context, None]) -> Member | None:
        if self.row.owner_member_id is None:
            return None
        row = await info.context.loaders.members_by_ids.load(self.row.owner_member_id)
        return Member.from_row(row, self.workspace_id) if row else None

    @strawberry.field(description="Who changed the record last, when, and which fields.")
    async def last_change(self, info: Info[Context, None]) -> RecordChange | None:
        row = await info.context.loaders.last_changes_by_records.load(self.row.id)
        return RecordChange.from_row(row) if row else None

    @strawberry.field(description="The change log, newest first.")
    async def changes(self, info: Info[Context, None], first: int = 10) -> list[RecordChange]:
        size = read.check_changes_size(first)
        rows = await info.context.loaders.changes_by_records.load((self.row.id, size))
        return [RecordChange.from_row(row) for row in rows]


@strawberry.type
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None


@strawberry.type
class RecordEdge:
    cursor: str
    node: Record


@strawberry.type
class RecordConnection:
    edges: list[RecordEdge]
    page_info: PageInfo

    @strawberry.field
    def nodes(self) -> list[Record]:
        return [edge.node for edge in self.edges]


@strawberry.input
class ValueEquals:
    attribute: str
    equals: JSON


@strawberry.input
class RecordFilter:
    label_contains: str | None = None
    values: list[ValueEquals] | None = strawberry.field(
        default=None, description="Every listed attribute equals its value."
    )
    related_to: strawberry.ID | None = strawberry.field(
        default=None, description="Records whose relations point to this record."
    )


def record(row: RecordRow, info: Info[Context, None]) -> Record:
    """The GraphQL record for a row read as the request's caller."""
    context = info.context
    return Record.from_row(row, context.principal.workspace_id, context.loaders.records_by_ids.load)


def connection(
    rows: list[RecordRow], has_next: bool, has_previous: bool, info: Info[Context, None]
) -> RecordConnection:
    context = info.context
    workspace_id, load = context.principal.workspace_id, context.loaders.records_by_ids.load
    edges = [
        RecordEdge(
            cursor=ids.encode_cursor(r.id, r.created_at),
            node=Record(row=r, workspace_id=workspace_id, load=load),
        )
        for r in rows
    ]
    return RecordConnection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=has_next,
            has_previous_page=has_previous,
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
        ),
    )
