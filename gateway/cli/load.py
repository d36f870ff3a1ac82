"""`skillmem load`: create or update records from a JSON-lines file, as a token's principal."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from gateway.cli.common import database, env_token, fail
from gateway.settings import Settings
from resolvers.common.errors import DomainError
from resolvers.common.principals import principal_for_token
from resolvers.records.write import LineResult, write_records


def register(commands: Any) -> None:
    load_cmd = commands.add_parser("load", help="create or update records from a JSON-lines file")
    load_cmd.add_argument("file")
    load_cmd.add_argument("--token", help="acts as this token's principal (or SKILLMEM_TOKEN)")


def _lines(content: str) -> list[Any] | str:
    """The file's JSON lines, or what is wrong with the first one that is not JSON."""
    lines: list[Any] = []
    for number, text in enumerate(content.splitlines(), start=1):
        if text.strip():
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError as error:
                return f"line {number}: not JSON ({error.msg})"
    return lines


def _report(error: DomainError) -> int:
    print(f"{error.code}: {error.message}", file=sys.stderr)
    for problem in error.problems:
        print(f"  line {problem.line}: {problem.field or '-'}: {problem.message}", file=sys.stderr)
    return 1


def _summary(results: list[LineResult]) -> str:
    counts = (
        f"{op} {sum(r.operation == op for r in results)}"
        for op in ("create", "update", "unchanged")
    )
    return f"{len(results)} line(s): " + ", ".join(counts)


async def load(args: argparse.Namespace, settings: Settings) -> int:
    token = args.token or env_token()
    if not token:
        return fail("give --token or set SKILLMEM_TOKEN")
    lines = _lines(await asyncio.to_thread(Path(args.file).read_text))
    if isinstance(lines, str):
        return fail(lines)
    async with database(settings) as conn, conn.transaction():
        principal = await principal_for_token(conn, token)
        if principal is None:
            return fail("the token is not valid")
        try:
            results = await write_records(conn, principal, lines)
        except DomainError as error:
            return _report(error)
    print(_summary(results))
    return 0
