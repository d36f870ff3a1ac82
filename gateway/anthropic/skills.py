"""``client.beta.skills`` and ``client.beta.skills.versions`` of the official `anthropic` SDK
(issue 14, item 2; ../shared/ANTHROPIC-WIRE.md §3): each route parses, calls one resolver of
``resolvers/skills/anthropic_api.py`` and answers in the SDK's shape. A skill's id is
``skill_…``, a version's ``skillver_…``; a version is also addressed as ``latest``."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from db.skill_sdk import SdkSkillRow
from gateway.anthropic.transport import (
    ApiError,
    QueryModel,
    anthropic_route,
    decode_page,
    encode_page,
    local_id,
    page_of,
    public_id,
    query_params,
)
from resolvers.common.errors import DomainError
from resolvers.common.principals import Principal
from resolvers.skills import anthropic_api
from resolvers.skills.anthropic_api import SdkVersion
from resolvers.skills.archive import limits
from resolvers.skills.archive.parts import FIELD, Part
from resolvers.skills.fields import NAME_TAKEN

SKILL = ("skill", "Skill")
VERSION = ("skillver", "SkillVersion")
LATEST = "latest"
MAX_FORM_FIELDS = 16


class SkillSource(BaseModel):
    type: Literal["custom"] = "custom"


class SkillAnswer(BaseModel):
    id: str
    type: Literal["skill"] = "skill"
    display_name: str
    latest_version_id: str
    source: SkillSource = SkillSource()
    created_at: datetime
    updated_at: datetime


class SkillVersionAnswer(BaseModel):
    id: str
    type: Literal["skill_version"] = "skill_version"
    skill_id: str
    name: str = Field(description="The skill's name, fixed at creation.")
    description: str
    created_at: datetime


class DeletedAnswer(BaseModel):
    id: str
    type: Literal["skill_deleted", "skill_version_deleted"]


class UploadForm(BaseModel):
    """The form fields beside the files (others are left alone)."""

    model_config = ConfigDict(extra="ignore")

    display_name: str | None = None


class SkillsQuery(QueryModel):
    limit: int = Field(20, ge=1, le=1000)
    page: str | None = None
    source: Literal["custom", "anthropic"] | None = None


class VersionsQuery(QueryModel):
    limit: int = Field(20, ge=1, le=1000)
    page: str | None = None


def _skill_answer(row: SdkSkillRow, workspace: UUID) -> SkillAnswer:
    return SkillAnswer(
        id=public_id(*SKILL, workspace, row.id),
        display_name=row.display_name,
        latest_version_id=public_id(*VERSION, workspace, row.latest_version_id),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _version_answer(found: SdkVersion, workspace: UUID) -> SkillVersionAnswer:
    return SkillVersionAnswer(
        id=public_id(*VERSION, workspace, found.public_id),
        skill_id=public_id(*SKILL, workspace, found.skill_id),
        name=found.name,
        description=found.description,
        created_at=found.created_at,
    )


def _context(request: Request) -> tuple[Any, Principal]:
    return request.scope["db"], request.scope["principal"]


def _skill_id(request: Request) -> UUID:
    principal: Principal = request.scope["principal"]
    given = request.path_params["skill_id"]
    return local_id(*SKILL, given, principal.workspace_id, "skill")


def _version_id(request: Request) -> UUID | None:
    """The version in the path: None for ``latest``."""
    principal: Principal = request.scope["principal"]
    given = request.path_params["version"]
    if given == LATEST:
        return None
    return local_id(*VERSION, given, principal.workspace_id, "skill version")


async def _upload(request: Request) -> tuple[list[Part], UploadForm]:
    """The uploaded files (``files[]``, each named by its path) and the form's fields."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        message = f"Send the skill's files as multipart/form-data parts named {FIELD}."
        raise ApiError(400, "invalid_request_error", message)
    try:
        form = await request.form(
            max_files=limits.MAX_ENTRIES,
            max_fields=MAX_FORM_FIELDS,
            max_part_size=limits.MAX_FILE_BYTES,
        )
    except MultiPartException as error:
        raise ApiError(400, "invalid_request_error", f"The upload was refused: {error}") from None
    parts: list[Part] = []
    for value in form.getlist(FIELD):
        if isinstance(value, UploadFile):
            parts.append(Part(value.filename, await value.read()))
        else:  # a part sent without a file name
            parts.append(Part(None, value.encode()))
    fields = {k: v for k, v in form.multi_items() if k != FIELD and isinstance(v, str)}
    await form.close()
    try:
        return parts, UploadForm.model_validate(fields)
    except ValidationError as error:
        listed = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise ApiError(400, "invalid_request_error", f"The input is not valid. {listed}") from None


