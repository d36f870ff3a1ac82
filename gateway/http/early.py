"""GraphQL requests refused for their text alone, answered without a connection (issue 16).

A POST to /graphql whose body is not a JSON object, whose document does not parse or is over
the depth, alias, token or length limits, or whose text or variables hold NUL, is refused by
the endpoint whatever the token: the principal never reaches those checks
(GraphQLEndpoint.handle refuses before its guard for a principal). Such a request is handed to
the endpoint without taking a pooled connection, so abusive traffic cannot hold the pool that
other requests wait for. Anything this module is unsure of goes the usual way; and should it
misjudge, the endpoint's own guard answers 401, never runs an operation without a principal.
A request with ``extensions`` (a persisted query, resolved per workspace) always goes the
usual way.
"""

from __future__ import annotations

from typing import Any

from starlette.types import Scope

from gateway.http.graphql import PREPARED_KEY, DocumentCache
from gateway.http.graphql_params import NOT_JSON, parsed_body
from gateway.http.nul import nul_paths
from resolvers.common.errors import Code


def _textual(error: dict[str, Any]) -> bool:
    """A parse error or a limit's: about the text, never about the schema."""
    extensions = error.get("extensions", {})
    return extensions.get("code") == Code.GRAPHQL_PARSE_FAILED.value or "limit" in extensions


def refused_for_its_text(documents: DocumentCache | None, scope: Scope, body: bytes) -> bool:
    """Whether the endpoint will refuse this request for its body alone."""
    if documents is None or scope["path"] != "/graphql" or scope["method"] != "POST":
        return False
    raw = parsed_body(scope, body)  # kept for the endpoint
    if raw is NOT_JSON:
        return True
    if not isinstance(raw, dict):
        return True
    query, variables = raw.get("query"), raw.get("variables")
    if "extensions" in raw or not isinstance(query, str):
        return False
    if isinstance(variables, dict) and any(nul_paths(variables)):
        return True
    prepared = documents.get(query)
    scope[PREPARED_KEY] = (query, prepared)  # the endpoint does not prepare it again
    if prepared.document is None:
        return bool(prepared.errors) and all(_textual(e) for e in prepared.errors)
    return bool(prepared.nul_paths)
