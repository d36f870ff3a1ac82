"""`skillmem token create`: a token for a member, an agent, an API key or a new MCP client."""

from __future__ import annotations

import argparse
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from db import identity
from db.pool import begin_workspace
from gateway.cli.common import database, fail
from gateway.settings import Settings
from resolvers.common.principals import issue_token


def register(commands: Any) -> None:
    token = commands.add_parser("token", help="tokens").add_subparsers(dest="action", required=True)
    create = token.add_parser("create", help="issue a token (shown once)")
    create.add_argument("--workspace", required=True, help="workspace id")
    who = create.add_mutually_exclusive_group(required=True)
    who.add_argument("--member", metavar="EMAIL")
    who.add_argument("--agent", metavar="NAME")
    who.add_argument("--api-key", metavar="NAME")
    who.add_argument("--mcp-client", metavar="NAME", help="creates the MCP client")
    create.add_argument(
        "--for",
        dest="for_member",
        metavar="EMAIL",
        help="the person an agent or MCP client acts for",
    )


class Refused(Exception):
    """The command's arguments name nothing that exists."""


async def _person(conn: asyncpg.Connection, args: argparse.Namespace) -> UUID | None:
    """The member a member, agent or MCP client token acts for (None for an API key)."""
    if not (args.member or args.agent or args.mcp_client):
        return None
    email = args.member or args.for_member
    if not email:
        raise Refused("--agent and --mcp-client need --for EMAIL")
    member = await identity.member_by_email(conn, email)
    if member is None:
        raise Refused(f"no member {email}")
    return member.id


async def _issue(conn: asyncpg.Connection, args: argparse.Namespace, person: UUID | None) -> str:
    if args.member:
        return await issue_token(conn, "member", member_id=person)
    if args.agent:
        agent = await identity.agent_by_name(conn, args.agent)
        if agent is None:
            raise Refused(f"no agent {args.agent}")
        return await issue_token(conn, "agent", member_id=person, agent_id=agent.id)
    if args.api_key:
        key = await identity.api_key_by_name(conn, args.api_key)
        if key is None:
            raise Refused(f"no API key {args.api_key}")
        return await issue_token(conn, "api_key", api_key_id=key.id)
    assert person is not None
    client_id = uuid4()
    await identity.insert_actor(conn, "mcp_client", client_id, args.mcp_client, person)
    return await issue_token(conn, "mcp_client", member_id=person, mcp_client_id=client_id)


async def token_create(args: argparse.Namespace, settings: Settings) -> int:
    try:
        async with database(settings) as conn, conn.transaction():
            await begin_workspace(conn, UUID(args.workspace))
            if await identity.workspace(conn) is None:
                raise Refused(f"no workspace {args.workspace}")
            token = await _issue(conn, args, await _person(conn, args))
    except Refused as refused:
        return fail(str(refused))
    print(token)
    return 0
