"""The planned executor (schema/planned.py) on a small schema of its own: every answer, data
and errors, is graphql-core's, byte for byte; a clean plain subtree is read once (the plan ran),
and anything unexpected (None at a non-null position, a reader that raises, a leaf that does
not serialise, an awaitable) is completed again by graphql-core, its errors and nulls."""

from __future__ import annotations

import asyncio
import gc
import warnings
from dataclasses import dataclass, field
from enum import Enum
from inspect import isawaitable
from operator import attrgetter
from typing import Any

import orjson
import pytest
from graphql import GraphQLEnumType, GraphQLObjectType, build_schema, execute, parse

from schema.direct import DIRECT, Direct
from schema.plan import _gives_back
from schema.planned import PlannedExecutor, Plans

SDL = """
enum Color { RED GREEN }
scalar JSON
interface Named { name: String! }
type Person implements Named { name: String! friends: [Person!] }
type Item {
  id: ID!
  name: String!
  size: Int
  weight: Float
  ok: Boolean
  color: Color
  data: JSON
  tags: [String!]!
  owner: Person
  named: Named
  label(prefix: String = "#"): String!
  later: String
  slow: String
}
type Query { items: [Item!]!  item: Item  maybeItems: [Item]  count: Int }
"""


class Color(Enum):
    RED = "red"
    GREEN = "green"


@dataclass
class Person:
    name: Any
    friends: list[Person] | None = None


READS: list[str] = []


@dataclass
class Item:
    id: Any = "1"
    name: Any = "one"
    size: Any = 3
    weight: Any = 1.5
    ok: Any = True
    color: Any = Color.RED
    data: Any = field(default_factory=lambda: {"a": [1, "b", None]})
    tags: Any = field(default_factory=lambda: ["x", "y"])
    owner: Any = None
    named: Any = None
    later_value: Any = "now"

    def label(self, prefix: str) -> str:
        READS.append(self.id)
        if self.name == "boom":
            raise ValueError("the label broke")
        return f"{prefix}{self.name}"

    def later(self) -> Any:
        if self.later_value == "coroutine":
            return _later()
        return self.later_value


async def _later() -> str:
    return "awaited"


async def _slow(item: Item, _info: Any) -> str:
    if item.name == "slow boom":
        raise ValueError("slow broke")
    return f"slow {item.id}"


def _schema() -> Any:
    schema = build_schema(SDL)
    for type_name in ("Person", "Item"):
        gql_type = schema.type_map[type_name]
        assert isinstance(gql_type, GraphQLObjectType)
        for name, gql_field in gql_type.fields.items():
            if name in ("named", "slow"):
                continue  # an interface, an async resolver: graphql-core's alone
            read = getattr(Item, name) if name in ("label", "later") else attrgetter(name)
            names = {"prefix": "prefix"} if name == "label" else {}
            gql_field.extensions = {DIRECT: Direct(read, names)}
            gql_field.resolve = _resolver(read, names)
    color = schema.type_map["Color"]
    assert isinstance(color, GraphQLEnumType)
    for value in color.values.values():
        value.value = Color[value.value]  # Python enum members, as Strawberry gives them
    schema.type_map["Named"].resolve_type = lambda *_: "Person"  # type: ignore[union-attr]
    schema.type_map["Item"].fields["slow"].resolve = _slow  # type: ignore[union-attr]
    return schema


def _resolver(read: Any, names: dict[str, str]) -> Any:
    return lambda source, _info, **kwargs: read(source, **{names[k]: v for k, v in kwargs.items()})


SCHEMA = _schema()


def answer(result: Any) -> bytes:
    errors = [e.formatted for e in result.errors or []]
    return orjson.dumps({"data": result.data, "errors": errors})


