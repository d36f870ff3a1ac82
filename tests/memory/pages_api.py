"""Helpers of the memory page tests: the GraphQL documents of a page, souvenir lines in the
grammar, records to hang pages on, reading and editing a page as a client."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import pytest

from db import identity
from db.pool import begin_workspace
from resolvers.common import ids
from resolvers.common.errors import DomainError
from tests.factories import gql, load_records

TODAY = "2026-12-15"
NOW = datetime(2026, 12, 15, 9, 30, tzinfo=UTC)

PAGE_FIELDS = """
  id kind aboutId name description content contentSha256 version trashed canEdit
  linesOnlyDeletable mission
  souvenirs { key line text type source sourceRecordId author day human aboutRecordId }
"""
PAGE = f"query($id: ID!) {{ memoryPage(id: $id) {{ {PAGE_FIELDS} }} }}"
BY_RECORD = f"query($id: ID!) {{ memoryPageByRecord(recordId: $id) {{ {PAGE_FIELDS} }} }}"
PROFILE = f"""query($kind: MemoryPageKind!, $id: ID) {{
  memoryProfile(kind: $kind, id: $id) {{ {PAGE_FIELDS} }} }}"""
EDIT = f"""mutation($id: ID!, $content: String!) {{
  editMemoryPage(pageId: $id, content: $content) {{ {PAGE_FIELDS} }} }}"""
DELETE = f"""mutation($id: ID!, $key: String!) {{
  deleteSouvenir(pageId: $id, key: $key) {{ {PAGE_FIELDS} }} }}"""
RESTORE = f"""mutation($id: ID!) {{ restoreMemoryPage(pageId: $id) {{ {PAGE_FIELDS} }} }}"""
MISSION = "{ memoryMission }"


def line(
    text: str,
    type_: str = "relation",
    *,
    author: str = "Claire",
    day: str = "2026-10-02",
    source: str | None = None,
    human: bool = False,
) -> str:
    """A souvenir's line in the grammar (no contexte: it would need its review date)."""
    arrow = f" → {source}" if source else ""
    return f"- {text}{arrow} — {author}, {day} [{type_}]" + (" ✍" if human else "")


def lines(count: int, prefix: str = "Fact", **kwargs: Any) -> list[str]:
    return [line(f"{prefix} {n}", **kwargs) for n in range(count)]


def sized(total: int, *, head: list[str] | None = None, tail: str) -> str:
    """Content of exactly ``total`` characters: the ``head`` lines, then one line of the form
    ``- yyy…<tail>`` padded to fill."""
    head = head or []
    fixed = sum(len(h) + 1 for h in head) + len("- ") + len(tail)
    room = total - fixed
    assert room >= 1
    content = "\n".join([*head, "- " + "y" * room + tail])
    assert len(content) == total
    return content


def many_sized(total: int, count: int = 10) -> str:
    """Dreamer content of exactly ``total`` characters over ``count`` souvenirs."""
    tail = " — Claire, 2026-10-02 [relation]"
    room = total - count * (2 + len(tail)) - (count - 1)
    sizes = [room // count] * count
    sizes[0] += room % count
    content = "\n".join(f"- {chr(97 + i)}{'x' * (n - 1)}{tail}" for i, n in enumerate(sizes))
    assert len(content) == total
    return content


async def record(
    pool, ws, label: str = "Acme", obj: str = "companies", **extra
) -> tuple[str, UUID]:
    """A record written by `member`: its global and local ids."""
    [gid] = await load_records(
        pool, ws.tokens["member"], [{"object": obj, "label": label, **extra}]
    )
    return gid, ids.decode(gid, "Record", ws.id)


async def agent_id(pool, ws) -> UUID:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        found = await identity.agent_by_name(conn, "Scout")
    assert found is not None
    return found.id


def data(response) -> dict[str, Any]:
    body = response.json()
    assert body.get("errors") is None, body
    return body["data"]


def problems(response) -> list[dict[str, Any]]:
    [error] = response.json()["errors"]
    return error["extensions"].get("problems", [])


async def read(client, ws, page_gid: str, who: str = "member") -> dict[str, Any]:
    return data(await gql(client, ws.tokens[who], PAGE, {"id": page_gid}))["memoryPage"]


async def edit(client, ws, page_gid: str, content: str, who: str = "member"):
    return await gql(client, ws.tokens[who], EDIT, {"id": page_gid, "content": content})


def by_hand(text: str, type_: str = "relation") -> str:
    """A ✍ line as `member` writes it on TODAY (only a person writes one)."""
    return line(text, type_, author="Member", day=TODAY, human=True)


async def write_by_hand(client, ws, page_gid: str, content: str) -> None:
    """`member` writes the content (its ✍ lines signed by them, on TODAY)."""
    data(await edit(client, ws, page_gid, content))


async def refused(awaitable) -> DomainError:
    """The DomainError a resolver call answers with."""
    with pytest.raises(DomainError) as caught:
        await awaitable
    return caught.value


async def page_rows(pool, ws, subject_id: UUID) -> list[dict[str, Any]]:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rows = await conn.fetch(
            "SELECT id, version, trashed_at FROM memory_pages WHERE subject_id = $1"
            " ORDER BY created_at",
            subject_id,
        )
    return [dict(row) for row in rows]


def field(response: Any, name: str) -> Any:
    """One field of a GraphQL answer without errors."""
    body = response.json()
    assert "errors" not in body, body
    return body["data"][name]


def when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text is not None else None
