"""Objects and the relation graph: which objects are satellites."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import asyncpg

from db import records
from db.records import ObjectRow
from resolvers.common.principals import Principal

NATIVE_KINDS = ("skill", "memory", "document", "memory_store")
# The framework's documents: native objects that, like satellites, carry no memory page.
DOCUMENT_OBJECTS = ("meeting", "mail", "drive", "artifact")


@dataclass(frozen=True, slots=True)
class ObjectView:
    """An object as one caller sees it."""

    row: ObjectRow
    satellite: bool
    can_read: bool
    can_create: bool
    can_update: bool
    can_delete: bool


def satellites(objects: Iterable[ObjectRow]) -> set[str]:
    """Slugs of objects that point to another object and that nothing points to (DESIGN §2)."""
    objects = list(objects)
    pointed_to = {a.target for o in objects for a in o.attributes if a.type == "relation"}
    return {
        o.slug
        for o in objects
        if o.slug not in pointed_to
        and any(a.type == "relation" and a.target != o.slug for a in o.attributes)
    }


async def readable_objects(conn: asyncpg.Connection, principal: Principal) -> list[ObjectView]:
    """The objects the caller may read, with the caller's rights on each."""
    every = await records.objects(conn)
    satellite = satellites(every)
    return [
        ObjectView(
            row=o,
            satellite=o.slug in satellite,
            can_read=True,
            can_create=principal.may("create", o.id),
            can_update=principal.may("update", o.id),
            can_delete=principal.may("delete", o.id),
        )
        for o in every
        if principal.may("read", o.id)
    ]
