"""Small async helpers that build test data through db/ and resolvers/."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid4

import asyncpg
import httpx
import orjson

from db import identity, records
from db.pool import SerialConnection, api_dsn, begin_workspace, init_connection, keep_session
from gateway.demo import CRM_OBJECTS
from resolvers.common import ids
from resolvers.common.principals import issue_token, principal_for_token
from resolvers.memory import system
from resolvers.records.workspaces import create_object, create_workspace, grant_standard_roles
from resolvers.records.write import write_records


@dataclass
class Workspace:
    """A test workspace: its ids and a token for every principal kind and role."""

    id: UUID
    name: str
    roles: dict[str, UUID]
    objects: dict[str, UUID]
    members: dict[str, UUID]
    tokens: dict[str, str] = field(default_factory=dict)

    def gid(self, local: UUID, type_name: str = "Record") -> str:
        return ids.encode(type_name, self.id, local)


async def make_workspace(pool: asyncpg.Pool, name: str = "Test") -> Workspace:
    """A workspace with CRM objects, one member per standard role plus `other` (a member),
    an agent acting for `member`, an API key with the `integration` role (companies only:
    read, create, update) and an MCP client for `member`; a token for each."""
    async with pool.acquire() as conn, conn.transaction():
        new = await create_workspace(conn, name)
        objects = dict(new.objects)
        for slug, singular, plural, attributes in CRM_OBJECTS:
            objects[slug] = await create_object(conn, slug, singular, plural, attributes)
            await grant_standard_roles(conn, new.roles, objects[slug])
        roles = dict(new.roles)
        roles["integration"] = await identity.insert_role(conn, uuid4(), "integration")
        await identity.upsert_role_permission(
            conn,
            roles["integration"],
            objects["companies"],
            read=True,
            create=True,
            update=True,
            delete=False,
        )
        members: dict[str, UUID] = {}
        for who, role in (
            ("admin", "admin"),
            ("member", "member"),
            ("viewer", "viewer"),
            ("other", "member"),
        ):
            row = await identity.insert_member(
                conn, uuid4(), who.title(), f"{who}@{name.lower()}.example", roles[role]
            )
            members[who] = row.id
        ws = Workspace(new.workspace_id, name, roles, objects, members)
        for who, member_id in members.items():
            ws.tokens[who] = await issue_token(conn, "member", member_id=member_id, purpose="test")
        agent = await identity.insert_actor(conn, "agent", uuid4(), "Scout", members["admin"])
        ws.tokens["agent"] = await issue_token(
            conn, "agent", member_id=members["member"], agent_id=agent.id, purpose="test"
        )
        key = await identity.insert_actor(conn, "api_key", uuid4(), "sync", roles["integration"])
        ws.tokens["api_key"] = await issue_token(conn, "api_key", api_key_id=key.id, purpose="test")
        client = await identity.insert_actor(
            conn, "mcp_client", uuid4(), "Desktop", members["member"]
        )
        ws.tokens["mcp_client"] = await issue_token(
            conn, "mcp_client", member_id=members["member"], mcp_client_id=client.id, purpose="test"
        )
    return ws


async def load_records(pool: asyncpg.Pool, token: str, lines: list[dict[str, Any]]) -> list[str]:
    """Write records as the token's principal; return their global ids in line order."""
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, token)
        assert principal is not None
        results = await write_records(conn, principal, lines)
    return [r.id for r in results]


async def company(pool: asyncpg.Pool, ws: Workspace, label: str = "Acme", **values: Any) -> str:
    """A workspace company made by the admin; its global id."""
    line: dict[str, Any] = {"object": "companies", "label": label}
    if values:
        line["values"] = values
    [made] = await load_records(pool, ws.tokens["admin"], [line])
    return made


async def private_deal(
    pool: asyncpg.Pool, ws: Workspace, owner: str, label: str, **more: Any
) -> str:
    """A deal private to ``owner``, shared with nobody; its global id."""
    line = {"object": "deals", "label": label, "visibility": "private", **more}
    [made] = await load_records(pool, ws.tokens[owner], [line])
    return made


