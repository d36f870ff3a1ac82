"""How a skill and each of its versions are written (DESIGN §3): the record, the version's
text, the files it carries over from the previous one and those it adds, and the change log."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from db import records, skills
from db.skills import FileRow, SkillRow
from resolvers.common import clock
from resolvers.common.principals import Principal
from resolvers.skills.guard import SKILL_OBJECT

EXECUTABLE, REGULAR = 0o755, 0o644
# Who wrote a version: a kind (a principal's, or 'system'), an id and a name.
Author = tuple[str, UUID | None, str]


@dataclass(frozen=True, slots=True)
class NewFile:
    """A file to store in a skill's drive."""

    path: str
    content: bytes
    mode: int = REGULAR

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A skill's next version: its text, the files it adds, the version it follows (None for
    the first) and the paths of that version it leaves out; ``blobs_stored`` when the caller
    stored the files' contents already."""

    skill_id: UUID
    number: int
    description: str
    body: str
    extra: dict[str, Any]
    files: Sequence[NewFile] = ()
    previous: SkillRow | None = None
    drop: Sequence[str] = ()
    blobs_stored: bool = False

    @classmethod
    def after(
        cls,
        previous: SkillRow,
        *,
        description: str | None = None,
        body: str | None = None,
        extra: dict[str, Any] | None = None,
        files: Sequence[NewFile] = (),
        drop: Sequence[str] = (),
        blobs_stored: bool = False,
    ) -> NewVersion:
        """The version after ``previous``'s latest, keeping what is not given."""
        return cls(
            skill_id=previous.id,
            number=previous.latest_version + 1,
            description=previous.description if description is None else description,
            body=previous.content if body is None else body,
            extra=previous.extra_frontmatter if extra is None else extra,
            files=files,
            previous=previous,
            drop=drop,
            blobs_stored=blobs_stored,
        )


def author(by: Principal | Author) -> Author:
    """Who a version is by: a principal's kind, id and name, or the author given (the system's
    automatic polish)."""
    if isinstance(by, tuple):
        return by
    return by.kind, by.row.actor_id, by.row.actor_name


async def insert_skill(
    conn: asyncpg.Connection,
    principal: Principal,
    name: str,
    visibility: str,
    parent: SkillRow | None,
    *,
    source: dict[str, Any] | None,
) -> UUID:
    """The skill's record and skill row; a sub-skill takes its parent's access."""
    object_id = await records.object_id(conn, SKILL_OBJECT)
    assert object_id is not None  # every workspace has the native skill object
    skill_id = uuid4()
    owner = principal.person_id if visibility == "private" else None
    shared: list[UUID] = []
    if parent is not None:
        visibility, owner = parent.visibility, parent.owner_member_id
        shared = await records.record_shared_with(conn, parent.id)
    await records.insert_record(conn, skill_id, object_id, None, name, {}, visibility, owner)
    if shared:
        await records.replace_shares(conn, skill_id, shared)
    await skills.insert_skill(
        conn, skill_id, name, parent.id if parent else None, source, clock.now()
    )
    kind, actor_id, actor_name = author(principal)
    await records.insert_change(
        conn, skill_id, kind, actor_id, actor_name, "create", ["name", "description", "content"]
    )
    return skill_id


async def add_version(
    conn: asyncpg.Connection, principal: Principal | Author, version: NewVersion
) -> None:
    """Write ``version`` by ``principal`` (or an author of the system's): its text, the
    previous version's files but for those dropped and replaced, and its new files (contents
    stored once, each batch in one statement)."""
    number, new_files, previous = version.number, version.files, version.previous
    await skills.insert_version(
        conn,
        version.skill_id,
        number,
        version.description,
        version.body,
        version.extra,
        author(principal),
        clock.now(),
    )
    if previous is not None:
        replaced = [*version.drop, *(f.path for f in new_files)]
        await skills.copy_files(conn, version.skill_id, previous.version, number, replaced)
    if not version.blobs_stored:
        await skills.insert_blobs(conn, {f.sha256: f.content for f in new_files})
    rows = [FileRow(f.path, f.sha256, len(f.content), f.mode) for f in new_files]
    await skills.insert_files(conn, version.skill_id, number, rows)
    if previous is not None:
        kind, actor_id, actor_name = author(principal)
        await records.insert_change(
            conn, version.skill_id, kind, actor_id, actor_name, "update", _changed(version)
        )


def _changed(version: NewVersion) -> list[str]:
    """The fields a version changes from the one it follows."""
    previous = version.previous
    assert previous is not None
    changed = [
        field
        for field, old, new in (
            ("description", previous.description, version.description),
            ("content", previous.content, version.body),
            ("frontmatter", previous.extra_frontmatter, version.extra),
        )
        if old != new
    ]
    if version.files or version.drop:
        changed.append("files")
    return changed
