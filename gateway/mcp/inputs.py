"""What each MCP tool accepts: pydantic models whose JSON schemas the tools list, and the one
reader that turns a call's arguments into a model or a validation error listing every
problem."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from gateway.http.nul import nul_paths, nul_problems, refuse_nul
from resolvers.common.errors import Problem, invalid
from resolvers.common.pages import DEFAULT_PAGE_SIZE
from resolvers.search.search import (
    MAX_QUERY_CHARS,
    MAX_RESULTS,
    RECALL_MAX_CHARS,
    RECALL_MAX_ITEMS,
)

# A `read` reference, e.g. memory:<pageId> or skill:<name>/<path>.
MAX_REF_CHARS = 1_200
# Lines one write_records call takes (the HTTP route and `skillmem load` take more).
MAX_TOOL_RECORDS = 1_000


class ToolInput(BaseModel):
    """Arguments in camelCase, as the GraphQL API names them; no unknown argument."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=False, frozen=True
    )


class SearchInput(ToolInput):
    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="What to look for; accents fold (preference finds préférence).",
    )
    kinds: list[Literal["memory", "skill", "catalog"]] = Field(
        default=["memory", "skill"],
        min_length=1,
        description="memory: pages by souvenir text; skill: name, description and body;"
        " catalog: the product's own skills offered in the catalogue (read catalog:<source>).",
    )
    community: bool = Field(
        default=False,
        description="Also search the community directory (skills.sh). An agent's search asks"
        " the person it works for first: the answer is an approval whose card shows exactly the"
        " texts that would leave; read approval:<id> for its results once approved.",
    )
    first: int = Field(
        default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_RESULTS, description="Results at most."
    )


class ReadInput(ToolInput):
    ref: str = Field(
        min_length=1,
        max_length=MAX_REF_CHARS,
        description="memory:<pageId>, skill:<name>, skill:<name>/<path> or record:<id>"
        " (ids as search and the GraphQL API give them).",
    )


class CopyInput(ToolInput):
    from_: str = Field(
        alias="from",
        min_length=1,
        max_length=MAX_REF_CHARS,
        description="catalog:<source>: catalog:shipped:<name> or catalog:owner/repo[/path][@ref].",
    )
    commit: str | None = Field(
        default=None,
        description="The 40-hex commit to pin (read catalog:<source> answers it); none: the"
        " commit the ref names now (an agent's copy), never for a shipped skill.",
    )


class ProposeMemoryInput(ToolInput):
    text: str = Field(min_length=1, description="The learning, in a sentence.")
    record_id: str | None = Field(
        default=None, description="The record it is about (its id), when there is one."
    )
    conversation_id: str | None = Field(
        default=None, description="The conversation it comes from (the person's own)."
    )


class RecallInput(ToolInput):
    query: str | None = Field(
        default=None, description="What the agent is about to do; none: the skill catalog only."
    )
    limit: int = Field(default=RECALL_MAX_ITEMS, ge=1, le=RECALL_MAX_ITEMS)
    max_chars: int = Field(default=RECALL_MAX_CHARS, ge=1, le=RECALL_MAX_CHARS)


class TurnContextInput(ToolInput):
    message: str = Field(description="The message; it mentions records as @[Label](record:<id>).")
    conversation_id: str | None = Field(
        default=None, description="The profiles are read once per conversation and kept."
    )
    message_id: str | None = Field(
        default=None, description="The cards are stored with it and replayed as written."
    )
    attached_record_id: str | None = Field(
        default=None, description="The record whose page the message is sent from."
    )
    agent_id: str | None = Field(
        default=None, description="The agent whose profile is read (an agent's token: itself)."
    )


class WriteRecordsInput(ToolInput):
    records: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=MAX_TOOL_RECORDS,
        description="Lines as POST /v1/records takes them: object, label, values, id or"
        " externalId, visibility, owner, sharedWith. All or nothing. Memory and skill records"
        " are not written here (SCHEMA_SYSTEM_ENTITY_IMMUTABLE).",
    )


class TrashRecordInput(ToolInput):
    id: str = Field(
        min_length=1,
        description="The record to move to the trash (needs the delete right; never a memory"
        " or skill record: SCHEMA_SYSTEM_ENTITY_IMMUTABLE).",
    )


Model = TypeVar("Model", bound=ToolInput)


def parse(model: type[Model], arguments: dict[str, Any]) -> Model:
    """The arguments as ``model``; SCHEMA_VALIDATION_FAILED listing every problem (text holding
    NUL included) otherwise."""
    refused = refuse_nul(nul_problems(list(nul_paths(arguments))), "argument")
    if refused is not None:
        raise refused
    try:
        return model.model_validate(arguments)
    except ValidationError as error:
        problems = [
            Problem(_message(e), ".".join(str(part) for part in e["loc"]) or None)
            for e in error.errors(include_url=False, include_input=False)
        ]
        raise invalid(problems) from None


def _message(error: Any) -> str:
    if error["type"] == "extra_forbidden":
        return "no such argument"
    return str(error["msg"])


def schema_of(model: type[ToolInput]) -> dict[str, Any]:
    """The JSON schema a tool lists for its arguments."""
    return model.model_json_schema(by_alias=True)