def run_both(
    query: str,
    root: dict[str, Any],
    variables: dict[str, Any] | None = None,
    plans: Plans | None = None,
) -> tuple[bytes, bytes]:
    """graphql-core's answer and the planned executor's, over the same document (in an event
    loop, as the server runs them: graphql-core settles abandoned awaitables in it)."""
    document = parse(query)

    async def both() -> tuple[Any, Any]:
        plain = execute(SCHEMA, document, root, variable_values=variables)
        planned = execute(
            SCHEMA,
            document,
            root,
            variable_values=variables,
            executor_class=PlannedExecutor,
            plans={} if plans is None else plans,
        )
        return (
            await plain if isawaitable(plain) else plain,
            await planned if isawaitable(planned) else planned,
        )

    plain, planned = asyncio.run(both())
    return answer(plain), answer(planned)


# Answers without an error among the cases below.
CLEAN = (
    "{ item { size weight ok } }",
    "{ item { name id } }",
    "{ item { named { name ... on Person { friends { name } } } } }",
)
ALL = "{ items { id name size weight ok color data tags label later owner { name } } }"


def test_a_clean_plain_subtree_is_read_once_and_answers_as_graphql_core():
    items = [Item(id=str(i), name=f"n{i}", owner=Person("p", [Person("q")])) for i in range(3)]
    READS.clear()
    plain, planned = run_both(ALL, {"items": items})
    assert plain == planned
    # graphql-core read each label once, the plan once more: no second completion.
    assert READS == ["0", "1", "2"] * 2


@pytest.mark.parametrize(
    ("query", "items"),
    [
        (ALL, [Item(), Item(name=None)]),  # None at a non-null position: items is null
        ("{ maybeItems { name } }", [Item(), Item(name=None), None]),  # the item alone
        ("{ item { label } }", [Item(name="boom")]),  # a reader raises
        ("{ maybeItems { label } }", [Item(), Item(name="boom")]),
        ("{ item { size } }", [Item(size="many")]),  # a leaf that does not serialise
        ("{ item { size weight ok } }", [Item(size=True, weight=2, ok=0)]),  # coerced leaves
        ("{ item { name id } }", [Item(id=7, name=True)]),  # coerced: "true", "7"
        ("{ item { id ok } }", [Item(ok="yes")]),  # not a Boolean
        ("{ item { tags } }", [Item(tags=["a", None])]),  # None in a list of non-null
        ("{ item { tags } }", [Item(tags="ab")]),  # a string is not a list for the plan
        ("{ item { color } }", [Item(color="purple")]),  # not a member of the enum
        ("{ item { owner { name friends { name } } } }", [Item(owner=Person(None))]),
        ("{ item { id name } }", [Item(id=ValueError("an exception as a value"))]),
        (
            "{ item { named { name ... on Person { friends { name } } } } }",
            [Item(named=Person("n"))],
        ),
    ],
)
def test_what_the_plan_does_not_expect_gets_graphql_cores_errors(query: str, items: list[Item]):
    plain, planned = run_both(query, {"items": items, "item": items[0], "maybeItems": items})
    assert plain == planned
    clean = query in CLEAN  # coerced leaves, or an interface: no error
    assert (b'"errors":[]' in plain) is clean, plain


def test_an_awaitable_from_a_plain_reader_is_awaited_by_graphql_core_and_never_leaked():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain, planned = run_both("{ item { id later } }", {"item": Item(later_value="coroutine")})
        gc.collect()
    assert plain == planned
    assert b'"later":"awaited"' in planned


def test_aliases_fragments_typename_and_arguments():
    query = """
      query { a: items { ...F x: label(prefix: "<") label __typename }
              b: item { name ... on Item { name id } } }
      fragment F on Item { id n: name label(prefix: "!") }
    """
    items = [Item(id="1"), Item(id="2", name="two")]
    plain, planned = run_both(query, {"items": items, "item": items[1]})
    assert plain == planned
    assert b'"__typename":"Item"' in planned


def test_skip_and_include_by_variables_are_planned_per_request():
    query = "query($s: Boolean!, $p: String) { items { name @skip(if: $s) label(prefix: $p) } }"
    plans: Plans = {}
    root = {"items": [Item()]}
    for variables in ({"s": True, "p": "1"}, {"s": False, "p": "2"}, {"s": True}):
        plain, planned = run_both(query, root, variables, plans)
        assert plain == planned
    assert plans == {}  # a plan that reads variables lasts one request


