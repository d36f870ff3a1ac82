"""`skillmem api-key create`: a workspace's API key with its role, and its first token (an
operator's command, on the database, like `token create`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gateway.cli.common import WorkspaceOption, database, run, settings
from gateway.cli.token import workspace_id
from resolvers.common.principals import issue_token
from resolvers.records.directory import create_api_key

if TYPE_CHECKING:
    from gateway.settings import Settings

group = typer.Typer(help="API keys (operators' commands, on the database).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="api-key")


@group.command("create")
def create(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="The key's name (unique in the workspace).")
    ],
    workspace: WorkspaceOption,
    role: Annotated[
        str, typer.Option(help="The role the key acts with: admin, member, viewer or your own.")
    ] = "member",
) -> None:
    """Create an API key with its role and print a token for it (shown once; `skillmem token
    create --api-key NAME` issues more)."""
    run(api_key_create(workspace, name, role, settings()))


async def api_key_create(reference: str, name: str, role: str, settings: Settings) -> int:
    async with database(settings) as conn, conn.transaction():
        workspace = await workspace_id(conn, reference)
        key = await create_api_key(conn, workspace, name, role)
        token = await issue_token(conn, "api_key", api_key_id=key.id)
    print(f"api key {key.name} (role {role}) in workspace {workspace}\ntoken: {token}")
    return 0
