"""The catalogue over MCP (issue 15, item 7; seed 000): ``read catalog:<source>`` shows what a
copy would land (SKILL.md as plain text, its files, its commit, who will see it), ``copy`` from
``catalog:<source>`` installs it (an agent's copy asks its person: an approval), a search of
the community directory by an agent asks first too, and ``read approval:<id>`` shows where an
approval stands and, once approved, what it did. Each calls the resolver GraphQL calls."""

from __future__ import annotations

import dataclasses
from typing import Any

import asyncpg

from db.catalog_approvals import ApprovalRow
from gateway.mcp.answers import camel
from resolvers.catalog import approvals, install
from resolvers.catalog.preview import Preview, preview
from resolvers.catalog.search import catalog_search
from resolvers.catalog.settings import CatalogSettings
from resolvers.common import ids
from resolvers.common.principals import Principal


def approval(row: ApprovalRow, principal: Principal) -> dict[str, Any]:
    approval_id = ids.encode(approvals.ID_TYPE, principal.workspace_id, row.id)
    return {
        "ref": f"approval:{approval_id}",
        "id": approval_id,
        "kind": row.kind,
        "status": row.status,
        "agentName": row.agent_name,
        "card": row.card,
        "outcome": row.outcome,
        "createdAt": row.created_at.isoformat(),
        "expiresAt": row.expires_at.isoformat(),
        "decidedAt": row.decided_at.isoformat() if row.decided_at else None,
    }


def previewed(found: Preview) -> dict[str, Any]:
    return {
        "ref": f"catalog:{found.source}",
        "source": found.source,
        "shipped": found.shipped,
        "name": found.name,
        "description": found.description,
        "skillMd": found.skill_md,
        "files": [
            {"path": f.path, "size": f.size, "script": f.script is not None, "scriptRule": f.script}
            for f in found.files
        ],
        "visibility": found.visibility,
        "nameTaken": found.name_taken,
        "acceptable": found.acceptable,
        "problems": [p.as_dict() for p in found.problems],
        "repository": found.repository,
        "path": found.path,
        "sourceRef": found.ref,
        "commit": found.commit,
    }


async def read_catalog(
    conn: asyncpg.Connection, principal: Principal, catalog: CatalogSettings, source: str
) -> dict[str, Any]:
    """``catalog:<source>``: the preview, nothing written."""
    return previewed(await preview(conn, principal, catalog, source))


async def read_approval(
    conn: asyncpg.Connection, principal: Principal, approval_id: str
) -> dict[str, Any]:
    """``approval:<id>``: one the caller asked (an agent) or was asked (a person)."""
    return approval(await approvals.approval(conn, principal, approval_id), principal)


async def copy(
    conn: asyncpg.Connection,
    principal: Principal,
    catalog: CatalogSettings,
    source: str,
    commit: str | None,
) -> dict[str, Any]:
    """An agent's copy: an approval for its person; anyone else's: the skill added."""
    if principal.kind == "agent":
        row = await approvals.ask_install(conn, principal, catalog, source, commit)
        return {"approval": approval(row, principal), "skill": None}
    added = await install.install(conn, principal, catalog, source, commit)
    return {"approval": None, "skill": {"name": added.name, "visibility": added.visibility}}


async def community(
    conn: asyncpg.Connection, principal: Principal, catalog: CatalogSettings, query: str
) -> dict[str, Any]:
    """A search of the community directory: an agent's asks its person (the card holds the
    exact texts that would leave); anyone else's runs."""
    if principal.kind == "agent":
        row = await approvals.ask_search(conn, principal, catalog, query)
        return {"approval": approval(row, principal)}
    found = await catalog_search(catalog, principal, query, community=True)
    return {
        "community": {
            "status": found.community_status,
            "sent": found.sent,
            "results": [
                camel(dataclasses.asdict(h)) for h in found.hits if h.origin == "community"
            ],
        }
    }
