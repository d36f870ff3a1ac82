"""What the commands share: the exit codes, the way a command fails, a migrated database's
connection, the options that reach the server, and running a command's coroutine."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import AsyncIterator, Coroutine
from typing import TYPE_CHECKING, Annotated, Any

import asyncpg
import typer

from db.pool import connect
from resolvers.common.errors import DomainError

if TYPE_CHECKING:
    from gateway.settings import Settings

# The exit codes (README "Command line" lists them).
OK = 0
# The server or the data's checks refused the request (a validation error, a bad token at the
# server, NOT_FOUND); the error's code and its problems are printed.
REFUSED = 1
# The command line itself is wrong: an unknown option, a missing token, a file that cannot be
# read, a name or id that names nothing.
USAGE_ERROR = 2
# The server or the database cannot be reached.
UNREACHABLE = 3
# Stopped by Ctrl-C.
INTERRUPTED = 130


class Failure(Exception):
    """A command stops with one line on stderr and an exit code; never a traceback."""

    def __init__(self, message: str, code: int = USAGE_ERROR, details: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.details = details or []


def say_error(message: str, details: list[str] | None = None) -> None:
    print(f"skillmem: {message}", file=sys.stderr)
    for line in details or []:
        print(f"  {line}", file=sys.stderr)


def refusal(error: DomainError, code: int = REFUSED) -> Failure:
    """A domain error as a command's failure: its code, message and every problem."""
    details = [
        f"{problem.field + ': ' if problem.field else ''}{problem.message}"
        for problem in error.problems
    ]
    return Failure(f"{error.code}: {error.message}", code, details)


# What a database that is down, unknown or refusing the login raises.
UNREACHABLE_DATABASE = (
    ConnectionError,
    TimeoutError,
    socket.gaierror,
    asyncpg.PostgresConnectionError,
    asyncpg.InvalidCatalogNameError,
    asyncpg.InvalidAuthorizationSpecificationError,
)


def run(coroutine: Coroutine[Any, Any, int | None]) -> None:
    """Run a command's coroutine; a database that cannot be reached is a one-line failure."""
    try:
        code = asyncio.run(coroutine)
    except UNREACHABLE_DATABASE as error:
        raise Failure(f"cannot reach the database: {error}", UNREACHABLE) from None
    except FileNotFoundError as error:
        # A unix socket that is not there (a local server stopped): a socket's error names no
        # file, a file the command reads does (main() reports those).
        if error.filename is not None:
            raise
        raise Failure(f"cannot reach the database: {error.strerror}", UNREACHABLE) from None
    except DomainError as error:
        raise refusal(error) from None
    if code:
        raise typer.Exit(code)


@contextlib.asynccontextmanager
async def database(settings: Settings) -> AsyncIterator[asyncpg.Connection]:
    """A migrated database's connection (starting the embedded server when needed)."""
    # Imported here: the commands that only reach the server start faster without the app.
    from gateway.app import database_url, prepare_database

    dsn, _server = await database_url(settings)
    await prepare_database(dsn)
    conn = await connect(dsn)
    try:
        yield conn
    finally:
        await conn.close()


def env_token() -> str | None:
    return os.environ.get("SKILLMEM_TOKEN")


def fail(message: str) -> int:
    say_error(message)
    return USAGE_ERROR


def settings() -> Settings:
    """The settings from the environment (imported here: the commands that only reach the
    server start faster without them)."""
    from gateway.settings import Settings

    return Settings()


DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def default_url() -> str:
    """The server's base URL from SKILLMEM_HOST and SKILLMEM_PORT (what `skillmem serve` uses)."""
    host = os.environ.get("SKILLMEM_HOST") or DEFAULT_HOST
    port = os.environ.get("SKILLMEM_PORT") or DEFAULT_PORT
    return f"http://{host}:{port}"


UrlOption = Annotated[
    str | None,
    typer.Option(
        "--url",
        metavar="URL",
        help="The server's base URL [default: http://$SKILLMEM_HOST:$SKILLMEM_PORT, "
        "else http://127.0.0.1:8000].",
        show_default=False,
    ),
]
TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        metavar="TOKEN",
        envvar="SKILLMEM_TOKEN",
        help="A bearer token (smk_...) [env: SKILLMEM_TOKEN].",
        show_default=False,
        show_envvar=False,
    ),
]
WorkspaceOption = Annotated[
    str,
    typer.Option(
        "--workspace",
        "-w",
        metavar="WORKSPACE",
        help="The workspace: its name, its id (UUID) or its GraphQL id (`skillmem workspace "
        "list`).",
        show_default=False,
    ),
]


def need_token(token: str | None) -> str:
    if not token:
        raise Failure("give --token or set SKILLMEM_TOKEN")
    return token
