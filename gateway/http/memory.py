"""The plain HTTP routes of memory the seeds name: deleting a souvenir from a record's page,
a person's preferences, the workspace's settings, and search."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from gateway.http import fields
from gateway.http.fields import Answer, Body
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


class SouvenirDeleteBody(Body):
    page_id: str = Field(description="The record's memory page (its GraphQL id).")
    key: str = Field(description="The souvenir's key on that page.")


class SouvenirAnswer(Answer):
    key: str
    line: str


class PageAnswer(Answer):
    id: str
    name: str
    content: str
    content_sha256: str
    version: int
    trashed: bool
    souvenirs: list[SouvenirAnswer]


class PageChangedAnswer(Answer):
    page: PageAnswer


class PreferenceBody(Body):
    value: bool = Field(description="On (true) or off (false).")


class PreferenceAnswer(Answer):
    key: str
    value: bool
    on_since: datetime | None


class SettingsBody(Body):
    """Either allowance (absent: unchanged; null: the default), and the AI credits switch."""

    memory_person_monthly_limit_usd: str | None = Field(
        None, description='A decimal string with at most six decimals ("3", "0.50").'
    )
    memory_tenant_monthly_limit_usd: str | None = Field(
        None, description='A decimal string with at most six decimals ("3", "0.50").'
    )
    ai_credits: bool | None = None


class SettingsAnswer(Answer):
    memory_person_monthly_limit_usd: str | None
    memory_tenant_monthly_limit_usd: str | None
    ai_credits: bool


class SearchHitAnswer(Answer):
    object: str
    id: str
    title: str
    snippet: str
    rank: float


class SearchAnswer(Answer):
    hits: list[SearchHitAnswer]
    total: int
    capped: bool


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
        f, problems = fields.fields(parsed, SouvenirDeleteBody)
        if problems:
            raise invalid(problems)
        workspace = principal.workspace_id
        record_id = ids.decode_or_absent(request.path_params["id"], "Record", workspace, "id")
        page_id = ids.decode_or_absent(f["pageId"], "MemoryPage", workspace, "pageId")
        found = await edits.delete_record_souvenir(
            conn, principal, request.path_params["object"], record_id, page_id, f["key"]
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
        # The value's kind is the resolver's to check (with the key's): only unknown fields here.
        _, found_problems = fields.fields(parsed, PreferenceBody)
        extra = [p for p in found_problems if p.message == fields.UNKNOWN]
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
