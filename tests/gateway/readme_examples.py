"""The examples of README.md, as tests/gateway/test_readme.py runs them (the convention is
written in CONTRIBUTING.md, "Examples in the README"):

- a fenced block of language ``graphql`` is one operation, or several named ones (each run in
  its turn, by name);
- in a block of language ``sh``, ``bash`` or ``shell``, each command starting with ``curl``,
  ``skillmem`` (``.venv/bin/skillmem``) or ``printf`` (a file a later command reads) is run;
  other lines (``make …``, comments) are not;
- ``<!-- not run: why -->`` right before a block keeps it from being run (the reason is
  required); a ``subscription`` is not run either (it is served over WebSocket);
- ``$UPPER_CASE`` names are placeholders the test fills in from the demo workspace (in
  GraphQL, inside strings: ``recordId: "$ACME_ID"``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from graphql import OperationDefinitionNode, OperationType, parse
from markdown_it import MarkdownIt

README = Path(__file__).resolve().parents[2] / "README.md"
GRAPHQL_LANGUAGES = {"graphql"}
SHELL_LANGUAGES = {"sh", "bash", "shell"}
RUN_COMMANDS = re.compile(r"(?:\.venv/bin/)?(?:curl|skillmem|printf)\b")
NOT_RUN = re.compile(r"<!--\s*not run:(?P<why>.*?)-->", re.DOTALL)
PLACEHOLDER = re.compile(r"\$\{?(?P<name>[A-Z][A-Z0-9_]*)\}?")
# What the README says the server is; the test serves elsewhere and says so instead.
README_URL = re.compile(r"https?://(?:127\.0\.0\.1|localhost):8000")


@dataclass(frozen=True, slots=True)
class Example:
    """One thing of the README to run: a GraphQL operation or a shell command."""

    kind: Literal["graphql", "shell"]
    line: int  # where it starts in README.md, from 1
    text: str
    operation: str | None = None  # the operation's name, in a block of several
    skipped: str | None = None  # why it is not run

    @property
    def id(self) -> str:
        name = f" {self.operation}" if self.operation else ""
        return f"README.md:{self.line} {self.kind}{name}"


class ConventionError(ValueError):
    """A README block the convention cannot run: it says which and why."""


def examples(readme: str) -> list[Example]:
    """Every example of a README's text, in order."""
    found: list[Example] = []
    skip: str | None = None
    for token in MarkdownIt("commonmark").parse(readme):
        if token.type == "html_block" and (mark := NOT_RUN.search(token.content)):
            skip = mark["why"].strip()
            if not skip:
                raise ConventionError(f"README.md:{_line(token)}: 'not run' needs its reason")
            continue
        if token.type != "fence":
            skip = None  # a mark holds only for the block right after it
            continue
        language = token.info.strip().split(" ")[0].lower()
        if language in GRAPHQL_LANGUAGES:
            found.extend(_operations(token.content, _line(token) + 1, skip))
        elif language in SHELL_LANGUAGES:
            found.extend(_commands(token.content, _line(token) + 1, skip))
        skip = None
    return found


def _line(token: Any) -> int:
    return int(token.map[0]) + 1 if token.map else 0


def _operations(block: str, line: int, skip: str | None) -> Iterator[Example]:
    """The operations of a graphql block: one, or each named one."""
    try:
        document = parse(block)
    except Exception as error:
        raise ConventionError(f"README.md:{line}: the GraphQL does not parse: {error}") from error
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) == 1:
        yield Example("graphql", line, block, None, skip or _subscription(operations[0]))
        return
    if any(op.name is None for op in operations):
        raise ConventionError(
            f"README.md:{line}: a block of several operations names each one"
            " (`query Catalog { … }`), or holds one"
        )
    for op in operations:
        assert op.name is not None and op.loc is not None
        start = line + block[: op.loc.start].count("\n")
        yield Example("graphql", start, block, op.name.value, skip or _subscription(op))


def _subscription(operation: OperationDefinitionNode) -> str | None:
    """Why an operation is not run over HTTP: a subscription is served over WebSocket."""
    if operation.operation == OperationType.SUBSCRIPTION:
        return "a subscription: over WebSocket (graphql-transport-ws), not HTTP"
    return None


def _commands(block: str, line: int, skip: str | None) -> Iterator[Example]:
    """The commands of a shell block that start with curl or skillmem, each with its
    continuation lines (a trailing backslash, or a quote still open)."""
    pending: list[str] = []
    start = line
    for number, text in enumerate(block.splitlines(), start=line):
        if not pending:
            start = number
        pending.append(text)
        command = "\n".join(pending)
        if text.endswith("\\") or not _complete(command):
            continue
        pending = []
        if RUN_COMMANDS.match(command.strip()):
            yield Example("shell", start, command.strip(), None, skip)
    if pending:
        raise ConventionError(f"README.md:{start}: a command's quote is never closed")


def _complete(command: str) -> bool:
    try:
        shlex.split(command, comments=True)
    except ValueError:
        return False
    return True


def placeholders(text: str) -> set[str]:
    """The ``$NAME`` placeholders a text uses."""
    return {m["name"] for m in PLACEHOLDER.finditer(text)}


def fill(text: str, values: dict[str, str]) -> str:
    """A GraphQL text with its placeholders replaced; a name not known is an error."""
    unknown = placeholders(text) - values.keys()
    if unknown:
        raise ConventionError(
            f"unknown placeholder(s) {', '.join(sorted(unknown))}: use one of"
            f" {', '.join(sorted(values))} (tests/gateway/test_readme.py fills them in)"
        )
    return PLACEHOLDER.sub(lambda m: values[m["name"]], text)


def shows_something(value: Any) -> bool:
    """Whether an answer holds anything: not null, not empty, not zero or false alone."""
    if isinstance(value, dict):
        return any(shows_something(v) for v in value.values())
    if isinstance(value, list):
        return any(shows_something(v) for v in value)
    if isinstance(value, str):
        return value.strip() != ""
    return bool(value)
