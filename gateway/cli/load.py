"""`skillmem load FILE`: create or update records from a JSON-lines file of any size, as a
token's principal, in batches of 1,000 lines (the bulk route's limit) with a progress bar.

Each batch is written in its own transaction, all of it or none of it. When a batch is refused,
the load stops there: the batches before it stay written, the refused batch wrote nothing, the
lines after it are not read, and every problem of the batch is listed by its line number in the
file. Loading the file again after fixing it is safe: written lines come back unchanged.
`--all-or-nothing` writes the whole file in one transaction instead (files up to
ALL_OR_NOTHING_MAX_BYTES): every batch is checked, every problem listed, nothing is written
unless every line is accepted."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import asyncpg
import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

from gateway.cli.common import REFUSED, Failure, TokenOption, database, need_token, run, settings
from resolvers.common.errors import Code, DomainError, Problem
from resolvers.common.principals import principal_for_token
from resolvers.records.lines import MAX_LINES
from resolvers.records.write import write_records

if TYPE_CHECKING:
    from gateway.settings import Settings

BATCH_LINES = MAX_LINES
ALL_OR_NOTHING_MAX_BYTES = 20_000_000


def register(app: typer.Typer) -> None:
    app.command("load")(load_command)


def load_command(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help='A JSON-lines file: one record per line ({"object": ..., "label": ...}); '
            "blank lines are skipped.",
        ),
    ],
    token: TokenOption = None,
    all_or_nothing: Annotated[
        bool,
        typer.Option(
            "--all-or-nothing",
            help="One transaction for the whole file (at most 20 MB): nothing is written "
            "unless every line is accepted. Without it, each batch of 1,000 lines is written "
            "on its own and the batches before a refused one stay.",
        ),
    ] = False,
) -> None:
    """Create or update records from a JSON-lines file, as the token's principal."""
    run(load(file, need_token(token), all_or_nothing, settings()))


@dataclass
class Batch:
    """Up to BATCH_LINES lines of the file: each line's number in the file, the parsed lines,
    and the lines that are not JSON."""

    first: int = 0
    numbers: list[int] = field(default_factory=list)
    lines: list[Any] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass
class Outcome:
    # How many lines each operation (create, update, unchanged) took: never the lines.
    results: Counter[str] = field(default_factory=Counter)
    refused: list[tuple[Batch, DomainError]] = field(default_factory=list)
    written_batches: int = 0


def batches(stream: IO[bytes], progress: Progress, task: Any) -> Iterator[Batch]:
    """The file's batches, read as they are needed (a file of any size)."""
    batch = Batch()
    for number, raw in enumerate(stream, start=1):
        progress.advance(task, len(raw))
        if not raw.strip():
            continue
        batch.first = batch.first or number
        try:
            batch.lines.append(json.loads(raw))
            batch.numbers.append(number)
        except (ValueError, UnicodeDecodeError) as error:
            reason = getattr(error, "msg", "not UTF-8")
            batch.problems.append(Problem(f"not JSON ({reason})", line=number))
        if len(batch.lines) + len(batch.problems) == BATCH_LINES:
            yield batch
            batch = Batch()
    if batch.lines or batch.problems:
        yield batch


def in_file(batch: Batch, error: DomainError) -> list[Problem]:
    """The problems of a refused batch with the line numbers of the file."""
    problems = [
        Problem(p.message, p.field, batch.numbers[p.line - 1] if p.line else None, p.code)
        for p in error.problems
    ]
    return sorted(problems, key=lambda p: p.line or 0)


async def write_batch(conn: asyncpg.Connection, token: str, batch: Batch, outcome: Outcome) -> None:
    """Write one batch in the caller's transaction (a savepoint inside it): its results, or the
    batch refused with its problems."""
    try:
        if batch.problems:
            raise DomainError(Code.SCHEMA_VALIDATION_FAILED, "a line is not JSON", [])
        principal = await principal_for_token(conn, token)
        if principal is None:
            raise Failure("the token is not valid")
        written = await write_records(conn, principal, batch.lines)
        outcome.results.update(line.operation for line in written)
        outcome.written_batches += 1
    except DomainError as error:
        outcome.refused.append((batch, error))


class Refused(Exception):
    """Rolls the one transaction of --all-or-nothing back."""


async def write_file(
    conn: asyncpg.Connection, token: str, stream: IO[bytes], all_or_nothing: bool
) -> Outcome:
    outcome = Outcome()
    console = Console(stderr=True)
    columns = (TextColumn("loading"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as p:
        task = p.add_task("load", total=os.fstat(stream.fileno()).st_size)
        if all_or_nothing:
            try:
                async with conn.transaction():
                    for batch in batches(stream, p, task):
                        await write_batch(conn, token, batch, outcome)
                    if outcome.refused:
                        raise Refused
            except Refused:
                outcome.results.clear()
            return outcome
        for batch in batches(stream, p, task):
            async with conn.transaction():
                await write_batch(conn, token, batch, outcome)
            if outcome.refused:
                break
    return outcome


def open_file(file: Path, all_or_nothing: bool) -> IO[bytes]:
    try:
        if all_or_nothing and file.stat().st_size > ALL_OR_NOTHING_MAX_BYTES:
            raise Failure(
                f"{file} is larger than {ALL_OR_NOTHING_MAX_BYTES:,} bytes: --all-or-nothing "
                "loads files up to that size; load it without, batch by batch"
            )
        return file.open("rb")
    except OSError as error:
        raise Failure(f"cannot read {file}: {error.strerror}") from None


async def load(file: Path, token: str, all_or_nothing: bool, settings: Settings) -> int:
    with open_file(file, all_or_nothing) as stream:
        async with database(settings) as conn:
            async with conn.transaction():
                if await principal_for_token(conn, token) is None:
                    raise Failure("the token is not valid")
            outcome = await write_file(conn, token, stream, all_or_nothing)
    if outcome.refused:
        report(outcome, all_or_nothing)
        return REFUSED
    print(summary(outcome.results))
    return 0


def summary(results: Counter[str]) -> str:
    counts = (f"{op} {results[op]}" for op in ("create", "update", "unchanged"))
    return f"{results.total()} line(s): " + ", ".join(counts)


def report(outcome: Outcome, all_or_nothing: bool) -> None:
    """Every problem by its line in the file, then what stays written."""
    console = Console(stderr=True, highlight=False, soft_wrap=True, markup=False)
    for batch, error in outcome.refused:
        problems = batch.problems or in_file(batch, error)
        refused = len({p.line for p in problems})
        console.print(
            f"{error.code}: {refused} line(s) refused in the batch from line {batch.first}"
        )
        for problem in problems:
            where = f"line {problem.line}" if problem.line else "the batch"
            what = f"{problem.field}: {problem.message}" if problem.field else problem.message
            console.print(f"  {where}: {what}")
    console.print(kept(outcome, all_or_nothing))


def kept(outcome: Outcome, all_or_nothing: bool) -> str:
    if all_or_nothing:
        return "Nothing was written (--all-or-nothing)."
    if not outcome.written_batches:
        return "Nothing was written."
    return (
        f"The {outcome.written_batches} batch(es) before the refused one stay written "
        f"({summary(outcome.results)}); the refused batch wrote nothing and the lines after it "
        "were not read. Load the file again once fixed: written lines come back unchanged."
    )
