"""What `read` and the skill resources read: memory:<pageId>, skill:<name>,
skill:<name>/<path>, record:<id>, catalog:<source> (what a copy would land) and approval:<id>,
each through the resolver the GraphQL API uses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import asyncpg

from db.skills import FileRow
from gateway.mcp import answers
from gateway.mcp import catalog as mcp_catalog
from resolvers.catalog.settings import CatalogSettings
from resolvers.common import ids
from resolvers.common.errors import Problem, invalid
from resolvers.common.principals import Principal
from resolvers.memory import pages
from resolvers.records import read
from resolvers.skills import reading
from resolvers.skills.reading import Activation

KINDS = ("memory", "skill", "record", "catalog", "approval")


@dataclass(frozen=True, slots=True)
class SkillFile:
    name: str
    file: FileRow
    content: bytes


BAD_REF = (
    "a reference is memory:<pageId>, skill:<name>, skill:<name>/<path>, record:<id>, "
    "catalog:<source> or approval:<id>"
)


def split_ref(ref: str) -> tuple[str, str]:
    """The kind and the rest of a reference; SCHEMA_VALIDATION_FAILED when it names none."""
    kind, colon, rest = ref.partition(":")
    if not colon or kind not in KINDS or not rest:
        raise invalid([Problem(BAD_REF, "ref")])
    return kind, rest


async def read_ref(
    conn: asyncpg.Connection, principal: Principal, catalog: CatalogSettings, ref: str
) -> dict[str, Any]:
    """What a reference names, as the caller may read it; NOT_FOUND otherwise (another
    workspace's ids included)."""
    kind, rest = split_ref(ref)
    if kind == "catalog":
        return await mcp_catalog.read_catalog(conn, principal, catalog, rest)
    if kind == "approval":
        return await mcp_catalog.read_approval(conn, principal, rest)
    workspace = principal.workspace_id
    if kind == "memory":
        page_id = ids.decode(rest, "MemoryPage", workspace, "ref")
        return answers.memory_page(await pages.page(conn, principal, page_id), workspace)
    if kind == "record":
        record_id = ids.decode(rest, "Record", workspace, "ref")
        return answers.record(await read.record(conn, principal, record_id), workspace)
    return await read_skill(conn, principal, rest)


async def skill_ref(
    conn: asyncpg.Connection, principal: Principal, rest: str
) -> Activation | SkillFile:
    """skill:<name> (its activation for a harness) or skill:<name>/<path> (one file)."""
    name, slash, path = rest.partition("/")
    if not slash:
        return await reading.activation(conn, principal, name, None, "harness")
    if not path:
        raise invalid([Problem(BAD_REF, "ref")])
    file, content = await reading.skill_file(conn, principal, name, path, None)
    return SkillFile(name, file, content)


async def read_skill(conn: asyncpg.Connection, principal: Principal, rest: str) -> dict[str, Any]:
    """skill:<name> (body, harness folder, files) or skill:<name>/<path> (one file)."""
    found = await skill_ref(conn, principal, rest)
    if isinstance(found, SkillFile):
        return answers.skill_file(found.name, found.file, found.content)
    return answers.skill(found)
