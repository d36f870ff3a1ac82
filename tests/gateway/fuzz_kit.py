"""Fuzzing a door that /openapi.json does not describe (the MCP tools, the `anthropic` SDK's
routes): an OpenAPI 3.1 document built in the test from the door's own pydantic models, so that
schemathesis draws its inputs, both those the models accept (positive) and those they refuse
(negative); strings the schema names may also be one of the test's real ids (``seeded``), so
that a bounded run gets past "no such id" to the code behind it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import schemathesis
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from schemathesis import GenerationMode

from tests.fuzzing import bounded

REF = "#/components/schemas/{model}"


@dataclass(frozen=True)
class Door:
    """One operation of the built document: its body's schema (or model), its query model, and
    its path parameters (any text, or one of the given real values)."""

    method: str
    path: str
    body: type[BaseModel] | dict[str, Any] | None = None
    query: type[BaseModel] | None = None
    path_values: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"


def seeded(schema: dict[str, Any], known: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """``schema`` with each property named in ``known`` (at any depth) also taking one of its
    known values."""
    schema = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        for name, prop in list((node.get("properties") or {}).items()):
            if name in known:
                node["properties"][name] = {"anyOf": [{"enum": list(known[name])}, prop]}
        for value in node.values():
            walk(value)

    walk(schema)
    return schema


def _bodies(doors: Sequence[Door]) -> dict[str, Any]:
    """The body models' schemas, as components (their nested models too)."""
    models = [d.body for d in doors if isinstance(d.body, type)]
    if not models:
        return {}
    _, schemas = models_json_schema(
        [(m, "validation") for m in dict.fromkeys(models)], ref_template=REF
    )
    found: dict[str, Any] = schemas.get("$defs", {})
    return found


def _query(model: type[BaseModel]) -> list[dict[str, Any]]:
    """A query model's fields as query parameters (a list field as ``name[]``, repeated)."""
    found = []
    for name, prop in model.model_json_schema()["properties"].items():
        listed = prop.get("type") == "array" or any(
            p.get("type") == "array" for p in prop.get("anyOf", [])
        )
        found.append(
            {"name": f"{name}[]" if listed else name, "in": "query", "schema": prop}
            | ({"style": "form", "explode": True} if listed else {})
        )
    return found


def _operation(door: Door, known: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    operation: dict[str, Any] = {"responses": {"default": {"description": "any"}}}
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": {"type": "string", "minLength": 1},
        }
        for name in door.path_values
    ]
    if door.query is not None:
        parameters += _query(door.query)
    if parameters:
        operation["parameters"] = parameters
    if door.body is not None:
        schema = (
            {"$ref": REF.format(model=door.body.__name__)}
            if isinstance(door.body, type)
            else door.body
        )
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": seeded(schema, known)}},
        }
    return operation


def document(doors: Sequence[Door], known: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``doors``."""
    paths: dict[str, dict[str, Any]] = {}
    for door in doors:
        paths.setdefault(door.path, {})[door.method] = _operation(door, known)
    return {
        "openapi": "3.1.0",
        "info": {"title": "fuzzed", "version": "0"},
        "paths": paths,
        "components": {"schemas": seeded(_bodies(doors), known)},
    }


def operations(doors: Sequence[Door], known: Mapping[str, Sequence[Any]]) -> list[Any]:
    """schemathesis's operations of the document, in the order of ``doors``."""
    schema = schemathesis.openapi.from_dict(document(doors, known))
    found = {op.label: op for op in (r.ok() for r in schema.get_all_operations())}
    return [found[door.label] for door in doors]


def cases(operation: Any, door: Door, examples: Sequence[Any] = ()) -> st.SearchStrategy[Any]:
    """Inputs the document accepts and inputs it refuses, alike, and as often inputs that reach
    the code behind the checks: the door's real path ids, and one of ``examples`` as the body
    (a body the model accepts, with real ids) when there are some."""
    drawn = [
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    ]
    if examples or door.path_values:
        real = st.fixed_dictionaries(
            {name: st.sampled_from(list(values)) for name, values in door.path_values.items()}
        )
        bodies = st.sampled_from([{"body": b} for b in examples]) if examples else st.just({})
        drawn.append(
            st.tuples(real, bodies).flatmap(
                lambda chosen: operation.as_strategy(path_parameters=chosen[0], **chosen[1])
            )
        )
    return st.one_of(drawn)


def collect(examples: int, strategy: st.SearchStrategy[Any], send: Callable[[Any], None]) -> None:
    """``send`` each of ``examples`` drawn inputs (it records what went wrong itself)."""

    @bounded(examples, collect=True)
    @given(strategy)
    def run(drawn: Any) -> None:
        send(drawn)

    run()
