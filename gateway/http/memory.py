"""The plain HTTP routes of memory the seeds name: deleting a souvenir from a record's page,
a person's preferences, the workspace's settings, and search."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gateway.http.responses import (
    domain_error_response,
    json_object_body,
    json_response,
)
from resolvers.common import ids
from resolvers.common.errors import DomainError, Problem, invalid
from resolvers.common.pages import DEFAULT_PAGE_SIZE
from resolvers.memory import edits, settings
from resolvers.memory.reading import Page
from resolvers.memory.settings import Allowances
from resolvers.search import search


def page_json(page: Page, workspace_id: Any) -> dict[str, Any]:
    return {
        "id": ids.encode("MemoryPage", workspace_id, page.row.id),
        "name": page.row.name,
        "content": page.content,
        "contentSha256": page.content_sha256,
        "version": page.row.version,
        "trashed": page.row.trashed_at is not None,
        "souvenirs": [{"key": s.key, "line": s.line} for s in page.souvenirs],
    }


async def delete_record_souvenir(request: Request) -> Response:
    """PATCH /v1/records/{object}/{id}/memory with {"pageId", "key"}: delete one souvenir of
    the record's page."""
    parsed = await json_object_body(request)
    if isinstance(parsed, Response):
        return parsed
    principal, conn = request.scope["principal"], request.scope["db"]
    try:
        problems = [
            Problem(f"{field} is a string", field)
            for field in ("pageId", "key")
            if not isinstance(parsed.get(field), str)
        ]
        problems.extend(
            Problem("unknown field", field) for field in parsed if field not in ("pageId", "key")
        )
        if problems:
            raise invalid(problems)
        workspace = principal.workspace_id
        record_id = ids.decode(request.path_params["id"], "Record", workspace, "id")
        page_id = ids.decode(parsed["pageId"], "MemoryPage", workspace, "pageId")
        found = await edits.delete_record_souvenir(
            conn, principal, request.path_params["object"], record_id, page_id, parsed["key"]
        )
    except DomainError as error:
        return domain_error_response(error)
    return json_response({"page": page_json(found, principal.workspace_id)})


async def put_preference(request: Request) -> Response:
    """PUT /users/me/preferences/{key} with {"value": true|false}."""
    parsed = await json_object_body(request)
    if isinstance(parsed, Response):
        return parsed
    principal, conn = request.scope["principal"], request.scope["db"]
    key = request.path_params["key"]
    try:
        extra = [Problem("unknown field", field) for field in parsed if field != "value"]
        if extra:
            raise invalid(extra)
        found = await settings.set_preference(conn, principal, key, parsed.get("value"))
    except DomainError as error:
        return domain_error_response(error)
    preference = next(p for p in found if p.key == key)
    return json_response(
        {
            "key": key,
            "value": preference.value,
            "onSince": preference.on_since.isoformat() if preference.on_since else None,
        }
    )


def settings_json(found: Allowances) -> dict[str, Any]:
    return {
        "memoryPersonMonthlyLimitUsd": found.person,
        "memoryTenantMonthlyLimitUsd": found.tenant,
        "aiCredits": found.ai_credits,
    }


async def get_settings(request: Request) -> Response:
    """GET /tenant/settings: both allowances (null while the default applies)."""
    return json_response(settings_json(await settings.allowances(request.scope["db"])))


async def patch_settings(request: Request) -> Response:
    """PATCH /tenant/settings with either allowance."""
    parsed = await json_object_body(request)
    if isinstance(parsed, Response):
        return parsed
    try:
        found = await settings.update_allowances(
            request.scope["db"], request.scope["principal"], parsed
        )
    except DomainError as error:
        return domain_error_response(error)
    return json_response(settings_json(found))


async def get_search(request: Request) -> Response:
    """GET /v1/search?q=&objects=memory,skill&first=20: the GraphQL `search`, as JSON."""
    params = request.query_params
    objects = [o.strip() for o in params.get("objects", "memory,skill").split(",") if o.strip()]
    try:
        first_text = params.get("first", str(DEFAULT_PAGE_SIZE))
        if not re.fullmatch(r"[0-9]{1,4}", first_text):
            message = f"first is a whole number from 1 to {search.MAX_RESULTS}"
            raise invalid([Problem(message, "first")])
        found = await search.search(
            request.scope["db"],
            request.scope["principal"],
            params.get("q", ""),
            objects,
            int(first_text),
        )
    except DomainError as error:
        return domain_error_response(error)
    return json_response(
        {
            "hits": [
                {
                    "object": h.object,
                    "id": h.id,
                    "title": h.title,
                    "snippet": h.snippet,
                    "rank": h.rank,
                }
                for h in found.hits
            ],
            "total": found.total,
            "capped": found.capped,
        }
    )
