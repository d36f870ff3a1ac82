"""`GET /v1/catalog/search?q=&community=`: the GraphQL `catalogSearch`, as JSON. The
directory's base URL and timeouts are the process's settings (``Settings.catalog``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from gateway.http.fields import Answer
from gateway.http.responses import domain_error_response, json_response
from gateway.settings import Settings
from resolvers.catalog import search
from resolvers.common.errors import DomainError, Problem, invalid

FLAGS = {"true": True, "false": False, "1": True, "0": False}


class CatalogHitAnswer(Answer):
    origin: Literal["product", "community"]
    name: str
    description: str | None = Field(description="The product's skills only.")
    source: str | None = Field(description="owner/repo, for a community skill.")
    skill_id: str
    installs: int | None = Field(description="How often the directory counts it.")
    exact: bool = Field(description="Named exactly like the text or one of its words.")


class CatalogSearchAnswer(Answer):
    results: list[CatalogHitAnswer]
    status: Literal["matched", "no_match", "unavailable"] = Field(
        description="unavailable only when nothing came back and a side did not answer."
    )
    own_status: Literal["ok", "unavailable", "not_asked"]
    community_status: Literal["ok", "unavailable", "not_asked"]
    sent: list[str] = Field(description="Every text sent to the community directory.")


def parameters(request: Request) -> tuple[str, bool]:
    """``q`` and ``community`` (absent: false), or SCHEMA_VALIDATION_FAILED with every problem."""
    found: list[Problem] = []
    text = request.query_params.get("q", "")
    try:
        search.check_text(text, "q")
    except DomainError as error:
        found.extend(error.problems)
    flag = request.query_params.get("community", "false").lower()
    if flag not in FLAGS:
        found.append(Problem("is true or false", "community"))
    if found:
        raise invalid(found)
    return text, FLAGS[flag]


def search_route(settings: Settings) -> Callable[[Request], Awaitable[Response]]:
    """The route, reaching the directory with the process's catalogue settings."""
    catalog = settings.catalog()

    async def get_catalog_search(request: Request) -> Response:
        try:
            text, community = parameters(request)
            found = await search.catalog_search(
                catalog, request.scope["principal"], text, community
            )
        except DomainError as error:
            return domain_error_response(error)
        answer = CatalogSearchAnswer(
            results=[
                CatalogHitAnswer.model_validate(hit, from_attributes=True) for hit in found.hits
            ],
            status=found.status,
            own_status=found.own_status,
            community_status=found.community_status,
            sent=found.sent,
        )
        return json_response(answer.model_dump(by_alias=True))

    return get_catalog_search