async def agent_id(pool: asyncpg.Pool, ws: Workspace, name: str = "Scout") -> UUID:
    """The local id of the workspace's agent called ``name``."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        found = await identity.agent_by_name(conn, name)
    assert found is not None
    return found.id


async def object_rows(pool: asyncpg.Pool, token: str) -> list[records.ObjectRow]:
    async with pool.acquire() as conn, conn.transaction():
        assert await principal_for_token(conn, token) is not None
        return await records.objects(conn)


async def gql(
    client: httpx.AsyncClient,
    token: str | None,
    query: str,
    variables: dict[str, Any] | None = None,
    **headers: str,
) -> httpx.Response:
    """POST a GraphQL operation the way a frontend does."""
    sent = {"content-type": "application/json", **headers}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    body: dict[str, Any] = {"query": query}
    if variables is not None:
        body["variables"] = variables
    return await client.post("/graphql", json=body, headers=sent)


def codes(response: httpx.Response) -> list[str]:
    """The extensions.code of every error in a GraphQL response."""
    return [e["extensions"]["code"] for e in response.json().get("errors", [])]


def data(response: httpx.Response, field: str | None = None) -> Any:
    """A GraphQL response's data (or one root field of it), asserting it has no error."""
    body = response.json()
    assert "errors" not in body, body
    return body["data"] if field is None else body["data"][field]


def problems(response: httpx.Response) -> list[dict[str, Any]]:
    """The problems listed by a GraphQL response's single SCHEMA_VALIDATION_FAILED error."""
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"], response.json()
    found: list[dict[str, Any]] = response.json()["errors"][0]["extensions"].get("problems", [])
    return found


def bearer(token: str, **headers: str) -> dict[str, str]:
    """Request headers carrying ``token``, and any others given."""
    return {"authorization": f"Bearer {token}", **headers}


def local(ws: Workspace, gid: str, type_name: str = "Record") -> UUID:
    """The local id behind a global id of ``ws``."""
    return ids.decode(gid, type_name, ws.id)


async def post_records(
    client: httpx.AsyncClient,
    token: str | None,
    body: Any,
    content_type: str | None = "application/json",
    **headers: str,
) -> httpx.Response:
    """POST ``body`` to /v1/records: bytes or text as they are, anything else as JSON (a list
    of lines, or {"records": [...]})."""
    sent = {"content-type": content_type} if content_type is not None else {}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    sent.update(headers)
    content = body if isinstance(body, bytes | str) else orjson.dumps(body)
    return await client.post("/v1/records", content=content, headers=sent)


async def write_lines(
    client: httpx.AsyncClient, token: str, lines: list[dict[str, Any]]
) -> dict[str, Any]:
    """POST record lines as the token, which must succeed; the answer's JSON."""
    response = await post_records(client, token, {"records": lines})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def make_page(
    pool: asyncpg.Pool,
    ws: Workspace,
    about_kind: str,
    about_id: UUID | None,
    content: str,
    name: str = "Page",
    description: str = "",
) -> str:
    """A memory page written by the workspace (as the Dreamer will); its global id."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        page_id = await system.create_page(
            conn, ws.id, about_kind, about_id, name=name, description=description, content=content
        )
    return ws.gid(page_id, "MemoryPage")


async def write_page(pool: asyncpg.Pool, ws: Workspace, page_gid: str, content: str) -> None:
    """The workspace rewrites a page (stored form: sources as record:<id>)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        page_id = ids.decode(page_gid, "MemoryPage", ws.id)
        await system.write_page(conn, ws.id, page_id, content)


# Statements a request sends (with the ``counted`` client of conftest.py).
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def split(statements: list[str]) -> tuple[list[str], list[str]]:
    """Logged statements as (transaction control, the rest)."""
    control = [s for s in statements if s.strip().upper().startswith(TRANSACTION_CONTROL)]
    data = [s for s in statements if s not in control]
    return control, data


async def logging_pool(dsn: str) -> tuple[asyncpg.Pool, list[str]]:
    """A pool as the service runs it (its login role, one connection) and the list of every
    statement that connection sends; the caller closes the pool."""
    statements: list[str] = []

    async def init(conn: asyncpg.Connection) -> None:
        await init_connection(conn)
        conn.add_query_logger(lambda record: statements.append(record.query))

    pool = await asyncpg.create_pool(
        api_dsn(dsn),
        min_size=1,
        max_size=1,
        init=init,
        connection_class=SerialConnection,
        reset=keep_session,
    )
    return pool, statements
