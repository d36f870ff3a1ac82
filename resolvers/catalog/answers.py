"""What the outside sources answer, read with pydantic models (pure): a directory search, a
commit, a discovery index. Unknown fields are ignored; anything else malformed is refused with
every problem, each at its JSON path."""

from __future__ import annotations

import json
from typing import Annotated, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)

from resolvers.catalog.errors import CatalogError, refused
from resolvers.catalog.refs import OWNER, REPO
from resolvers.common.errors import Problem

SCHEMA_0_2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
Text = Annotated[str, StringConstraints(max_length=1024)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]


def _repository(value: str) -> str:
    """``owner/repo``, as ``refs`` spells them."""
    owner, _, repo = value.partition("/")
    if not (OWNER.fullmatch(owner) and REPO.fullmatch(repo)) or repo in (".", ".."):
        raise ValueError("is not owner/repo")
    return value


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class DirectorySkill(_Answer):
    """One skill the directory found."""

    id: Name
    skillId: Name  # noqa: N815 (the directory's spelling)
    name: Name
    installs: int = Field(ge=0)
    source: Annotated[str, AfterValidator(_repository)]


class DirectoryAnswer(_Answer):
    """``GET /api/search``'s answer."""

    query: Text
    searchType: Annotated[str, StringConstraints(max_length=100)]  # noqa: N815
    skills: list[DirectorySkill] = Field(max_length=1000)


class Commit(_Answer):
    """``GET /repos/{owner}/{repo}/commits/{ref}``'s answer: the commit's full sha."""

    sha: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]


class IndexedSkill(_Answer):
    """One skill of a discovery index (schema 0.2.0)."""

    name: Name
    description: Text
    type: str  # "skill-md" or "archive"; other types are skipped
    url: Annotated[str, StringConstraints(min_length=1, max_length=2048)]
    digest: Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")]
    version: Text | None = None


class LegacySkill(_Answer):
    """One skill of the older index at ``/.well-known/skills/``: its files by path."""

    name: Name
    description: Text
    files: list[Annotated[str, StringConstraints(min_length=1, max_length=1024)]] = Field(
        min_length=1, max_length=500
    )


class DiscoveryIndex(_Answer):
    """A discovery index (schema 0.2.0)."""

    schema_: Literal["https://schemas.agentskills.io/discovery/0.2.0/schema.json"] = Field(
        alias="$schema"
    )
    skills: list[IndexedSkill] = Field(max_length=1000)


class LegacyIndex(_Answer):
    """The older index (no ``$schema``)."""

    skills: list[LegacySkill] = Field(max_length=1000)


Model = TypeVar("Model", bound=BaseModel)


def parse(model: type[Model], body: bytes, what: str) -> Model:
    """``body`` read as ``model``, or a refusal naming ``what`` and listing every problem."""
    try:
        value = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise refused(f"{what} is not JSON") from None
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise malformed(what, error) from None


def malformed(what: str, error: ValidationError) -> CatalogError:
    """Every problem of a validation error, each at its JSON path."""
    problems = [
        Problem(item["msg"], "/".join(str(part) for part in item["loc"]) or None)
        for item in error.errors(include_url=False, include_input=False)
    ]
    return refused(f"{what} is malformed", problems)
