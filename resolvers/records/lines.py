"""The lines of a bulk record write as they arrive: their shape checked, NUL characters and
deep nesting refused, every problem numbered by its line."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from resolvers.common.errors import Problem

MAX_LINES = 1_000
MAX_SHARES = 100
MAX_EXTERNAL_ID_CHARS = 200


class RelationRef(BaseModel):
    """A record a relation points to: by global id, or by external id within the target object."""

    model_config = ConfigDict(extra="forbid")
    id: str | None = None
    external_id: str | None = None

    @model_validator(mode="after")
    def one_way(self) -> RelationRef:
        if (self.id is None) == (self.external_id is None):
            raise ValueError("give exactly one of id and external_id")
        return self


class RecordLine(BaseModel):
    """One record to create or update."""

    model_config = ConfigDict(extra="forbid", strict=True)
    object: str
    id: str | None = None
    external_id: str | None = Field(default=None, min_length=1, max_length=MAX_EXTERNAL_ID_CHARS)
    label: str | None = None
    values: dict[str, Any] = {}
    relations: dict[str, RelationRef | None] = {}
    visibility: Literal["workspace", "private"] | None = None
    owner: str | None = None
    shared_with: list[str] | None = Field(default=None, max_length=MAX_SHARES)


def parse_lines(raw_lines: list[Any]) -> tuple[list[tuple[int, RecordLine]], list[Problem]]:
    """Validate each raw line's shape; return the good ones (numbered from 1) and problems."""
    good: list[tuple[int, RecordLine]] = []
    problems: list[Problem] = []
    if len(raw_lines) > MAX_LINES:
        problems.append(Problem(f"at most {MAX_LINES} lines per request", field="records"))
        return good, problems
    for number, raw in enumerate(raw_lines, start=1):
        # PostgreSQL stores no NUL character, in text or in jsonb.
        nul = [
            Problem(
                "nests too deep"
                if f and f.endswith("(nested too deep)")
                else "must not contain a NUL character",
                f.removesuffix(" (nested too deep)") if f else f,
                number,
            )
            for f in _nul_fields(raw)
        ]
        problems.extend(nul)
        try:
            line = RecordLine.model_validate(raw)
        except ValidationError as error:
            for item in error.errors(include_url=False, include_input=False):
                where = ".".join(str(part) for part in item["loc"]) or None
                problems.append(Problem(item["msg"], field=where, line=number))
            continue
        if not nul:
            good.append((number, line))
    return good, problems


MAX_NESTING = 32


def _nul_fields(value: Any) -> Iterator[str | None]:
    """Where a string or key of a raw line holds a NUL character, or nests too deep
    (walked without recursion: a line is hostile input)."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_NESTING:
            yield ".".join(path[:MAX_NESTING]) + " (nested too deep)"
            continue
        if isinstance(item, str) and "\x00" in item:
            yield ".".join(path) or None
        elif isinstance(item, dict):
            for key, inner in item.items():
                where = (*path, str(key))
                if "\x00" in str(key):
                    yield ".".join(where)
                else:
                    stack.append((inner, where))
        elif isinstance(item, list):
            stack.extend((inner, (*path, str(n))) for n, inner in enumerate(item))