def test_a_plan_without_variables_is_kept_with_the_document():
    plans: Plans = {}
    plain, planned = run_both(
        "{ items { name @include(if: false) id } }", {"items": [Item()]}, None, plans
    )
    assert plain == planned == b'{"data":{"items":[{"id":"1"}]},"errors":[]}'
    assert len(plans) == 1


def test_an_object_with_fields_that_are_not_plain_reads_the_plain_ones_by_plan():
    query = "{ items { id slow label named { name } __typename } }"
    items = [Item(id=str(i), named=Person(f"p{i}")) for i in range(3)]
    READS.clear()
    plain, planned = run_both(query, {"items": items})
    assert plain == planned
    assert READS == ["0", "1", "2"] * 2  # the plain fields were planned: read once each
    assert b'"slow":"slow 0"' in planned


@pytest.mark.parametrize(
    "items",
    [
        [Item(), Item(name="boom")],  # a plain field raises: graphql-core does the whole object
        [Item(), Item(name="slow boom")],  # an executed field raises
        [Item(), Item(name=None)],  # None at non-null among the plain fields
    ],
)
def test_a_mixed_object_meets_the_unexpected_as_graphql_core_does(items: list[Item]):
    query = "{ maybeItems { name slow label } items { name slow } }"
    plain, planned = run_both(query, {"items": items, "maybeItems": items})
    assert plain == planned
    assert b'"errors":[]' not in plain


def test_a_plan_that_cannot_be_made_leaves_the_request_to_graphql_core(monkeypatch):
    label = SCHEMA.type_map["Item"].fields["label"]
    # A reader whose argument names are wrong: making the plan raises, the request is unharmed.
    monkeypatch.setattr(label, "extensions", {DIRECT: Direct(Item.label, {})})
    READS.clear()
    plain, planned = run_both('{ items { label(prefix: "-") } }', {"items": [Item()]})
    assert plain == planned == b'{"data":{"items":[{"label":"-one"}]},"errors":[]}'
    assert READS == ["1", "1"]


def _awaitable_item() -> Item:
    item = Item()
    item.__await__ = lambda: iter(())  # type: ignore[attr-defined]  # graphql-core awaits it
    return item


@pytest.mark.parametrize(
    "query",
    [
        "{ items { id } }",
        "{ items { id name } }",
        "{ items { __typename id name } }",
        "{ items { id name ok color } }",
        ALL,  # more fields than the dict displays: dict(zip(...))
        "{ items { owner { name friends { name } } } }",  # lists of objects in objects
        "{ maybeItems { n: name size weight } }",
    ],
)
def test_a_list_of_plain_objects_is_completed_field_by_field_as_graphql_core_does(query: str):
    items = [
        Item(id=str(i), name=f"n{i}", ok=i % 2 == 0, owner=Person("p", [Person("q")]))
        for i in range(5)
    ]
    READS.clear()
    plain, planned = run_both(query, {"items": items, "maybeItems": items})
    assert plain == planned
    assert b'"errors":[]' in plain
    assert READS == ([str(i) for i in range(5)] * 2 if "label" in query else [])


@pytest.mark.parametrize(
    ("query", "items"),
    [
        ("{ items { id name } }", [Item(), Item(name=None)]),  # None at non-null: items null
        ("{ maybeItems { id name } }", [Item(), None, Item(name=None)]),  # None items
        ("{ items { id name } }", [Item(), None]),  # None where an item is non-null
        ("{ items { id name size ok } }", [Item(id=7, name=True, size=True, ok=1)]),  # coerced
        ("{ items { id size } }", [Item(), Item(size="many")]),  # a leaf that does not serialise
        ("{ maybeItems { name } }", [Item(), ValueError("an exception as an item")]),
        ("{ maybeItems { id label } }", [Item(), Item(name="boom")]),  # a reader raises
        ("{ maybeItems { id name } }", [Item(), _awaitable_item()]),  # an awaitable item
        ("{ items { id color } }", [Item(), Item(color="purple")]),  # not a member of the enum
    ],
)
def test_a_list_of_objects_with_the_unexpected_gets_graphql_cores_errors(
    query: str, items: list[Any]
):
    plain, planned = run_both(query, {"items": items, "maybeItems": items})
    assert plain == planned
    clean = "size ok" in query  # coerced leaves: no error
    assert (b'"errors":[]' in plain) is clean, plain


