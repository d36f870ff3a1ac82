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

A list of plain objects is completed a field at a time over the whole list (``list_of_objects``:
one reader call a value, a column's types checked at once, the dicts made by one
comprehension), and so is a field of objects over such a list (a column of objects: a page's
nodes, each node's relation); a list holding anything else is completed item by item, as a lone
object is. What a kind of value is (an error, a coroutine, Undefined) is checked once a plan; an
``__await__`` of a value's own is looked for on each value, as graphql-core does.

An object with fields that are not plain (I/O, ``info``) is ``Mixed``: its plain fields are
read by their completers and graphql-core executes the others, as it would have.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from inspect import CO_VARARGS, CO_VARKEYWORDS, iscoroutine
from itertools import repeat
from types import CoroutineType, GeneratorType, NoneType
from typing import Any, NoReturn
from weakref import WeakKeyDictionary

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


# Of a leaf's completer: the types of the values it gives back unchanged (a column of values
# all of these types is its own answer).
_UNCHANGED_BY: WeakKeyDictionary[Complete, frozenset[type]] = WeakKeyDictionary()
# Of an object's completer (``object_of``, or ``non_null`` of one): its fields and whether it
# is non-null, so that a column of such objects is completed as a list of them.
_OBJECTS: WeakKeyDictionary[Complete, tuple[tuple[PlannedField, ...], bool]] = WeakKeyDictionary()
# A type none of whose instances graphql-core takes for an error or an awaitable, save one
# with an ``__await__`` of its own (looked for on each value).
_NOT_PLAIN = (Exception, CoroutineType, GeneratorType, type(Undefined), NoneType)


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

    if unchanged is not None:
        _UNCHANGED_BY[complete] = frozenset((unchanged,) if required else (unchanged, NoneType))
    elif _gives_back(coerce):  # JSON: every common leaf is its own answer
        _UNCHANGED_BY[complete] = COMMON_LEAVES if required else COMMON_LEAVES | {NoneType}
    return complete


def _gives_back(serialise: Callable[..., Any]) -> bool:
    """Whether a serialiser is a function of one argument that returns it unchanged, as
    Strawberry's JSON scalar's ``lambda v: v`` (the same bytecode as ``identity``)."""
    code = getattr(serialise, "__code__", None)
    return (
        code is not None
        and code.co_code == identity.__code__.co_code
        and code.co_argcount == 1
        and not code.co_flags & (CO_VARARGS | CO_VARKEYWORDS)
    )


def non_null(inner: Complete) -> Complete:
    """A non-null wrapper: None (here or below, unless caught) is graphql-core's error."""

    def complete(value: Any) -> Any:
        out = inner(value)
        if out is None:
            raise Unplanned
        return out

    of_object = _OBJECTS.get(inner)
    if of_object is not None:
        _OBJECTS[complete] = (of_object[0], True)
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
    plain: set[type] = set()  # the kinds of value met that are no error, coroutine, Undefined…

    def complete(value: Any) -> Any:
        if value is None:
            return None
        kind = type(value)
        if kind in plain:  # a kind's checks once; an ``__await__`` of its own on each value
            if hasattr(value, "__await__"):
                _refuse(value)
        elif _suspect(value):
            _refuse(value)
        elif not issubclass(kind, _NOT_PLAIN):
            plain.add(kind)
        return {key: done(read(value)) for key, read, done in fields}

    _OBJECTS[complete] = (fields, False)
    return complete


def _column(read: Read, done: Complete) -> Callable[[Sequence[Any]], list[Any]]:
    """One field of every object of a list: read, then completed (unless every value is one its
    leaf gives back unchanged); a column of objects as a list of objects, field by field."""
    unchanged = _UNCHANGED_BY.get(done)
    of_objects = _OBJECTS.get(done)
    objects = list_of_objects(*of_objects) if of_objects is not None else None

    def complete(values: Sequence[Any]) -> list[Any]:
        column = list(map(read, values))
        if unchanged is not None and set(map(type, column)) <= unchanged:
            return column
        if objects is not None:
            return objects(column)  # type: ignore[no-any-return]
        return list(map(done, column))

    return complete


def _dicts_of(keys: tuple[str, ...]) -> Callable[..., list[dict[str, Any]]]:
    """A function of a list's completed columns, in order, giving each object's dict: a
    comprehension with a dict display for up to four fields (no call an object; a display is a
    third of the cost of ``dict(zip(keys, values))``)."""
    if len(keys) == 1:
        (k1,) = keys
        return lambda c1: [{k1: v1} for v1 in c1]
    if len(keys) == 2:
        k1, k2 = keys
        return lambda c1, c2: [{k1: v1, k2: v2} for v1, v2 in zip(c1, c2, strict=True)]
    if len(keys) == 3:
        k1, k2, k3 = keys
        return lambda c1, c2, c3: [
            {k1: v1, k2: v2, k3: v3} for v1, v2, v3 in zip(c1, c2, c3, strict=True)
        ]
    if len(keys) == 4:
        k1, k2, k3, k4 = keys
        return lambda c1, c2, c3, c4: [
            {k1: v1, k2: v2, k3: v3, k4: v4} for v1, v2, v3, v4 in zip(c1, c2, c3, c4, strict=True)
        ]
    return lambda *columns: [
        dict(zip(keys, values, strict=True)) for values in zip(*columns, strict=True)
    ]


def list_of_objects(fields: tuple[PlannedField, ...], required: bool) -> Complete:
    """A list of objects (non-null ones when ``required``), field by field over the whole
    list: what ``list_of(non_null(object_of(fields)))`` (or without ``non_null``) gives, with
    each field's reads and checks made for the whole column at once (a None item of a list of
    nullable objects stays None). A list holding anything but plain objects (an error, an
    awaitable; None where items are non-null) is completed item by item."""
    one = object_of(fields)
    each = non_null(one) if required else one
    if not fields:  # every field skipped: an empty object an item (no column to zip)
        return list_of(each)
    make = _dicts_of(tuple(key for key, _read, _done in fields))
    columns = tuple(_column(read, done) for _key, read, done in fields)
    plain: set[type] = set()  # the kinds of item met that are no error, coroutine, None…

    def objects(items: Sequence[Any]) -> list[dict[str, Any]]:
        return make(*[column(items) for column in columns])

    def complete(value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, LISTS):
            _refuse(value)
        kinds = set(map(type, value))
        if not required and NoneType in kinds:
            kinds.discard(NoneType)
            if not _plain_kinds(kinds, plain) or any(map(hasattr, value, repeat("__await__"))):
                return [each(item) for item in value]
            done = iter(objects([item for item in value if item is not None]))
            return [None if item is None else next(done) for item in value]
        if not _plain_kinds(kinds, plain) or any(map(hasattr, value, repeat("__await__"))):
            return [each(item) for item in value]
        return objects(value)

    return complete


def _plain_kinds(kinds: set[type], plain: set[type]) -> bool:
    """Whether no value of these kinds is an error, a coroutine, a generator, Undefined or
    None (``plain``: those known so far, added to)."""
    if kinds <= plain:
        return True
    if any(issubclass(kind, _NOT_PLAIN) for kind in kinds):
        return False
    plain |= kinds
    return True


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
