"""`skillmem mcp`: serve MCP over stdio as a token (the logic is in gateway/mcp/stdio.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from gateway.cli.common import Failure, env_token, run, settings


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp_command)


def mcp_command(
    token: Annotated[
        str | None,
        typer.Option(help="The token every request acts as [default: SKILLMEM_TOKEN]."),
    ] = None,
) -> None:
    """Serve MCP over stdio for a desktop client, as a token's principal (agents as agents,
    MCP client tokens for their person)."""
    from gateway.mcp.stdio import serve_stdio

    given = token or env_token()
    if not given:
        raise Failure("mcp needs a token: --token or SKILLMEM_TOKEN")
    run(serve_stdio(settings(), given))
