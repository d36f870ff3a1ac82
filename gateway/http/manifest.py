"""The trusted documents: a persisted-query manifest, the only operations /graphql runs when
`SKILLMEM_TRUSTED_DOCUMENTS` names one (gateway/http/persisted.py).

The file is in the format Apollo's `generate-persisted-query-manifest` writes:
``{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{"id", "body",
"name", "type"}]}``, each id the SHA-256 (hex) of its body, as that tool makes it by default.
It is read once, at startup; a manifest with any problem stops the server with every problem
listed, rather than letting it run with part of its operations.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from graphql import GraphQLError, OperationDefinitionNode, parse

MANIFEST_FORMAT = "apollo-persisted-query-manifest"
MANIFEST_VERSION = 1
OPERATION_TYPES = ("query", "mutation", "subscription")
# Problems listed at most, so that a wrong file does not print thousands of lines.
MAX_PROBLEMS = 20
# A Markdown file's GraphQL: each fenced block of language graphql.
GRAPHQL_BLOCK = re.compile(r"^```graphql[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def sha256_hex(text: str) -> str:
    """The SHA-256 of a document's text (UTF-8), in lower-case hex: its persisted-query hash."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class Manifest:
    """The trusted operations' texts by their SHA-256."""

    bodies: Mapping[str, str]

    def body(self, sha256: str) -> str | None:
        """The text of the operation with this hash, if the manifest lists it."""
        return self.bodies.get(sha256)

    def lists(self, text: str) -> bool:
        """Whether this exact text is one of the manifest's operations."""
        return sha256_hex(text) in self.bodies


class ManifestError(ValueError):
    """A manifest that cannot be used, with every problem found."""


def read_manifest(path: Path) -> Manifest:
    """The manifest at ``path``, or ManifestError naming every problem."""
    try:
        raw = orjson.loads(path.read_bytes())
    except OSError as error:
        raise ManifestError(f"{path} cannot be read: {error.strerror or error}") from None
    except orjson.JSONDecodeError:
        raise ManifestError(f"{path} is not JSON") from None
    problems = header_problems(raw)
    bodies: dict[str, str] = {}
    if not problems:
        for index, operation in enumerate(raw["operations"]):
            found = operation_problems(f"operations[{index}]", operation)
            problems.extend(found)
            if not found:
                bodies[operation["id"]] = operation["body"]
    if problems:
        shown = "; ".join(problems[:MAX_PROBLEMS])
        more = len(problems) - MAX_PROBLEMS
        suffix = f"; and {more} more" if more > 0 else ""
        raise ManifestError(f"{path} is not a usable persisted-query manifest: {shown}{suffix}")
    return Manifest(bodies)


def header_problems(raw: Any) -> list[str]:
    """What is wrong with the manifest's top level."""
    if not isinstance(raw, dict):
        return ["the manifest must be a JSON object"]
    problems = []
    if raw.get("format") != MANIFEST_FORMAT:
        problems.append(f'format must be "{MANIFEST_FORMAT}"')
    version = raw.get("version")
    if type(version) is not int or version != MANIFEST_VERSION:
        problems.append(f"version must be {MANIFEST_VERSION}")
    if not isinstance(raw.get("operations"), list):
        problems.append("operations must be a list")
    return problems


def operation_problems(where: str, operation: Any) -> list[str]:
    """What is wrong with one operation of the manifest."""
    if not isinstance(operation, dict):
        return [f"{where} must be an object"]
    problems = []
    body, found_id = operation.get("body"), operation.get("id")
    name, kind = operation.get("name"), operation.get("type")
    if name is not None and not isinstance(name, str):
        problems.append(f"{where}.name must be a string")
    if kind not in OPERATION_TYPES:
        problems.append(f"{where}.type must be one of {', '.join(OPERATION_TYPES)}")
    if not isinstance(body, str) or not body.strip():
        return [*problems, f"{where}.body must be a document's text"]
    if found_id != sha256_hex(body):
        problems.append(f"{where}.id must be the SHA-256 (hex) of its body")
    try:
        parse(body)
    except GraphQLError as error:
        problems.append(f"{where}.body does not parse: {error.message}")
    return problems


def documents_of(name: str, text: str) -> list[str]:
    """The documents a file holds: a Markdown file's graphql blocks, or the whole file."""
    if name.endswith(".md"):
        return [block.strip() for block in GRAPHQL_BLOCK.findall(text) if block.strip()]
    return [text.strip()] if text.strip() else []


def manifest_of(documents: Iterable[str]) -> dict[str, Any]:
    """The manifest listing these documents, each exactly as a client will send it (one entry
    per document, named after its operations, of its first operation's type); a document
    that does not parse raises GraphQLError."""
    operations: dict[str, dict[str, str]] = {}
    for body in documents:
        defined = [d for d in parse(body).definitions if isinstance(d, OperationDefinitionNode)]
        names = [d.name.value for d in defined if d.name is not None]
        kind = defined[0].operation.value if defined else "query"
        found_id = sha256_hex(body)
        operations[found_id] = {"id": found_id, "name": " ".join(names), "type": kind, "body": body}
    listed = list(operations.values())
    return {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "operations": listed}
