"""`skillmem schema`: the GraphQL schema as SDL, or a check that schema.graphql is current."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gateway.cli.common import fail


def register(commands: Any) -> None:
    schema_cmd = commands.add_parser("schema", help="print the GraphQL schema (SDL)")
    schema_cmd.add_argument("--check", action="store_true", help="fail when schema.graphql differs")


def schema_sdl(args: argparse.Namespace) -> int:
    from schema.schema import schema

    sdl = schema.as_str() + "\n"
    if args.check:
        current = Path("schema.graphql")
        if not current.exists() or current.read_text() != sdl:
            return fail("schema.graphql is out of date: run `make schema`")
        return 0
    sys.stdout.write(sdl)
    return 0
