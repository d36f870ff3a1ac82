"""Plain fields bypass Strawberry's per-field wrapper (schema/direct.py); the rest keep it."""

from schema.direct import DIRECT
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
