"""`/openapi.json`: an OpenAPI 3.1 document of the plain HTTP routes, built from the pydantic
models the routes read their bodies with (gateway/http/fields.py) and the answers they
document. GraphQL (`/graphql`, its own schema), `/mcp` (the MCP protocol), `/metrics`
(Prometheus's text format, the operator's) and the static files are not plain routes of the
API and are left out (``NOT_DOCUMENTED``); tests/gateway/test_openapi.py checks that every other
route is here, and schemathesis checks the app against the document."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field
from pydantic.json_schema import JsonSchemaMode, models_json_schema
from starlette.requests import Request
from starlette.responses import Response

from gateway.anthropic.errors import ANTHROPIC_PREFIXES
from gateway.http import catalog, conversations, dreamer, mail, memory, records, skills
from gateway.http.fields import Answer
from gateway.http.responses import json_response
from resolvers.common.errors import Code

OPENAPI_PATH = "/openapi.json"
# Routes that are not the API's plain JSON routes (prefixes).
# ... and the `anthropic` SDK's routes, whose contract is the SDK's (gateway/anthropic/).
NOT_DOCUMENTED = ("/graphql", "/mcp", "/metrics", "/static", OPENAPI_PATH, *ANTHROPIC_PREFIXES)
VERSION = "0.1.0"


class ProblemAnswer(BaseModel):
    """One thing wrong with the input: where and why."""

    message: str
    field: str | None = None
    line: int | None = None
    code: str | None = None


class ErrorDetail(Answer):
    code: str = Field(
        description="One of DESIGN §8's codes.", json_schema_extra={"enum": [c.value for c in Code]}
    )
    message: str
    problems: list[ProblemAnswer] | None = None
    request_id: str | None = Field(
        None, description="For INTERNAL and DB_UNAVAILABLE: the X-Request-Id the logs name."
    )


class ErrorAnswer(BaseModel):
    """Every refusal of a plain route."""

    error: ErrorDetail


class StatusAnswer(BaseModel):
    status: str


class EmbeddedAnswer(Answer):
    """The embedded PostgreSQL as its supervisor sees it (without DATABASE_URL)."""

    state: str = Field(json_schema_extra={"enum": ["running", "restarting", "failed"]})
    restarts: int = Field(description="Times it was started again since the process started.")
    attempt: int | None = Field(None, description="While restarting: the attempt under way.")
    max_attempts: int | None = Field(None, description="While restarting: the attempts allowed.")


class ReadyAnswer(BaseModel):
    """Ready; a refusal (503 DB_UNAVAILABLE) carries ``embedded`` too."""

    status: str
    embedded: EmbeddedAnswer | None = None


@dataclass(frozen=True)
class Operation:
    """One documented route: its body model (or raw media types) and its answers."""

    method: str
    path: str
    summary: str
    answers: dict[int, type[BaseModel] | str]
    body: type[BaseModel] | None = None
    body_required: bool = True
    body_media: Sequence[str] = ("application/json",)
    query: Sequence[tuple[str, str, bool]] = ()  # (name, description, required)
    public: bool = False
    tags: Sequence[str] = field(default_factory=tuple)


ARCHIVE_MEDIA = ("application/zip", "application/gzip", "application/x-tar")
OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "post",
        "/v1/records",
        "Create or update records in bulk (a JSON list, {records: [...]}, or JSON lines).",
        {200: records.RecordsAnswer},
        body_media=("application/json", "application/x-ndjson"),
        tags=("records",),
    ),
    Operation(
        "patch",
        "/v1/records/{object}/{id}/memory",
        "Delete one souvenir of a record's memory page.",
        {200: memory.PageChangedAnswer},
        body=memory.SouvenirDeleteBody,
        tags=("memory",),
    ),
    Operation(
        "put",
        "/users/me/preferences/{key}",
        "Turn one of your preferences on or off.",
        {200: memory.PreferenceAnswer},
        body=memory.PreferenceBody,
        tags=("memory",),
    ),
    Operation(
        "get",
        "/tenant/settings",
        "The workspace's memory allowances.",
        {200: memory.SettingsAnswer},
        tags=("memory",),
    ),
    Operation(
        "patch",
        "/tenant/settings",
        "Set the workspace's memory allowances.",
        {200: memory.SettingsAnswer},
        body=memory.SettingsBody,
        tags=("memory",),
    ),
    Operation(
        "get",
        "/v1/search",
        "Search memory and skills (GraphQL's search, as JSON).",
        {200: memory.SearchAnswer},
        query=(
            ("q", "The text searched for.", False),
            ("objects", "memory, skill, catalog, comma-separated (default memory,skill).", False),
            ("first", "How many hits (default 20).", False),
        ),
        tags=("memory",),
    ),
    Operation(
        "get",
        "/v1/catalog/search",
        "Search the product's own skills and, with community=true, the community directory "
        "(GraphQL's catalogSearch, as JSON; an agent may not ask the directory).",
        {200: catalog.CatalogSearchAnswer},
        query=(
            ("q", "The text searched for (1 to 200 characters).", True),
            ("community", "true to ask the community directory too (default false).", False),
        ),
        tags=("catalog",),
    ),
    Operation(
        "post",
        "/agents/sessions/{id}/messages",
        "Record a message of conversation {id} (201; 200 when re-sent).",
        {201: dreamer.MessageAnswer, 200: dreamer.MessageAnswer},
        body=dreamer.MessageBody,
        tags=("dreamer",),
    ),
    Operation(
        "post",
        "/agents/sessions/{id}/compact",
        "Compact your conversation {id}: its next turn reads the profiles afresh.",
        {200: conversations.ConversationAnswer},
        body=conversations.CompactBody,
        body_required=False,
        tags=("turns",),
    ),
    Operation(
        "post",
        "/agents/sessions/{id}/end",
        "Record the end of your conversation {id}.",
        {200: conversations.ConversationAnswer},
        body=conversations.EndBody,
        body_required=False,
        tags=("turns",),
    ),
    Operation(
        "post",
        "/v1/meetings",
        "Record a meeting (201; 200 when re-sent).",
        {201: dreamer.MeetingAnswer, 200: dreamer.MeetingAnswer},
        body=dreamer.MeetingBody,
        tags=("dreamer",),
    ),
    Operation(
        "delete",
        "/v1/meetings/{id}",
        "Delete a meeting you may read.",
        {200: dreamer.DeletedAnswer},
        tags=("dreamer",),
    ),
    Operation(
        "post",
        "/v1/mailboxes",
        "Create a mailbox (201; 200 when re-sent).",
        {201: mail.MailboxAnswer, 200: mail.MailboxAnswer},
        body=mail.MailboxBody,
        tags=("mail",),
    ),
    Operation(
        "post",
        "/v1/mailboxes/{id}/messages",
        "Post a mailbox's messages (201 when something changed, else 200).",
        {201: mail.MailPostAnswer, 200: mail.MailPostAnswer},
        body=mail.MailPostBody,
        tags=("mail",),
    ),
    Operation(
        "post",
        "/skills/import",
        "Import every skill folder of a zip, tar or tar.gz archive, or none.",
        {200: skills.ImportAnswer},
        body_media=(*ARCHIVE_MEDIA, "application/octet-stream"),
        query=(
            ("filename", "The archive's name (its extension tells its format).", False),
            ("visibility", "workspace (default) or private.", False),
        ),
        tags=("skills",),
    ),
    Operation(
        "post",
        "/skills/export",
        "The named skills (or every one you may read) as a zip or tar.gz archive.",
        {200: "application/zip"},
        body=skills.ExportBody,
        body_required=False,
        tags=("skills",),
    ),
    Operation("get", "/healthz", "The process answers.", {200: StatusAnswer}, public=True),
    Operation(
        "get",
        "/readyz",
        "The database answers (503 DB_UNAVAILABLE when it does not, or while the embedded "
        "server is restarting).",
        {200: ReadyAnswer},
        public=True,
    ),
)


def _path_parameters(path: str) -> list[dict[str, Any]]:
    names = [part[1:-1] for part in path.split("/") if part.startswith("{")]
    return [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in names
    ]


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _request_body(operation: Operation) -> dict[str, Any] | None:
    if operation.body is not None:
        schema = _ref(operation.body)
        return {
            "required": operation.body_required,
            "content": {"application/json": {"schema": schema}},
        }
    if operation.method in ("get", "delete"):
        return None
    if operation.path == "/v1/records":
        lines = {"type": "array", "items": {"type": "object"}}
        listed = {"oneOf": [lines, {"type": "object", "properties": {"records": lines}}]}
        return {
            "required": True,
            "content": {
                "application/json": {"schema": listed},
                "application/x-ndjson": {"schema": {"type": "string"}},
            },
        }
    binary = {"type": "string", "contentMediaType": "application/octet-stream"}
    return {"required": True, "content": {m: {"schema": binary} for m in operation.body_media}}


def _responses(operation: Operation) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for status, answer in operation.answers.items():
        if isinstance(answer, str):
            content = {
                media: {"schema": {"type": "string", "contentMediaType": media}}
                for media in (answer, "application/gzip")
            }
        else:
            content = {"application/json": {"schema": _ref(answer)}}
        found[str(status)] = {
            "description": "OK" if status == 200 else "Created",
            "content": content,
        }
    error = {"application/json": {"schema": _ref(ErrorAnswer)}}
    found["default"] = {"description": "A refusal, with its code (DESIGN §8).", "content": error}
    return found


def _operation(operation: Operation) -> dict[str, Any]:
    parameters = _path_parameters(operation.path) + [
        {
            "name": name,
            "in": "query",
            "required": required,
            "description": text,
            "schema": {"type": "string"},
        }
        for name, text, required in operation.query
    ]
    found: dict[str, Any] = {
        "summary": operation.summary,
        "operationId": f"{operation.method}_{operation.path}",
        "responses": _responses(operation),
    }
    if operation.tags:
        found["tags"] = list(operation.tags)
    if parameters:
        found["parameters"] = parameters
    body = _request_body(operation)
    if body is not None:
        found["requestBody"] = body
    if operation.public:
        found["security"] = []
    return found


def _models() -> list[tuple[type[BaseModel], JsonSchemaMode]]:
    """Every model the document names: bodies as they are read, answers as they are sent."""
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (ErrorAnswer, "serialization"),
        (StatusAnswer, "serialization"),
    ]
    for operation in OPERATIONS:
        if operation.body is not None:
            models.append((operation.body, "validation"))
        models.extend(
            (a, "serialization") for a in operation.answers.values() if not isinstance(a, str)
        )
    return list(dict.fromkeys(models))


@functools.cache
def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document (built once)."""
    _, schemas = models_json_schema(
        _models(),
        by_alias=True,
        ref_template="#/components/schemas/{model}",
    )
    paths: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        paths.setdefault(operation.path, {})[operation.method] = _operation(operation)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "skillmem plain HTTP routes",
            "version": VERSION,
            "description": "The plain routes beside GraphQL (/graphql). Every route but the "
            "probes needs `Authorization: Bearer <token>`.",
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": schemas.get("$defs", {}),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }


async def openapi_json(request: Request) -> Response:
    """GET /openapi.json."""
    return json_response(document())
