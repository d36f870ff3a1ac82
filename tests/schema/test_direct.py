"""Plain fields bypass Strawberry's per-field wrapper (schema/direct.py); the rest keep it."""

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


def test_fields_that_need_strawberry_keep_it():
    for type_name, field in [
        ("Record", "owner"),  # asks for info
        ("Record", "changes"),  # async, asks for info
        ("Skill", "files"),  # async, asks for info
        ("Query", "records"),  # root field with an input object
    ]:
        assert resolver_module(type_name, field) != "schema.direct", (type_name, field)
