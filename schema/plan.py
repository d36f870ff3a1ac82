"""Completers of plain values: what the planned executor (schema/planned.py) runs in place of
graphql-core's per-field execution.

A completer takes a value a resolver returned and gives its completed form (the dicts, lists
and serialised leaves graphql-core would give), reading every field of an object straight
from it: the field's direct reader (schema/direct.py), with its arguments coerced once when
planned. It only exists for a value whose whole subtree is plain: objects (never interfaces or
unions) whose selected fields are all direct, leaves, lists and non-null wrappers.

Errors are graphql-core's to produce: a completer never writes one. It raises on anything it
does not expect (None where the type is non-null, an exception or an awaitable as a value,
a leaf that does not serialise, a reader that raises) and the executor then completes the
same value the ordinary way, which gives graphql-core's own errors and null propagation.
Readers are plain (attribute reads, methods on ``self`` without I/O), so reading twice is
safe; a coroutine met on the way is closed before giving up, never left unawaited.

An object with fields that are not plain (I/O, ``info``) is ``Mixed``: its plain fields are
read by their completers and graphql-core executes the others, as it would have.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from inspect import iscoroutine
from typing import Any, NoReturn

from graphql import GraphQLLeafType
from graphql.pyutils import Undefined
from graphql.pyutils.is_awaitable import is_awaitable
from graphql.type.scalars import serialize_boolean, serialize_id, serialize_string

Complete = Callable[[Any], Any]
Read = Callable[[Any], Any]
# A planned field of an object: its response key, how to read it, how to complete it.
PlannedField = tuple[str, Read, Complete]

# Leaf values that are never awaitables, exceptions or Undefined: no further check.
COMMON_LEAVES = frozenset((str, int, float, bool, dict, list))
# Lists a completer walks itself; anything else iterable is left to graphql-core.
LISTS = (list, tuple)
# graphql-core's serialisers that give back a value of exactly this type unchanged.
UNCHANGED: dict[Callable[..., Any], type] = {
    serialize_string: str,
    serialize_id: str,
    serialize_boolean: bool,
}


class Unplanned(Exception):
    """A value the plan does not expect: graphql-core completes it instead."""


def _suspect(value: Any) -> bool:
    """A value graphql-core does not complete as a plain one."""
    return value is Undefined or isinstance(value, Exception) or is_awaitable(value)


def _refuse(value: Any) -> NoReturn:
    if iscoroutine(value):
        value.close()  # graphql-core calls the reader again and awaits its own coroutine
    raise Unplanned


def leaf(type_: GraphQLLeafType, required: bool = False) -> Complete:
    """A scalar or enum (non-null when ``required``): serialised by its own type, as
    graphql-core does; a str given to String or ID, a bool to Boolean, is its own answer."""
    coerce = type_.coerce_output_value
    unchanged = UNCHANGED.get(coerce)

    def complete(value: Any) -> Any:
        if type(value) is unchanged:
            return value
        if value is None:
            if required:
                raise Unplanned
            return None
        if type(value) not in COMMON_LEAVES and _suspect(value):
            _refuse(value)
        out = coerce(value)
        if out is None or out is Undefined:
            raise Unplanned
        return out

    return complete


def non_null(inner: Complete) -> Complete:
    """A non-null wrapper: None (here or below, unless caught) is graphql-core's error."""

    def complete(value: Any) -> Any:
        out = inner(value)
        if out is None:
            raise Unplanned
        return out

    return complete


def list_of(inner: Complete) -> Complete:
    """A list: each item completed by ``inner``."""

    def complete(value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, LISTS):
            _refuse(value)
        return [inner(item) for item in value]

    return complete


def object_of(fields: tuple[PlannedField, ...]) -> Complete:
    """An object: each selected field read and completed, in the order of the selection."""

    def complete(value: Any) -> Any:
        if value is None:
            return None
        if _suspect(value):
            _refuse(value)
        return {key: done(read(value)) for key, read, done in fields}

    return complete


def constant(value: Any) -> Read:
    """A field whose value is known when planned (``__typename``)."""
    return lambda _source: value


def identity(value: Any) -> Any:
    return value


@dataclass(frozen=True, slots=True)
class Mixed:
    """An object some of whose selected fields are plain: those are read by their plans, the
    others executed by graphql-core (``executed``), and the answer keeps the selection's order."""

    order: tuple[str, ...]
    planned: tuple[PlannedField, ...]
    executed: dict[str, Any]  # graphql-core's grouped field set of the other fields

    def read(self, value: Any) -> dict[str, Any]:
        """The plain fields' values; raises on anything a plan does not expect."""
        return {key: done(read(value)) for key, read, done in self.planned}

    def merge(self, planned: dict[str, Any], executed: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in self.order:
            if key in planned:
                out[key] = planned[key]
            elif key in executed:
                out[key] = executed[key]
        return out

    async def merge_later(
        self, planned: dict[str, Any], executed: Awaitable[dict[str, Any]]
    ) -> dict[str, Any]:
        return self.merge(planned, await executed)
