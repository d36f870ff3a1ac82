"""`skillmem token create`: a token for a member, an agent, an API key or a new MCP client, in a
workspace named by its name, its id or its GraphQL id (an operator's command, on the database)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated
from uuid import UUID, uuid4

import asyncpg
import typer

from db import identity
from db.pool import begin_workspace
from gateway.cli.common import Failure, WorkspaceOption, database, run, settings
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import issue_token
from resolvers.records.directory import find_workspace

if TYPE_CHECKING:
    from gateway.settings import Settings

group = typer.Typer(help="Tokens (shown once; stored hashed).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="token")


@dataclass(frozen=True, slots=True)
class Who:
    member: str | None = None
    agent: str | None = None
    api_key: str | None = None
    mcp_client: str | None = None
    for_member: str | None = None


@group.command("create")
def create(
    workspace: WorkspaceOption,
    member: Annotated[
        str | None, typer.Option(metavar="EMAIL", help="A token for this member.")
    ] = None,
    agent: Annotated[
        str | None, typer.Option(metavar="NAME", help="A token for this agent (with --for).")
    ] = None,
    api_key: Annotated[
        str | None, typer.Option(metavar="NAME", help="A token for this API key.")
    ] = None,
    mcp_client: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="Creates this MCP client (with --for) and its token."),
    ] = None,
    for_member: Annotated[
        str | None,
        typer.Option("--for", metavar="EMAIL", help="The person an agent or MCP client acts for."),
    ] = None,
) -> None:
    """Issue a token (printed once) for exactly one of --member, --agent, --api-key,
    --mcp-client."""
    who = Who(member, agent, api_key, mcp_client, for_member)
    given = [name for name in (member, agent, api_key, mcp_client) if name is not None]
    if len(given) != 1:
        raise Failure("give exactly one of --member, --agent, --api-key, --mcp-client")
    run(token_create(workspace, who, settings()))


async def _person(conn: asyncpg.Connection, who: Who) -> UUID | None:
    """The member a member, agent or MCP client token acts for (None for an API key)."""
    if not (who.member or who.agent or who.mcp_client):
        return None
    email = who.member or who.for_member
    if not email:
        raise Failure("--agent and --mcp-client need --for EMAIL")
    member = await identity.member_by_email(conn, email)
    if member is None:
        raise Failure(f"no member {email}")
    return member.id


async def _issue(conn: asyncpg.Connection, who: Who, person: UUID | None) -> str:
    if who.member:
        return await issue_token(conn, "member", member_id=person)
    if who.agent:
        agent = await identity.agent_by_name(conn, who.agent)
        if agent is None:
            raise Failure(f"no agent {who.agent}")
        return await issue_token(conn, "agent", member_id=person, agent_id=agent.id)
    if who.api_key:
        key = await identity.api_key_by_name(conn, who.api_key)
        if key is None:
            raise Failure(f"no API key {who.api_key} (`skillmem api-key create` makes one)")
        return await issue_token(conn, "api_key", api_key_id=key.id)
    assert person is not None and who.mcp_client is not None
    client_id = uuid4()
    await identity.insert_actor(conn, "mcp_client", client_id, who.mcp_client, person)
    return await issue_token(conn, "mcp_client", member_id=person, mcp_client_id=client_id)


async def workspace_id(conn: asyncpg.Connection, reference: str) -> UUID:
    """The workspace a name, a UUID or a GraphQL id names: a usage error when none does."""
    try:
        return (await find_workspace(conn, reference)).workspace_id
    except DomainError as error:
        if error.code is Code.NOT_FOUND:
            raise Failure(f"no workspace {reference} (`skillmem workspace list`)") from None
        raise Failure(error.message, details=[p.message for p in error.problems]) from None


async def token_create(reference: str, who: Who, settings: Settings) -> int:
    async with database(settings) as conn, conn.transaction():
        await begin_workspace(conn, await workspace_id(conn, reference))
        token = await _issue(conn, who, await _person(conn, who))
    print(token)
    return 0
