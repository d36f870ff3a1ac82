"""The `skillmem` command: serve, worker, migrate, demo, token create, workspace create, load,
skills, schema, dreamer run, mcp. Each command group lives in its own module; this one parses and
dispatches."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from pydantic import ValidationError

from gateway.cli import (
    dreamer,
    load,
    mcp_command,
    migrate,
    schema,
    serve,
    skills_command,
    token,
    worker,
    workspace,
)
from gateway.settings import Settings

GROUPS = (
    serve,
    worker,
    migrate,
    token,
    workspace,
    load,
    skills_command,
    schema,
    dreamer,
    mcp_command,
)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="skillmem", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.register(commands)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.command == "schema":
        return schema.schema_sdl(args)
    if args.command == "skills":
        return skills_command.skills_command(args)
    try:
        settings = Settings()
    except ValidationError as error:
        reasons = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in error.errors())
        print(f"skillmem: the settings are refused: {reasons}", file=sys.stderr)
        return 2
    if args.command == "serve":
        return serve.serve(args, settings)
    runners = {
        "migrate": lambda: migrate.migrate(settings),
        "demo": lambda: migrate.demo(settings),
        "token": lambda: token.token_create(args, settings),
        "workspace": lambda: workspace.workspace_create(args, settings),
        "load": lambda: load.load(args, settings),
        "worker": lambda: worker.work(args, settings),
        "dreamer": lambda: dreamer.dreamer_run(args, settings),
        "mcp": lambda: mcp_command.mcp_stdio(args, settings),
    }
    return asyncio.run(runners[args.command]())


if __name__ == "__main__":
    sys.exit(main())
