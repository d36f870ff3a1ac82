"""`skillmem mcp`: serve MCP over stdio as a token (the logic is in gateway/mcp/stdio.py)."""

from __future__ import annotations

import argparse
from typing import Any

from gateway.cli.common import env_token, fail
from gateway.mcp.stdio import serve_stdio
from gateway.settings import Settings


def register(commands: Any) -> None:
    command = commands.add_parser(
        "mcp", help="serve MCP over stdio for a desktop client, as a token's principal"
    )
    command.add_argument(
        "--token", help="the token every request acts as (default: SKILLMEM_TOKEN)"
    )


async def mcp_stdio(args: argparse.Namespace, settings: Settings) -> int:
    token = args.token or env_token()
    if not token:
        return fail("mcp needs a token: --token or SKILLMEM_TOKEN")
    return await serve_stdio(settings, token)
