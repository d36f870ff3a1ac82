"""POST /skills/import and POST /skills/export: skills in and out as archives of folders."""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from gateway.http import fields
from gateway.http.fields import Answer, Body
from gateway.http.responses import (
    domain_error_response,
    error_response,
    json_object_body,
    json_response,
    read_capped,
    too_large,
)
from resolvers.common.errors import Code, DomainError
from resolvers.skills.archive.limits import MAX_ARCHIVE_BYTES
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.write import write_tar_gz, write_zip
from resolvers.skills.transfer import export_folders, import_folders, require_import_right

EXPORT_USAGE = 'Send {"names": ["skill-name", ...], "format": "zip" | "tar.gz"} (both optional).'
EXPORT_FORMATS = {
    "zip": ("application/zip", "skills.zip", write_zip),
    "tar.gz": ("application/gzip", "skills.tar.gz", write_tar_gz),
}


class ExportBody(Body):
    """Which skills, in which format (both optional: every skill you may read, as a zip)."""

    names: list[str] | None = Field(None, description="The skills' names.")
    format: Literal["zip", "tar.gz"] | None = Field(None, description="zip (default) or tar.gz.")


class ImportedAnswer(Answer):
    name: str
    operation: str = Field(description="created, updated or unchanged.")
    version: int


class ImportAnswer(Answer):
    skills: list[ImportedAnswer]


async def import_skills(request: Request) -> Response:
    """Import every skill folder of a zip, tar or tar.gz body, or none."""
    data = await read_capped(request, MAX_ARCHIVE_BYTES)
    if data is None:
        return too_large(MAX_ARCHIVE_BYTES)
    try:
        await require_import_right(request.scope["db"], request.scope["principal"])
        # Unpacking and checking are CPU work on hostile input: off the event loop.
        folders = await asyncio.to_thread(
            read_archive,
            data,
            filename=request.query_params.get("filename"),
            content_type=request.headers.get("content-type"),
        )
        results = await import_folders(
            request.scope["db"],
            request.scope["principal"],
            folders,
            visibility=request.query_params.get("visibility", "workspace"),
        )
    except DomainError as error:
        return domain_error_response(error)
    return json_response(
        {
            "skills": [
                {"name": r.name, "operation": r.operation, "version": r.version} for r in results
            ]
        }
    )


async def export_skills(request: Request) -> Response:
    """A zip (or tar.gz) of the named skills, or of every skill the caller may read."""
    options = await json_object_body(request, empty={}, usage=EXPORT_USAGE)
    if isinstance(options, Response):
        return options
    found, problems = fields.fields(options, ExportBody)
    kind = found["format"] or "zip"
    if problems or kind not in EXPORT_FORMATS:
        return error_response(Code.SCHEMA_VALIDATION_FAILED, EXPORT_USAGE)
    names = found["names"]
    try:
        folders = await export_folders(request.scope["db"], request.scope["principal"], names)
    except DomainError as error:
        return domain_error_response(error)
    media_type, filename, write = EXPORT_FORMATS[kind]
    return Response(
        write(folders),
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
