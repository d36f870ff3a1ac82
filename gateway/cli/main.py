"""The `skillmem` command: serve, migrate, demo, token create, workspace create, load, schema."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from db import identity
from db.pool import begin_workspace, connect
from gateway.app import create_app, database_url, prepare_database
from gateway.demo import ensure_demo
from gateway.settings import Settings
from resolvers.common.errors import DomainError
from resolvers.common.principals import issue_token, principal_for_token
from resolvers.records.workspaces import create_workspace
from resolvers.records.write import write_records


@contextlib.asynccontextmanager
async def database(settings: Settings) -> AsyncIterator[asyncpg.Connection]:
    """A migrated database's connection (starting the embedded server when needed)."""
    dsn, _server = await database_url(settings)
    await prepare_database(dsn)
    conn = await connect(dsn)
    try:
        yield conn
    finally:
        await conn.close()


def print_demo_start(token: str, email: str, settings: Settings) -> None:
    url = f"http://{settings.host}:{settings.port}/graphql"
    headers = json.dumps({"Authorization": f"Bearer {token}"})
    print(
        f"\nskillmem is serving on http://{settings.host}:{settings.port}\n"
        f"  GraphiQL:   {url}\n"
        f"  demo token: {token}  (for {email}; the previous demo token is revoked)\n"
        f"  headers to paste into GraphiQL:\n  {headers}\n"
        f"  try: curl -s {url} -H 'Authorization: Bearer {token}' "
        "-H 'Content-Type: application/json' -d '{\"query\": \"{ me { name kind } }\"}'\n",
        flush=True,
    )


def serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    if args.host:
        settings.host = args.host
    if args.port:
        settings.port = args.port

    async def on_ready(pool: asyncpg.Pool) -> None:
        if args.demo:
            async with pool.acquire() as conn:
                start = await ensure_demo(conn)
            if start.created:
                print("Loaded the demo workspace.", flush=True)
            print_demo_start(start.token, start.member_email, settings)

    app = create_app(settings, on_ready=on_ready)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        proxy_headers=False,
    )
    return 0


async def migrate(settings: Settings) -> int:
    async with database(settings):
        print("Migrations applied.")
    return 0


async def demo(settings: Settings) -> int:
    async with database(settings) as conn:
        start = await ensure_demo(conn)
    print(
        f"demo workspace {'loaded' if start.created else 'present'}; "
        f"token for {start.member_email}: {start.token}"
    )
    return 0


async def workspace_create(args: argparse.Namespace, settings: Settings) -> int:
    async with database(settings) as conn, conn.transaction():
        new = await create_workspace(conn, args.name)
        admin = await identity.insert_member(
            conn, uuid4(), args.admin_name, args.admin_email, new.roles["admin"]
        )
        token = await issue_token(conn, "member", member_id=admin.id)
    print(f"workspace {new.workspace_id}\nadmin token: {token}")
    return 0


async def token_create(args: argparse.Namespace, settings: Settings) -> int:
    async with database(settings) as conn, conn.transaction():
        await begin_workspace(conn, UUID(args.workspace))
        if await identity.workspace(conn) is None:
            return _fail(f"no workspace {args.workspace}")
        person = None
        if args.member or args.agent or args.mcp_client:
            email = args.member or args.for_member
            if not email:
                return _fail("--agent and --mcp-client need --for EMAIL")
            member = await identity.member_by_email(conn, email)
            if member is None:
                return _fail(f"no member {email}")
            person = member.id
        if args.member:
            token = await issue_token(conn, "member", member_id=person)
        elif args.agent:
            agent = await identity.agent_by_name(conn, args.agent)
            if agent is None:
                return _fail(f"no agent {args.agent}")
            token = await issue_token(conn, "agent", member_id=person, agent_id=agent.id)
        elif args.api_key:
            key = await identity.api_key_by_name(conn, args.api_key)
            if key is None:
                return _fail(f"no API key {args.api_key}")
            token = await issue_token(conn, "api_key", api_key_id=key.id)
        else:
            client_id = uuid4()
            assert person is not None
            await identity.insert_actor(conn, "mcp_client", client_id, args.mcp_client, person)
            token = await issue_token(conn, "mcp_client", member_id=person, mcp_client_id=client_id)
    print(token)
    return 0


async def load(args: argparse.Namespace, settings: Settings) -> int:
    token = args.token or _env_token()
    if not token:
        return _fail("give --token or set SKILLMEM_TOKEN")
    lines: list[Any] = []
    content = await asyncio.to_thread(Path(args.file).read_text)
    for number, text in enumerate(content.splitlines(), start=1):
        if text.strip():
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError as error:
                return _fail(f"line {number}: not JSON ({error.msg})")
    async with database(settings) as conn, conn.transaction():
        principal = await principal_for_token(conn, token)
        if principal is None:
            return _fail("the token is not valid")
        try:
            results = await write_records(conn, principal, lines)
        except DomainError as error:
            print(f"{error.code}: {error.message}", file=sys.stderr)
            for problem in error.problems:
                print(
                    f"  line {problem.line}: {problem.field or '-'}: {problem.message}",
                    file=sys.stderr,
                )
            return 1
    print(
        f"{len(results)} line(s): "
        + ", ".join(
            f"{op} {sum(r.operation == op for r in results)}"
            for op in ("create", "update", "unchanged")
        )
    )
    return 0


