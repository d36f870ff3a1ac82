"""`skillmem workspace create|list`: a workspace with its first admin and the admin's token;
every workspace's ids and name (operators' commands, on the database)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated
from uuid import uuid4

import typer

from db import identity
from gateway.cli.common import database, run, settings
from gateway.cli.tables import print_table
from resolvers.common import ids
from resolvers.common.principals import issue_token
from resolvers.records.workspaces import create_workspace

if TYPE_CHECKING:
    from gateway.settings import Settings

group = typer.Typer(help="Workspaces (operators' commands, on the database).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="workspace")


@group.command("create")
def create(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The workspace's name.")],
    admin_email: Annotated[str, typer.Option(help="The first admin's email.", show_default=False)],
    admin_name: Annotated[str, typer.Option(help="The first admin's name.", show_default=False)],
) -> None:
    """Create a workspace with an admin member; print its id and the admin's token."""
    run(workspace_create(name, admin_email, admin_name, settings()))


@group.command("list")
def list_command() -> None:
    """Every workspace: its id (what --workspace takes, as does its name), its GraphQL id and
    its name."""
    run(workspace_list(settings()))


async def workspace_create(name: str, admin_email: str, admin_name: str, settings: Settings) -> int:
    async with database(settings) as conn, conn.transaction():
        new = await create_workspace(conn, name)
        admin = await identity.insert_member(
            conn, uuid4(), admin_name, admin_email, new.roles["admin"]
        )
        token = await issue_token(conn, "member", member_id=admin.id)
    print(f"workspace {new.workspace_id}\nadmin token: {token}")
    return 0


async def workspace_list(settings: Settings) -> int:
    async with database(settings) as conn:
        found = await identity.workspace_directory(conn)
    rows = [
        (w.workspace_id, ids.encode("Workspace", w.workspace_id, w.workspace_id), w.name)
        for w in found
    ]
    print_table(("id", "GraphQL id", "name"), rows)
    return 0
