"""The MCP server (the official SDK's low-level server), shared by both transports.

Every request is one connection and one transaction, opened as a GraphQL request opens its
own: the bearer token resolved (which sets the role and the workspace for row-level
security), the resolver called, the transaction committed. A tool's refusal is a tool result
marked as an error whose text is ``{"code", "message", "problems"}`` with a DESIGN §8 code;
a resource's is a JSON-RPC error carrying the same object as its data. Nothing else (no
trace, no SQL) reaches the client: an unexpected failure is INTERNAL with a request id."""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, cast

import asyncpg
import orjson
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl

from gateway.mcp import answers
from gateway.mcp.refs import SkillFile, skill_ref
from gateway.mcp.tools import BY_NAME, TOOLS, Call, run_tool
from resolvers.catalog.settings import CatalogSettings
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.principals import Principal, principal_for_token
from resolvers.skills import reading
from schema.errors import DB_DOWN

log = logging.getLogger("skillmem.mcp")

SERVER_NAME = "skillmem"
INSTRUCTIONS = (
    "skillmem: the workspace's skills and memory. `search` finds memory pages and skills,"
    " `read` opens what a hit's ref names, `copy` installs a skill from the catalogue (an"
    " agent's copy asks its person first), `recall` gives text ready for a prompt,"
    " `turn_context` the cards of the records a message is about. Memory is never written"
    " directly: propose a learning with `propose_memory`. Skills are also resources"
    " (skill:<name>, skill:<name>/<path>)."
)
# A call waits at most this long for a connection, then answers DB_UNAVAILABLE.
ACQUIRE_TIMEOUT_SECONDS = 5.0
# JSON-RPC error codes of a refused resource request.
RPC_CODES = {
    Code.SCHEMA_VALIDATION_FAILED: types.INVALID_PARAMS,
    Code.NOT_FOUND: -32002,  # the resource was not found (MCP)
}

# Where a request's pool and token come from: the HTTP request, or the stdio process.
Caller = Callable[[Server[Any, Any]], tuple[asyncpg.Pool, str | None]]


@contextlib.asynccontextmanager
async def acting(
    pool: asyncpg.Pool, token: str | None
) -> AsyncIterator[tuple[asyncpg.Connection, Principal]]:
    """One connection in one transaction, as the token's principal; UNAUTHENTICATED when the
    token is missing or not live."""
    async with pool.acquire(timeout=ACQUIRE_TIMEOUT_SECONDS) as proxy, proxy.transaction():
        conn = cast(asyncpg.Connection, proxy)
        principal = await principal_for_token(conn, token) if token else None
        if principal is None:
            raise DomainError(Code.UNAUTHENTICATED, "The token is not valid.")
        yield conn, principal


def expected(error: Exception) -> DomainError:
    """An exception as the client hears it: a DomainError as it is, the database down as
    DB_UNAVAILABLE, anything else as INTERNAL with the request id its log line names."""
    if isinstance(error, DomainError):
        return error
    if isinstance(error, DB_DOWN):
        log.warning("mcp: database unavailable: %r", error)
        return DomainError(Code.DB_UNAVAILABLE, "The database is unavailable.")
    request_id = uuid.uuid4().hex
    log.error("mcp request %s failed", request_id, exc_info=error)
    return DomainError(Code.INTERNAL, f"Internal error (request {request_id}).")


def tool_error(error: DomainError) -> types.CallToolResult:
    body = answers.error(error)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=orjson.dumps(body).decode())],
        structuredContent={"error": body},
        isError=True,
    )


def rpc_error(error: DomainError) -> McpError:
    code = RPC_CODES.get(error.code, types.INTERNAL_ERROR)
    message = f"{error.code.value}: {error.message}"
    return McpError(types.ErrorData(code=code, message=message, data=answers.error(error)))


def tool_listing() -> list[types.Tool]:
    return [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description,
            inputSchema=tool.input_schema,
            annotations=types.ToolAnnotations(
                readOnlyHint=tool.read_only, destructiveHint=tool.name == "trash_record"
            ),
        )
        for tool in TOOLS
    ]


def build_server(caller: Caller, catalog: CatalogSettings) -> Server[Any, Any]:
    """The server: the tools, and the skills as resources, each request as ``caller``'s
    token; the catalogue's sources reached with ``catalog``."""
    server: Server[Any, Any] = Server(SERVER_NAME, instructions=INSTRUCTIONS)

    @server.list_tools()  # type: ignore[untyped-decorator, no-untyped-call]
    async def list_tools() -> list[types.Tool]:
        return tool_listing()

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        tool = BY_NAME.get(name)
        if tool is None:
            return tool_error(invalid([Problem(f"no tool named {name!r}", "name")]))
        try:
            async with acting(*caller(server)) as (conn, principal):
                answer = await run_tool(Call(conn, principal, catalog), tool, arguments)
        except Exception as error:
            return tool_error(expected(error))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=orjson.dumps(answer).decode())],
            structuredContent=answer,
        )

    @server.list_resources()  # type: ignore[untyped-decorator, no-untyped-call]
    async def list_resources() -> list[types.Resource]:
        try:
            return await skill_resources(caller(server))
        except Exception as error:
            raise rpc_error(expected(error)) from None

    @server.list_resource_templates()  # type: ignore[untyped-decorator, no-untyped-call]
    async def list_templates() -> list[types.ResourceTemplate]:
        return RESOURCE_TEMPLATES

    @server.read_resource()  # type: ignore[untyped-decorator, no-untyped-call]
    async def read_resource(uri: AnyUrl) -> Iterable[ReadResourceContents]:
        try:
            return await skill_contents(caller(server), str(uri))
        except Exception as error:
            raise rpc_error(expected(error)) from None

    return server


RESOURCE_TEMPLATES = [
    types.ResourceTemplate(
        uriTemplate="skill:{name}",
        name="skill",
        description="A skill's SKILL.md body.",
        mimeType="text/markdown",
    ),
    types.ResourceTemplate(
        uriTemplate="skill:{name}/{path}", name="skill-file", description="One file of a skill."
    ),
]


async def skill_resources(where: tuple[asyncpg.Pool, str | None]) -> list[types.Resource]:
    """The skills a model's prompt lists (disabled ones left out), as resources."""
    async with acting(*where) as (conn, principal):
        entries = await reading.catalog(conn, principal)
    return [
        types.Resource(
            uri=AnyUrl(f"skill:{entry.name}"),
            name=entry.name,
            description=entry.description,
            mimeType="text/markdown",
        )
        for entry in entries
    ]


async def skill_contents(
    where: tuple[asyncpg.Pool, str | None], uri: str
) -> list[ReadResourceContents]:
    """A skill resource: skill:<name> as its body (markdown), skill:<name>/<path> as the
    file's text (UTF-8) or bytes."""
    kind, colon, rest = uri.partition(":")
    if kind != "skill" or not colon or not rest:
        raise invalid([Problem("a resource is skill:<name> or skill:<name>/<path>", "uri")])
    async with acting(*where) as (conn, principal):
        found = await skill_ref(conn, principal, rest)
    if not isinstance(found, SkillFile):
        return [ReadResourceContents(found.body, "text/markdown")]
    try:
        return [ReadResourceContents(found.content.decode("utf-8"), "text/plain")]
    except UnicodeDecodeError:
        return [ReadResourceContents(found.content, "application/octet-stream")]
