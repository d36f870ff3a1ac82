"""The id fields of the Anthropic SDK routes' bodies and query strings (gateway/anthropic/).

Those routes read their input with pydantic models (discriminated unions: a dream's inputs),
which no route table names, so each id field of an input model is listed here with the call
that carries it; ``input_fields`` finds every such field, and one missing from ``SDK_INPUTS``
is uncovered (the sweep fails), so a new one is seen the day it appears."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from gateway.anthropic import dreams, memory_models, memory_stores, skills, transport

MODULES = (dreams, memory_models, memory_stores, skills, transport)
INPUT_BASES = (dreams.Body, memory_models.Body, transport.QueryModel)
IDISH = re.compile(r"(_id|_ids)$|^(id|name)$")
# home(kind): the home workspace's id of a kind, as the SDK spells it.
Home = Callable[[str], str]


@dataclass(frozen=True)
class SdkCall:
    """The call carrying one input field: method, path (``{store_id}``: the home store), the
    kind the field names, and the body or query built around its value."""

    method: str
    path: str
    kind: str
    body: Callable[[str, Home], dict[str, Any]] | None = None
    query: str = ""


def _dream(value: str, home: Home, **more: Any) -> dict[str, Any]:
    inputs = [{"type": "memory_store", "memory_store_id": value}]
    return {"inputs": inputs, "model": "m", **more}


SDK_INPUTS: dict[tuple[str, str], SdkCall | str] = {
    ("StoreInput", "memory_store_id"): SdkCall("POST", "/v1/dreams", "MemoryStore", _dream),
    ("SessionsInput", "session_ids"): SdkCall(
        "POST",
        "/v1/dreams",
        "Session",
        lambda value, home: (
            _dream(home("MemoryStore"), home)
            | {
                "inputs": [
                    {"type": "memory_store", "memory_store_id": home("MemoryStore")},
                    {"type": "sessions", "session_ids": [value]},
                ]
            }
        ),
    ),
    ("UpdateExisting", "memory_store_id"): SdkCall(
        "POST",
        "/v1/dreams",
        "MemoryStore",
        lambda value, home: _dream(
            home("MemoryStore"),
            home,
            output_behavior={"type": "update_existing", "memory_store_id": value},
        ),
    ),
    ("VersionsQuery", "memory_id"): SdkCall(
        "GET", "/v1/memory_stores/{store_id}/memory_versions", "StoreMemory", query="memory_id"
    ),
    ("ModelConfig", "id"): "a model's name",
    ("CreateStore", "name"): "the name of a new store",
    ("UpdateStore", "name"): "a store's new name",
    ("VersionsQuery", "api_key_id"): "not swept yet: a listing's filter by the API key",
    ("VersionsQuery", "service_account_id"): "not swept yet: a listing's filter by MCP client",
    ("VersionsQuery", "session_id"): "not swept yet: a listing's filter by an agent's session",
}


def input_fields() -> list[tuple[str, str]]:
    """(model, field) for every id-like field of every input model of the SDK's routes."""
    found = []
    for module in MODULES:
        for name, cls in vars(module).items():
            if not (inspect.isclass(cls) and issubclass(cls, BaseModel)):
                continue
            if cls.__module__ != module.__name__ or not issubclass(cls, INPUT_BASES):
                continue
            found.extend((name, field) for field in cls.model_fields if IDISH.search(field))
    return found