def _awaitable_person() -> Person:
    person = Person("a")
    person.__await__ = lambda: iter(())  # type: ignore[attr-defined]  # graphql-core awaits it
    return person


OWNERS = "{ items { id owner { name friends { name } } } maybeItems { owner { name } } }"


@pytest.mark.parametrize(
    ("owners", "clean"),
    [
        ([Person("a"), None, Person("b", [Person("c"), Person("d")])], True),  # None stays null
        ([None, None], True),
        ([Person("a"), Person(None)], False),  # None at non-null below: the owner is null
        ([Person("a"), ValueError("an exception as an object")], False),
        ([Person("a"), _awaitable_person()], False),  # an awaitable object
        ([None, _awaitable_person()], False),  # the same among nulls
        ([None, ValueError("an exception among nulls")], False),
        ([Person("a", [Person("b"), None])], False),  # None where a friend is non-null
        ([Person("a", "not a list")], False),  # type: ignore[arg-type]
    ],
)
def test_a_column_of_objects_is_completed_as_a_list_as_graphql_core_does(
    owners: list[Any], clean: bool
):
    items = [Item(id=str(i), owner=owner) for i, owner in enumerate(owners)]
    plain, planned = run_both(OWNERS, {"items": items, "maybeItems": items})
    assert plain == planned
    assert (b'"errors":[]' in plain) is clean, plain


def test_what_a_kind_was_found_to_be_does_not_hide_an_awaitable_or_an_error_later():
    """The checks of a kind of value are made once a plan; an ``__await__`` of a value's own,
    an error or None where it is not allowed are still found on the next requests."""
    plans: Plans = {}
    queries = [
        OWNERS,
        "{ item { owner { name } } }",
        "{ items { id name } maybeItems { id } }",
    ]
    for query in queries:
        items = [Item(owner=Person("a")), Item(owner=Person("b"))]
        plain, planned = run_both(
            query, {"items": items, "item": items[0], "maybeItems": items}, None, plans
        )
        assert plain == planned and b'"errors":[]' in plain
    for broken in (_awaitable_person(), ValueError("boom")):
        for query in queries[:2]:
            items = [Item(owner=Person("a")), Item(owner=broken)]
            root = {"items": items, "item": items[1], "maybeItems": items}
            plain, planned = run_both(query, root, None, plans)
            assert plain == planned and b'"errors":[]' not in plain, query
    items = [Item(), _awaitable_item()]
    plain, planned = run_both(queries[2], {"items": items, "maybeItems": items}, None, plans)
    assert plain == planned and b'"errors":[]' not in plain


@pytest.mark.parametrize(
    "values",
    [
        [{"a": 1}, [1, "b"], "c", 2, 2.5, True, None],  # each its own answer
        [{"a": 1}, ValueError("an exception as a value")],
        [{"a": 1}, Color.RED],  # not a common leaf: serialised as graphql-core does
    ],
)
def test_a_column_of_json_is_its_own_answer_when_each_value_is_a_common_leaf(values: list[Any]):
    items = [Item(id=str(i), data=value) for i, value in enumerate(values)]
    plain, planned = run_both("{ items { id data } }", {"items": items})
    assert plain == planned
    assert (b'"errors":[]' in plain) is all(not isinstance(v, Exception) for v in values)


def test_only_a_serialiser_that_gives_back_its_argument_is_taken_for_one():
    assert _gives_back(SCHEMA.type_map["JSON"].coerce_output_value)  # type: ignore[union-attr]
    assert _gives_back(lambda v: v)
    for serialiser in [
        lambda v: v + 1,
        lambda *v: v,
        lambda v, w=1: v,
        lambda v: str(v),
        SCHEMA.type_map["String"].coerce_output_value,  # type: ignore[union-attr]
        str,
    ]:
        assert not _gives_back(serialiser)
