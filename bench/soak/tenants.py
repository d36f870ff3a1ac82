"""The soak's workspaces: each with the CRM objects, members and tokens of the tests' factory,
a company to turn on, a profile page its member edits, and a marker every write of it carries
(so that any answer to another workspace carrying it is a leak)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import cast
from uuid import UUID

import asyncpg

from db.pool import begin_workspace
from resolvers.common import ids
from resolvers.memory import system
from tests.factories import Workspace, company, make_workspace


@dataclass
class Tenant:
    """One workspace as the traffic sees it."""

    ws: Workspace
    marker: str
    acme: str  # the company's global id
    profile_page: str  # the member's profile page's global id
    store_id: str = ""  # the Anthropic SDK memory store the traffic writes to
    edited_sha: list[str] = field(default_factory=list)

    @property
    def id(self) -> UUID:
        return self.ws.id

    @property
    def token(self) -> str:
        return self.ws.tokens["member"]


async def make_tenant(owner: asyncpg.Pool, name: str) -> Tenant:
    """A workspace ``name`` with its company and its member's profile page."""
    marker = f"soak{uuid.uuid4().hex[:12]}"
    ws = await make_workspace(owner, name)
    acme = await company(owner, ws, "Acme")
    async with owner.acquire() as proxy, proxy.transaction():
        conn = cast(asyncpg.Connection, proxy)
        await begin_workspace(conn, ws.id)
        page = await system.create_page(
            conn,
            ws.id,
            "member",
            ws.members["member"],
            name="Member",
            content=f"- Prefers short answers {marker} — Member, 2026-10-02 [preference]",
        )
    return Tenant(ws, marker, acme, ids.encode("MemoryPage", ws.id, page))
