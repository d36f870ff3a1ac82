"""`skillmem workspace create`: a workspace with its first admin, and the admin's token."""

from __future__ import annotations

import argparse
from typing import Any
from uuid import uuid4

from db import identity
from gateway.cli.common import database
from gateway.settings import Settings
from resolvers.common.principals import issue_token
from resolvers.records.workspaces import create_workspace


def register(commands: Any) -> None:
    ws = commands.add_parser("workspace", help="workspaces").add_subparsers(
        dest="action", required=True
    )
    ws_create = ws.add_parser("create", help="create a workspace with an admin member")
    ws_create.add_argument("name")
    ws_create.add_argument("--admin-email", required=True)
    ws_create.add_argument("--admin-name", required=True)


async def workspace_create(args: argparse.Namespace, settings: Settings) -> int:
    async with database(settings) as conn, conn.transaction():
        new = await create_workspace(conn, args.name)
        admin = await identity.insert_member(
            conn, uuid4(), args.admin_name, args.admin_email, new.roles["admin"]
        )
        token = await issue_token(conn, "member", member_id=admin.id)
    print(f"workspace {new.workspace_id}\nadmin token: {token}")
    return 0
