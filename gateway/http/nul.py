"""Text holding NUL is refused at the edge (DESIGN §9): PostgreSQL cannot store it, so no
door lets it reach a resolver. One walk over JSON values and one over GraphQL literals."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
from graphql import (
    ArgumentNode,
    DocumentNode,
    FieldNode,
    ListValueNode,
    ObjectFieldNode,
    StringValueNode,
    VariableDefinitionNode,
    visit,
)
from graphql.language import Visitor

from gateway.http.responses import JSON_LINES
from resolvers.common.errors import Code, DomainError, Problem

NUL = "\x00"
NUL_MESSAGE = "text may not hold a NUL character (\\u0000)"


def nul_paths(value: Any, path: str = "") -> Iterator[str]:
    """The path of every string (or object key) inside a parsed JSON value that holds NUL
    ("" for the value itself)."""
    if isinstance(value, str):
        if NUL in value:
            yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            shown = str(key).replace(NUL, "\\u0000")
            where = f"{path}.{shown}" if path else shown
            if NUL in str(key):
                yield where
            else:
                yield from nul_paths(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from nul_paths(item, f"{path}.{index}" if path else str(index))


class _LiteralNuls(Visitor):
    """Collects the path (fields, argument, input fields, list indices) of each string literal
    holding NUL in a document."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    def enter_string_value(
        self, node: StringValueNode, key: Any, parent: Any, path: Any, ancestors: Any
    ) -> None:
        if NUL not in node.value:
            return
        names: list[str] = []
        # The i-th container from the root (a node, or a tuple of nodes) is indexed by path[i].
        for index, ancestor in enumerate([*ancestors, parent]):
            if isinstance(ancestor, FieldNode):
                names.append((ancestor.alias or ancestor.name).value)
            elif isinstance(ancestor, ArgumentNode | ObjectFieldNode):
                names.append(ancestor.name.value)
            elif isinstance(ancestor, VariableDefinitionNode):
                names.append(f"${ancestor.variable.name.value}")
            elif isinstance(ancestor, ListValueNode):
                names.append(str(path[index + 1]))
        self.paths.append(".".join(names) or "(document)")


def document_nul_paths(document: DocumentNode) -> list[str]:
    """Where string literals of ``document`` hold NUL."""
    found = _LiteralNuls()
    visit(document, found)
    return found.paths


def nul_problems(paths: list[str]) -> list[Problem]:
    return [Problem(NUL_MESSAGE, path) for path in paths]


def refuse_nul(problems: list[Problem], where: str) -> DomainError | None:
    """SCHEMA_VALIDATION_FAILED listing each place holding NUL, or None when there is none."""
    if not problems:
        return None
    message = f"{len(problems)} {where} value(s) hold a NUL character."
    return DomainError(Code.SCHEMA_VALIDATION_FAILED, message, problems)


def json_body_nul_problems(body: bytes, content_type: str) -> list[Problem]:
    """Where a JSON (or JSON-lines) body's text holds NUL; in a list or in JSON lines each item
    is a line (numbered from 1), as the bulk routes number them. JSON can only spell NUL as the
    escape ``\\u0000``, so a body without it is passed at the cost of one byte search. The body
    is read both ways, its declared type's first, whatever that type says: a route may parse it
    as the other. One that spells NUL and parses neither way is refused whole."""
    if b"\\u0000" not in body:
        return []
    readings = (_as_lines, _as_json) if content_type in JSON_LINES else (_as_json, _as_lines)
    for reading in readings:
        try:
            return reading(body)
        except orjson.JSONDecodeError:
            continue
    return [Problem(NUL_MESSAGE)]


def _as_json(body: bytes) -> list[Problem]:
    parsed = orjson.loads(body)
    if not isinstance(parsed, list):
        return [Problem(NUL_MESSAGE, path or None) for path in nul_paths(parsed)]
    return _numbered(parsed)


def _as_lines(body: bytes) -> list[Problem]:
    return _numbered([orjson.loads(line) if line.strip() else None for line in body.splitlines()])


def _numbered(lines: list[Any]) -> list[Problem]:
    return [
        Problem(NUL_MESSAGE, path or None, line=number)
        for number, line in enumerate(lines, start=1)
        for path in nul_paths(line)
    ]
