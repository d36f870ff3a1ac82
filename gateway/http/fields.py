"""A plain route's JSON body read field by field: each field's reader says whether its value is
of the right kind, and ``fields`` lists every problem at once (an unknown field, a missing
required one, a value of the wrong kind) while the resolver checks the rest."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from resolvers.common.errors import Problem

Reader = Callable[[Any], tuple[bool, Any]]


def text(value: Any) -> tuple[bool, Any]:
    return isinstance(value, str), value


def flag(value: Any) -> tuple[bool, Any]:
    return isinstance(value, bool), value


def moment(value: Any) -> tuple[bool, Any]:
    if not isinstance(value, str):
        return False, None
    try:
        return True, datetime.fromisoformat(value)
    except ValueError:
        return False, None


def texts(value: Any) -> tuple[bool, Any]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value), value


def objects(value: Any) -> tuple[bool, Any]:
    return isinstance(value, list) and all(isinstance(v, dict) for v in value), value


_SAYS: dict[Reader, str] = {
    text: "a string",
    flag: "true or false",
    moment: "an ISO 8601 time with its offset",
    texts: "a list of strings",
    objects: "a list of objects",
}
# What a field of the wrong kind, or a required one missing, holds while the resolver checks
# the rest of the input (it never checks that field again: its problem is listed already).
_STAND_INS: dict[Reader, Any] = {text: "", flag: False, moment: None, texts: [], objects: []}


def fields(
    body: dict[str, Any], spec: dict[str, Reader], required: tuple[str, ...], where: str = ""
) -> tuple[dict[str, Any], list[Problem]]:
    """The body's fields read by ``spec`` (absent or null: None, or a required one's
    stand-in), and every problem of their kinds, each at ``where`` + its name."""
    problems = [Problem("unknown field", f"{where}{name}") for name in body if name not in spec]
    found: dict[str, Any] = {}
    for name, read in spec.items():
        value = body.get(name)
        if value is not None:
            ok, found[name] = read(value)
            if ok:
                continue
            problems.append(Problem(_SAYS[read], f"{where}{name}"))
        elif name in required:
            problems.append(Problem("required", f"{where}{name}"))
        found[name] = _STAND_INS[read] if name in required else None
    return found, problems
