"""Which GraphQL requests run in a READ ONLY transaction (issue 17, item 1).

The edge reads the body before it begins the request's transaction, so it can tell a query
from a mutation first, cheaply: only a document the endpoint has already parsed and validated
(its DocumentCache, gateway/http/graphql.py) is looked at, never parsed here. A query runs
READ ONLY when every field at its root is one that only reads (READ_ONLY_FIELDS): some
queries write (``turnContext`` stores the turn and its snapshot), so the list names fields,
not the operation type alone. Anything else (a mutation, a document not seen yet, one sent by
its persisted hash only, a fragment at the root) runs as before, read-write.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from graphql import FieldNode, OperationType
from graphql.utilities import get_operation_ast
from starlette.types import Scope

from gateway.http.graphql import DocumentCache
from gateway.http.graphql_params import parsed_body

# Root fields that read and never write, in their whole subtree (records and their relations,
# change logs and owners through the request's loaders; the caller's objects and workspace; a
# memory page as the caller sees it: by id, by its record, a profile, the caller's own, each
# one `page_shown` and plain fields; a skill's activation and the skills' catalog: one statement
# each, recording no use).
READ_ONLY_FIELDS = frozenset(
    {
        "records",
        "record",
        "objects",
        "workspace",
        "memoryPage",
        "memoryPageByRecord",
        "memoryProfile",
        "myMemories",
        "skillActivation",
        "skillCatalog",
        "__typename",
        "__schema",
        "__type",
    }
)


def _params(scope: Scope, body: bytes) -> dict[str, Any]:
    if scope["method"] == "POST":
        raw = parsed_body(scope, body)  # kept for the endpoint
        return raw if isinstance(raw, dict) else {}
    if scope["method"] == "GET":
        return dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
    return {}


def reads_only(documents: DocumentCache | None, scope: Scope, body: bytes) -> bool:
    """Whether this request is a GraphQL query that only reads, as far as known before it
    runs (False whenever unsure)."""
    if documents is None or scope["path"] != "/graphql":
        return False
    params = _params(scope, body)
    query, name = params.get("query"), params.get("operationName")
    if not isinstance(query, str) or (name is not None and not isinstance(name, str)):
        return False
    prepared = documents.entries.get(query)
    if prepared is None or prepared.document is None:
        return False
    operation = get_operation_ast(prepared.document, name or None)
    if operation is None or operation.operation is not OperationType.QUERY:
        return False
    return all(
        isinstance(selection, FieldNode) and selection.name.value in READ_ONLY_FIELDS
        for selection in operation.selection_set.selections
    )
