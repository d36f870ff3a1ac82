"""Plain fields bypass Strawberry's per-field wrapper (schema/direct.py); the rest keep it."""

from typing import Any

from strawberry import ID
from strawberry.types.arguments import convert_arguments
from strawberry.types.base import StrawberryOptional

from schema.cards.queries import TurnInput
from schema.direct import ASYNC_DIRECT, DIRECT, AsyncDirect
from schema.schema import schema


def resolver_module(type_name: str, field: str) -> str:
    gql_type = schema._schema.type_map[type_name]
    resolve = gql_type.fields[field].resolve  # type: ignore[union-attr]
    return getattr(resolve, "__module__", "")


def test_plain_fields_get_direct_resolvers():
    for type_name, field in [
        ("Record", "label"),
        ("Record", "id"),
        ("Record", "relation"),
        ("RecordEdge", "cursor"),
        ("PageInfo", "hasNextPage"),
        ("Me", "name"),
        ("Skill", "dormant"),  # plain fields filled by from_row
        ("SkillFile", "script"),
        ("Object", "permissions"),
    ]:
        assert resolver_module(type_name, field) == "schema.direct", (type_name, field)


def test_async_fields_asking_for_info_are_called_directly_but_never_planned():
    for type_name, field in [
        ("Record", "owner"),  # async, asks for info
        ("Record", "changes"),  # async, asks for info, an argument
        ("Skill", "files"),  # async, asks for info
        ("Query", "records"),  # root field; its input object goes through Strawberry
        ("Query", "catalogPreview"),  # an argument named `source`
    ]:
        gql_field = schema._schema.type_map[type_name].fields[field]  # type: ignore[union-attr]
        assert resolver_module(type_name, field) == "schema.direct", (type_name, field)
        assert DIRECT not in (gql_field.extensions or {}), (type_name, field)


def test_fields_that_need_strawberry_keep_it():
    for type_name, field in [
        ("Query", "me"),  # synchronous, asks for info
        ("Subscription", "memoryUpdated"),  # a subscription
    ]:
        assert resolver_module(type_name, field) != "schema.direct", (type_name, field)


def async_direct(type_name: str, field: str) -> AsyncDirect:
    gql_field = schema._schema.type_map[type_name].fields[field]  # type: ignore[union-attr]
    found = (gql_field.extensions or {})[ASYNC_DIRECT]
    assert isinstance(found, AsyncDirect)
    return found


def strawberry_converts(direct: AsyncDirect, values: dict[str, Any]) -> dict[str, Any]:
    return convert_arguments(
        values, direct.field.arguments, scalar_registry=direct.scalars, config=direct.config
    )


def test_optional_plain_arguments_and_nulls_are_passed_as_coerced():
    """`first: Int` (an `int | None`) is plain; a null for any optional argument is None; an
    input object still goes through Strawberry."""
    records = async_direct("Query", "records")
    assert records.plain == {"object": "object", "first": "first", "after": "after"}
    assert set(records.nullable) == {"first", "after", "filter"}
    for values in [
        {"object": "contacts", "first": 20},
        {"object": "contacts", "first": None, "after": None},
        {"object": "contacts", "filter": None},
        {"object": "contacts", "first": 3, "after": "x", "filter": None},
    ]:
        assert records.arguments(values) == strawberry_converts(records, values)
    # RecordFilter holds a list of inputs: Strawberry converts it.
    assert "filter" not in records.inputs
    assert records.arguments({"object": "contacts", "filter": {"labelContains": "a"}}) is None


def test_every_async_direct_fields_plain_arguments_convert_as_strawberry_does():
    samples: dict[type, Any] = {str: "x", int: 3, float: 1.5, bool: True}
    checked = 0
    for type_ in schema._schema.type_map.values():
        for gql_field in getattr(type_, "fields", {}).values() if hasattr(type_, "fields") else ():
            direct = (gql_field.extensions or {}).get(ASYNC_DIRECT)
            if not isinstance(direct, AsyncDirect):
                continue
            values: dict[str, Any] = {name: None for name in direct.nullable}
            for argument in direct.field.arguments:
                name = schema.config.name_converter.from_argument(argument)
                resolved = argument.type_annotation.resolve()
                plain = getattr(resolved, "of_type", resolved)
                if name in direct.plain and plain in samples:
                    values[name] = samples[plain]
            assert direct.arguments(values) == strawberry_converts(direct, values), gql_field
            checked += bool(values)
    assert checked > 10


def leaf_samples(direct: AsyncDirect, name: str) -> list[dict[str, Any]]:
    """Values graphql-core may give an input object of leaf fields: every field set, only the
    non-null ones, and every optional one null."""
    argument = next(
        a for a in direct.field.arguments if schema.config.name_converter.from_argument(a) == name
    )
    resolved = argument.type_annotation.resolve()
    definition = getattr(resolved, "of_type", resolved).__strawberry_definition__
    samples: dict[Any, Any] = {str: "x", ID: "id-1", int: 3, float: 1.5, bool: True}
    every, required, nulls = {}, {}, {}
    for field in definition.fields:
        graphql_name = schema.config.name_converter.from_field(field)
        type_ = field.resolve_type(type_definition=definition)
        optional = isinstance(type_, StrawberryOptional)
        every[graphql_name] = samples[type_.of_type if optional else type_]
        if optional:
            nulls[graphql_name] = None
        else:
            required[graphql_name] = every[graphql_name]
    return [every, required, {**required, **nulls}]


def test_input_objects_of_leaf_fields_are_built_as_strawberry_builds_them():
    """turnContext's TurnInput and the others of only strings, IDs, numbers and booleans are
    built without Strawberry's conversion, into the same objects; others still go through it."""
    found = set()
    for type_ in schema._schema.type_map.values():
        for field_name, gql_field in getattr(type_, "fields", {}).items():
            direct = (gql_field.extensions or {}).get(ASYNC_DIRECT)
            if not isinstance(direct, AsyncDirect):
                continue
            for name in direct.inputs:
                found.add((type_.name, field_name))
                for value in [*leaf_samples(direct, name), None]:
                    values = {name: value}
                    if value is None and name not in direct.nullable:
                        continue
                    built = direct.arguments(values)
                    assert built == strawberry_converts(direct, values), (field_name, value)
    assert ("Query", "turnContext") in found and ("Query", "recall") in found
    assert async_direct("Query", "turnContext").arguments({"input": {"message": "hi"}}) == {
        "input": TurnInput(message="hi")
    }
