"""The `skillmem` command (Typer on click): each command group lives in its own module, which
registers its commands on `app`; this one adds `--version`, runs a command line and turns every
user mistake into one line on stderr and an exit code (common.py lists them)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from typer._click import ClickException
from typer.core import TyperGroup

from gateway.cli import (
    agent,
    api_key,
    catalog,
    dreamer_command,
    load,
    mcp_command,
    migrate,
    records,
    schema,
    serve,
    skills_command,
    token,
    worker,
    workspace,
)
from gateway.cli.common import INTERRUPTED, USAGE_ERROR, Failure, refusal, say_error
from resolvers.common.errors import DomainError

GROUPS = (
    serve,
    worker,
    migrate,
    token,
    workspace,
    agent,
    api_key,
    load,
    skills_command,
    schema,
    records,
    catalog,
    dreamer_command,
    mcp_command,
)

app = typer.Typer(
    name="skillmem",
    help="skillmem: skills, memory and record cards for AI agents (a GraphQL API gateway).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def package_version() -> str:
    try:
        return version("skillmem")
    except PackageNotFoundError:  # pragma: no cover - a checkout without install
        return "unknown"


def show_version(value: bool) -> None:
    if value:
        print(f"skillmem {package_version()}")
        raise typer.Exit()


@app.callback()
def top(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=show_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """skillmem: skills, memory and record cards for AI agents (a GraphQL API gateway)."""


for _group in GROUPS:
    _group.register(app)


def parse(argv: Sequence[str]) -> dict[str, Any]:
    """The parameters the command line ``argv`` hands its command, parsed and not run (for
    tests of a command's options)."""
    ctx = typer.main.get_command(app).make_context("skillmem", list(argv))
    while isinstance(ctx.command, TyperGroup):
        rest = [*ctx._protected_args, *ctx.args]
        name, command, args = ctx.command.resolve_command(ctx, rest)
        assert name is not None and command is not None
        ctx = command.make_context(name, args, parent=ctx)
    return ctx.params


def main(argv: list[str] | None = None) -> int:
    """Run one command line; its exit code (never a traceback for a user's mistake). Typer 0.29
    carries its own copy of click (`typer._click`): its errors are caught here."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    command = typer.main.get_command(app)
    try:
        code = command.main(
            args=sys.argv[1:] if argv is None else argv,
            prog_name="skillmem",
            standalone_mode=False,
        )
    except ClickException as error:
        error.show()
        return error.exit_code
    except (typer.Abort, KeyboardInterrupt):
        say_error("interrupted")
        return INTERRUPTED
    except Failure as failure:
        say_error(failure.message, failure.details)
        return failure.code
    except OSError as error:
        # A file or folder the command cannot read or write (a database or a server that
        # cannot be reached is answered earlier, with its own code).
        where = f": {error.filename}" if error.filename else ""
        say_error(f"{error.strerror or error}{where}")
        return USAGE_ERROR
    except ValidationError as error:
        # A setting that is refused (e.g. CORS credentials with a wildcard origin).
        reasons = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in error.errors())
        say_error(f"the settings are refused: {reasons}")
        return USAGE_ERROR
    except DomainError as error:
        refused = refusal(error)
        say_error(refused.message, refused.details)
        return refused.code
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