def skills_command(args: argparse.Namespace) -> int:
    from gateway.cli import skills

    token = args.token or _env_token()
    if not token:
        return _fail("give --token or set SKILLMEM_TOKEN")
    root = Path(args.dir)
    if args.action == "push":
        if not root.is_dir():
            return _fail(f"{root} is not a folder")
        status, answer, skipped = skills.push(root, args.url, token)
        for path in skipped:
            print(f"skipped {path} (not a regular file)", file=sys.stderr)
        if status != 200:
            print(json.dumps(answer, indent=2), file=sys.stderr)
            return 1
        for item in answer.get("skills", []):  # type: ignore[attr-defined]
            print(f"{item['operation']:9} {item['name']} (version {item['version']})")
        return 0
    status, result = skills.pull(root, args.url, token, args.names or None)
    if status != 200:
        print(json.dumps(result, indent=2), file=sys.stderr)
        return 1
    for name in result:
        print(f"wrote {root / name}/")
    return 0


def schema_sdl(args: argparse.Namespace) -> int:
    from schema.schema import schema

    sdl = schema.as_str() + "\n"
    if args.check:
        current = Path("schema.graphql")
        if not current.exists() or current.read_text() != sdl:
            return _fail("schema.graphql is out of date: run `make schema`")
        return 0
    sys.stdout.write(sdl)
    return 0


def _env_token() -> str | None:
    import os

    return os.environ.get("SKILLMEM_TOKEN")


def _fail(message: str) -> int:
    print(f"skillmem: {message}", file=sys.stderr)
    return 2


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="skillmem", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    serve_cmd = commands.add_parser("serve", help="start the API (and the embedded PostgreSQL)")
    serve_cmd.add_argument(
        "--demo",
        action="store_true",
        help="load the demo workspace on first run and print a demo token",
    )
    serve_cmd.add_argument("--host")
    serve_cmd.add_argument("--port", type=int)
    commands.add_parser("migrate", help="apply pending migrations")
    commands.add_parser("demo", help="load the demo workspace and print a fresh demo token")
    token = commands.add_parser("token", help="tokens").add_subparsers(dest="action", required=True)
    create = token.add_parser("create", help="issue a token (shown once)")
    create.add_argument("--workspace", required=True, help="workspace id")
    who = create.add_mutually_exclusive_group(required=True)
    who.add_argument("--member", metavar="EMAIL")
    who.add_argument("--agent", metavar="NAME")
    who.add_argument("--api-key", metavar="NAME")
    who.add_argument("--mcp-client", metavar="NAME", help="creates the MCP client")
    create.add_argument(
        "--for",
        dest="for_member",
        metavar="EMAIL",
        help="the person an agent or MCP client acts for",
    )
    ws = commands.add_parser("workspace", help="workspaces").add_subparsers(
        dest="action", required=True
    )
    ws_create = ws.add_parser("create", help="create a workspace with an admin member")
    ws_create.add_argument("name")
    ws_create.add_argument("--admin-email", required=True)
    ws_create.add_argument("--admin-name", required=True)
    load_cmd = commands.add_parser("load", help="create or update records from a JSON-lines file")
    load_cmd.add_argument("file")
    load_cmd.add_argument("--token", help="acts as this token's principal (or SKILLMEM_TOKEN)")
    skills_cmd = commands.add_parser("skills", help="skills as folders on disk, over HTTP")
    skills_actions = skills_cmd.add_subparsers(dest="action", required=True)
    for action, text in (
        ("pull", "write the caller's skills as folders in DIR"),
        ("push", "import every skill folder in DIR"),
    ):
        sub = skills_actions.add_parser(action, help=text)
        sub.add_argument("dir")
        sub.add_argument("--url", default="http://127.0.0.1:8000", help="the API's base URL")
        sub.add_argument("--token", help="a bearer token (or SKILLMEM_TOKEN)")
        if action == "pull":
            sub.add_argument("names", nargs="*", help="only these skills")
    schema_cmd = commands.add_parser("schema", help="print the GraphQL schema (SDL)")
    schema_cmd.add_argument("--check", action="store_true", help="fail when schema.graphql differs")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.command == "schema":
        return schema_sdl(args)
    if args.command == "skills":
        return skills_command(args)
    settings = Settings()
    if args.command == "serve":
        return serve(args, settings)
    runners = {
        "migrate": lambda: migrate(settings),
        "demo": lambda: demo(settings),
        "token": lambda: token_create(args, settings),
        "workspace": lambda: workspace_create(args, settings),
        "load": lambda: load(args, settings),
    }
    return asyncio.run(runners[args.command]())
