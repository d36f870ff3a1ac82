"""`skillmem agent create`: an agent of the caller's workspace, over GraphQL (`createAgent`)."""

from __future__ import annotations

from typing import Annotated

import typer

from gateway.cli.client import Client
from gateway.cli.common import TokenOption, UrlOption

group = typer.Typer(help="Agents, over the GraphQL API.", no_args_is_help=True)

CREATE_AGENT = """
mutation CreateAgent($name: String!, $toolGroups: [String!]) {
  createAgent(name: $name, toolGroups: $toolGroups) { id name toolGroups }
}
"""


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="agent")


@group.command("create")
def create(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The agent's name.")],
    tool_group: Annotated[
        list[str] | None,
        typer.Option(
            "--tool-group",
            metavar="GROUP",
            help="A tool group the agent may use (repeat for more; default: the server's).",
        ),
    ] = None,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Create an agent owned by the token's person; print its id, name and tool groups."""
    client = Client(url, token)
    variables = {"name": name, "toolGroups": tool_group or None}
    made = client.graphql(CREATE_AGENT, variables)["createAgent"]
    groups = ", ".join(made.get("toolGroups") or []) or "-"
    print(f"agent {made['name']}\nid: {made['id']}\ntool groups: {groups}")