@anthropic_route
async def create_skill(request: Request) -> SkillAnswer:
    parts, form = await _upload(request)
    conn, principal = _context(request)
    try:
        row = await anthropic_api.create_skill(conn, principal, parts, form.display_name)
    except DomainError as error:
        if error.problems and all(p.message == NAME_TAKEN for p in error.problems):
            # The SDK's BetaSkillNameTakenError (409, skill_name_taken): no retry changes it.
            raise ApiError(
                409,
                "conflict_error",
                ApiError.of(error).message,
                error_code="skill_name_taken",
                retry=False,
            ) from None
        raise
    return _skill_answer(row, principal.workspace_id)


@anthropic_route
async def list_skills(request: Request) -> dict[str, Any]:
    query = query_params(request, SkillsQuery)
    after = decode_page(query.page, 1)[0] if query.page else ""
    conn, principal = _context(request)
    rows, more = await anthropic_api.skills_page(
        conn, principal, after=after, limit=query.limit, source=query.source
    )
    items = [_skill_answer(row, principal.workspace_id) for row in rows]
    return page_of(items, encode_page(rows[-1].name) if more else None)


@anthropic_route
async def retrieve_skill(request: Request) -> SkillAnswer:
    conn, principal = _context(request)
    row = await anthropic_api.skill(conn, principal, _skill_id(request))
    return _skill_answer(row, principal.workspace_id)


@anthropic_route
async def delete_skill(request: Request) -> DeletedAnswer:
    conn, principal = _context(request)
    await anthropic_api.delete_skill(conn, principal, _skill_id(request))
    return DeletedAnswer(id=request.path_params["skill_id"], type="skill_deleted")


@anthropic_route
async def create_version(request: Request) -> SkillVersionAnswer:
    skill_id = _skill_id(request)
    parts, _ = await _upload(request)
    conn, principal = _context(request)
    found = await anthropic_api.create_version(conn, principal, skill_id, parts)
    return _version_answer(found, principal.workspace_id)


@anthropic_route
async def list_versions(request: Request) -> dict[str, Any]:
    skill_id = _skill_id(request)
    query = query_params(request, VersionsQuery)
    after = decode_page(query.page, 1)[0] if query.page else "0"
    if not re.fullmatch(r"0|[1-9][0-9]{0,8}", after):
        raise ApiError(400, "invalid_request_error", "page is not a page token this list gave.")
    conn, principal = _context(request)
    found, more = await anthropic_api.versions_page(
        conn, principal, skill_id, after=int(after), limit=query.limit
    )
    items = [_version_answer(one, principal.workspace_id) for one in found]
    return page_of(items, encode_page(str(found[-1].number)) if more else None)


@anthropic_route
async def retrieve_version(request: Request) -> SkillVersionAnswer:
    skill_id, version = _skill_id(request), _version_id(request)
    conn, principal = _context(request)
    found = await anthropic_api.version(conn, principal, skill_id, version)
    return _version_answer(found, principal.workspace_id)


@anthropic_route
async def download_version(request: Request) -> Response:
    skill_id, version = _skill_id(request), _version_id(request)
    conn, principal = _context(request)
    name, archive = await anthropic_api.download(conn, principal, skill_id, version)
    disposition = f'attachment; filename="{name}.zip"'
    return Response(
        archive, media_type="application/zip", headers={"Content-Disposition": disposition}
    )


@anthropic_route
async def delete_version(request: Request) -> DeletedAnswer:
    skill_id = _skill_id(request)
    version = _version_id(request)
    conn, principal = _context(request)
    found = await anthropic_api.delete_version(conn, principal, skill_id, version)
    answer_id = public_id(*VERSION, principal.workspace_id, found.public_id)
    return DeletedAnswer(id=answer_id, type="skill_version_deleted")


ROUTES = [
    Route("/v1/skills", create_skill, methods=["POST"]),
    Route("/v1/skills", list_skills, methods=["GET"]),
    Route("/v1/skills/{skill_id}", retrieve_skill, methods=["GET"]),
    Route("/v1/skills/{skill_id}", delete_skill, methods=["DELETE"]),
    Route("/v1/skills/{skill_id}/versions", create_version, methods=["POST"]),
    Route("/v1/skills/{skill_id}/versions", list_versions, methods=["GET"]),
    Route("/v1/skills/{skill_id}/versions/{version}", retrieve_version, methods=["GET"]),
    Route("/v1/skills/{skill_id}/versions/{version}", delete_version, methods=["DELETE"]),
    Route("/v1/skills/{skill_id}/versions/{version}/content", download_version, methods=["GET"]),
]
