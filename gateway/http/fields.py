"""A plain route's JSON body, described by a pydantic model (``Body``) and read field by field:
the model's fields say each field's name, kind and whether it is required (and the OpenAPI
document, gateway/http/openapi.py, is built from the same models); ``fields`` lists every
problem at once (an unknown field, a missing required one, a value of the wrong kind) while the
resolver checks the rest. A list of objects is read as a list of JSON objects: the route reads
each with its own model (``where`` names it in the problems)."""

from __future__ import annotations

import functools
import types
import typing
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    StrictBool,
    StrictStr,
    TypeAdapter,
    ValidationError,
)
from pydantic.alias_generators import to_camel

from resolvers.common.errors import Problem

UNKNOWN = "unknown field"
REQUIRED = "required"


def _iso_time(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError("not a string")
    return datetime.fromisoformat(value)


# An ISO 8601 time (with its offset: the resolver refuses one without).
Moment = Annotated[datetime, BeforeValidator(_iso_time)]


class Body(BaseModel):
    """A plain route's JSON object: camelCase names, no other field."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, strict=True
    )


class Answer(BaseModel):
    """What a plain route answers (documented; camelCase names)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


@dataclass(frozen=True, slots=True)
class FieldKind:
    """How one kind of field is read: its checker, what a wrong value is said to be, and what
    a required one holds while the rest is checked."""

    adapter: TypeAdapter[Any]
    says: str
    stand_in: Any


_TEXT = FieldKind(TypeAdapter(StrictStr), "a string", "")
_FLAG = FieldKind(TypeAdapter(StrictBool), "true or false", False)
_MOMENT = FieldKind(TypeAdapter(Moment), "an ISO 8601 time with its offset", None)
_TEXTS = FieldKind(TypeAdapter(list[StrictStr]), "a list of strings", [])
_OBJECTS = FieldKind(TypeAdapter(list[dict[str, Any]]), "a list of objects", [])


def _kind(annotation: Any) -> FieldKind:
    """The kind of a model field's annotation (``X | None`` is X's)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        (annotation,) = [a for a in typing.get_args(annotation) if a is not type(None)]
    if annotation is str or typing.get_origin(annotation) is typing.Literal:
        return _TEXT  # a Literal's values are the resolver's (or the route's) to check
    if annotation is bool:
        return _FLAG
    if annotation is datetime or annotation == Moment:
        return _MOMENT
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation)
        return _TEXTS if item is str else _OBJECTS
    raise TypeError(f"no field kind for {annotation!r}")


@functools.cache
def spec(model: type[Body]) -> dict[str, tuple[FieldKind, bool]]:
    """Each field of ``model`` by its JSON name: its kind and whether it is required."""
    return {
        field.alias or name: (_kind(field.annotation), field.is_required())
        for name, field in model.model_fields.items()
    }


def fields(
    body: dict[str, Any], model: type[Body], where: str = ""
) -> tuple[dict[str, Any], list[Problem]]:
    """The body's fields read by ``model`` (absent or null: None, or a required one's
    stand-in), and every problem of their kinds, each at ``where`` + its name."""
    known = spec(model)
    problems = [Problem(UNKNOWN, f"{where}{name}") for name in body if name not in known]
    found: dict[str, Any] = {}
    for name, (kind, required) in known.items():
        value = body.get(name)
        if value is not None:
            try:
                found[name] = kind.adapter.validate_python(value)
                continue
            except ValidationError:
                problems.append(Problem(kind.says, f"{where}{name}"))
        elif required:
            problems.append(Problem(REQUIRED, f"{where}{name}"))
        found[name] = kind.stand_in if required else None
    return found, problems
