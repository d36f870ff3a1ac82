"""Every door that takes an id, found from the GraphQL schema, the app's route table and the
MCP server's tools and resource templates, each with the kind of thing its id names.

A slot is one place a door reads an id (an argument, a field of an input, a path parameter, a
tool's argument, a resource's name). Its kind is derived from its name (``recordId`` names a
record); the few slots a name does not say are in ``SLOT_KINDS``, and the names that are keys
a caller makes up rather than references (``externalId``) in ``NOT_REFERENCES``. A slot none of
these covers is ``uncovered``: the sweep fails on it, so a new door is seen the day it appears."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    get_named_type,
)
from graphql.pyutils import Undefined
from starlette.routing import BaseRoute, Route

from gateway.anthropic.errors import ANTHROPIC_PREFIXES
from gateway.http.openapi import OPERATIONS
from gateway.mcp.refs import KINDS as REF_KINDS
from gateway.mcp.server import RESOURCE_TEMPLATES
from gateway.mcp.tools import TOOLS

# Names that say what they name, wherever they appear (GraphQL arguments and input fields,
# path parameters, MCP arguments; camelCase or snake_case).
NAME_KINDS = {
    "recordId": "Record",
    "recordIds": "Record",
    "attachedRecordId": "Record",
    "relatedTo": "Record",
    "pageId": "MemoryPage",
    "versionId": "MemoryVersion",
    "agentId": "Agent",
    "personId": "Member",
    "ownerId": "Member",
    "speakerId": "Member",
    "routineId": "Routine",
    "mailboxId": "Mailbox",
    "memoryStoreId": "MemoryStore",
    "skillId": "Skill",
    "conversationId": "Conversation",
    "name": "SkillName",
}
# Where a name does not say: (door, slot) -> kind.
SLOT_KINDS = {
    ("Mutation.trashRecord", "id"): "Record",
    ("Mutation.deleteMeeting", "id"): "Meeting",
    ("Mutation.setAgentSkills", "id"): "Agent",
    ("Query.memoryProfile", "id"): "Member",
    ("Query.approval", "id"): "CatalogApproval",
    ("Mutation.decideApproval", "id"): "CatalogApproval",
    ("mcp tool trash_record", "id"): "Record",
    ("mcp tool write_records", "records"): "Record",
}
# Path parameters: snake_case, as the SDK's routes name them.
PARAM_KINDS = {
    "store_id": "MemoryStore",
    "memory_id": "StoreMemory",
    "version_id": "StoreMemoryVersion",
    "dream_id": "Dream",
    "skill_id": "Skill",
    "version": "SkillVersion",
}
# Path parameters named `id` name what the segment before them names.
SEGMENT_KINDS = {
    "records": "Record",
    "sessions": "Conversation",
    "meetings": "Meeting",
    "mailboxes": "Mailbox",
    "skills": "Skill",
}
# Keys a caller makes up for something new (or a value that names no thing of a workspace),
# never a reference to something it might not read: why each is no id here.
NOT_REFERENCES = {
    "messageId": "the caller's own key for a new message of its own conversation",
    "externalId": "the caller's own key for what it records (a meeting, a run, a mailbox)",
    "threadId": "the mail's own thread key, inside the caller's mailbox",
    "parentRunId": "the caller's own key for an earlier run it recorded",
    ("Mutation.createAgent", "name"): "the name of a new agent",
    ("Mutation.addShippedSkill", "name"): "the name of a skill the product ships",
    "key": "a preference's name (MemoryPreferenceKey)",
    "object": "an object's slug, the same in every workspace (companies)",
}
# The GraphQL types an `id` argument is taken to name when the field answers one of them.
RETURN_KINDS = {"Record", "MemoryPage", "MemoryVersion", "Agent"}
IDISH = re.compile(r"(^|[a-z_])(id|Id|ids|Ids|_id|_ids)$|^(name|ref|records)$")


@dataclass(frozen=True)
class Slot:
    """One place a door reads an id: the door, where in it, and the kind it names (None:
    uncovered)."""

    door: str
    where: str
    kind: str | None


def kind_of(door: str, where: str) -> str | None:
    """The kind a slot names; ``"-"`` for no reference; None when nothing says."""
    last = where.rsplit(".", 1)[-1]
    camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), last)
    if (door, where) in SLOT_KINDS:
        return SLOT_KINDS[(door, where)]
    if (door, where) in NOT_REFERENCES or camel in NOT_REFERENCES:
        return "-"
    if camel == "name" and where != "name":
        return "-"  # an input's name is the name of what it creates
    return NAME_KINDS.get(camel)


# GraphQL ---------------------------------------------------------------------------------


def is_idish(name: str, type_: GraphQLInputType) -> bool:
    named = get_named_type(type_)
    return named.name == "ID" or (named.name == "String" and bool(IDISH.search(name)))


def input_paths(name: str, type_: GraphQLInputType) -> Iterator[tuple[str, GraphQLInputType]]:
    """Every id-like place under an argument: itself, or the fields of its input type."""
    named = get_named_type(type_)
    if isinstance(named, GraphQLInputObjectType):
        for field_name, field in named.fields.items():
            for path, inner in input_paths(field_name, field.type):
                yield f"{name}.{path}", inner
    elif is_idish(name, type_):
        yield name, type_


def graphql_slots(schema: GraphQLSchema) -> list[Slot]:
    """The id slots of every root field (subscriptions included)."""
    found = []
    for root in (schema.query_type, schema.mutation_type, schema.subscription_type):
        if root is None:
            continue
        for field_name, field in root.fields.items():
            door = f"{root.name}.{field_name}"
            for arg_name, arg in field.args.items():
                for where, _ in input_paths(arg_name, arg.type):
                    kind = kind_of(door, where)
                    if where == "id" and kind is None:
                        kind = returned_kind(field)
                    found.append(Slot(door, where, kind))
    return found


def returned_kind(field: GraphQLField) -> str | None:
    named = get_named_type(field.type)
    return named.name if named.name in RETURN_KINDS else None


def minimal(type_: GraphQLInputType) -> Any:
    """The least value a required argument of ``type_`` takes."""
    if isinstance(type_, GraphQLNonNull):
        return minimal(type_.of_type)
    if isinstance(type_, GraphQLList):
        return []
    if isinstance(type_, GraphQLInputObjectType):
        return {
            name: minimal(field.type)
            for name, field in type_.fields.items()
            if isinstance(field.type, GraphQLNonNull) and field.default_value is Undefined
        }
    if isinstance(type_, GraphQLEnumType):
        return next(iter(type_.values))
    return SCALARS[type_.name]


SCALARS: dict[str, Any] = {
    "String": "x",
    "ID": "x",
    "Int": 1,
    "Float": 1.0,
    "Boolean": False,
    "DateTime": "2026-12-01T09:00:00+00:00",
    "JSON": {},
}


def with_value(type_: GraphQLInputType, base: Any, path: list[str], value: Any) -> Any:
    """``base`` (a value of ``type_``) with ``value`` put at ``path`` (lists get one item)."""
    if isinstance(type_, GraphQLNonNull):
        return with_value(type_.of_type, base, path, value)
    if isinstance(type_, GraphQLList):
        item = base[0] if base else minimal(type_.of_type)
        return [with_value(type_.of_type, item, path, value)]
    if not path:
        return value
    assert isinstance(type_, GraphQLInputObjectType)
    head, rest = path[0], path[1:]
    given = dict(base or {})
    given[head] = with_value(type_.fields[head].type, given.get(head), rest, value)
    return given


def operation(root: str, field_name: str, field: GraphQLField, arguments: dict[str, Any]) -> str:
    """The operation text asking ``field`` with ``arguments`` as variables."""
    kind = {"Query": "query", "Mutation": "mutation", "Subscription": "subscription"}[root]
    declared = ", ".join(f"${name}: {field.args[name].type}" for name in arguments)
    passed = ", ".join(f"{name}: ${name}" for name in arguments)
    selection = selected(get_named_type(field.type), 2)
    head = f"({declared})" if declared else ""
    call = f"({passed})" if passed else ""
    return f"{kind} Sweep{head} {{ {field_name}{call}{selection} }}"


def selected(type_: Any, depth: int) -> str:
    """The fields of an answer the sweep compares: every field that takes no required
    argument, objects ``depth`` levels down (``__typename`` at the bottom)."""
    if not isinstance(type_, GraphQLObjectType | GraphQLInterfaceType):
        return "" if not isinstance(type_, GraphQLUnionType) else " { __typename }"
    parts = ["__typename"]
    for name, field in type_.fields.items():
        if any(isinstance(a.type, GraphQLNonNull) for a in field.args.values()):
            continue
        named = get_named_type(field.type)
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType | GraphQLUnionType):
            if depth > 1:
                parts.append(name + selected(named, depth - 1))
        else:
            parts.append(name)
    return " { " + " ".join(parts) + " }"


# The HTTP routes -------------------------------------------------------------------------


def route_slots(routes: list[BaseRoute]) -> list[tuple[Slot, str, str]]:
    """(slot, method, path) for every path parameter of every route (and, where a path has
    several, one slot moving all of them together: ``*``)."""
    found = []
    for route in routes:
        if not isinstance(route, Route) or not route.param_convertors:
            continue
        for method in sorted((route.methods or set()) - {"HEAD"}):
            door = f"{method} {route.path}"
            params = list(route.param_convertors)
            for param in params:
                found.append(
                    (Slot(door, param, path_kind(door, route.path, param)), method, route.path)
                )
            if sum(1 for p in params if path_kind(door, route.path, p) != "-") > 1:
                found.append((Slot(door, "*", "*"), method, route.path))
    return found


def path_kind(door: str, path: str, param: str) -> str | None:
    if param == "id":
        segments = path.split("/")
        before = [s for s in segments[: segments.index("{id}")] if not s.startswith("{")]
        return SEGMENT_KINDS.get(before[-1])
    if param in PARAM_KINDS:
        return PARAM_KINDS[param]
    return kind_of(door, param)


def body_slots() -> list[tuple[Slot, str, str]]:
    """(slot, method, path) for every id-like field of every documented route's JSON body
    (``body.messages[].recordIds[]``: ``[]`` where the body holds a list)."""
    found = []
    for operation_ in OPERATIONS:
        if operation_.body is None:
            continue
        method, door = operation_.method.upper(), f"{operation_.method.upper()} {operation_.path}"
        schema = operation_.body.model_json_schema(by_alias=True)
        for where in body_paths(schema, schema.get("$defs", {}), "body"):
            kind = kind_of(door, where.replace("[]", ""))
            found.append((Slot(door, where, kind), method, operation_.path))
    return found


def body_paths(schema: dict[str, Any], defs: dict[str, Any], at: str) -> Iterator[str]:
    """The id-like fields under a JSON schema, by path."""
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    for name, given in schema.get("properties", {}).items():
        shape = next((a for a in given.get("anyOf", []) if a.get("type") != "null"), given)
        items = shape.get("items", {}) if shape.get("type") == "array" else {}
        if "$ref" in shape or shape.get("type") == "object":
            yield from body_paths(shape, defs, f"{at}.{name}")
        elif "$ref" in items:
            yield from body_paths(items, defs, f"{at}.{name}[]")
        elif IDISH.search(name):
            yield f"{at}.{name}" + ("[]" if items else "")


def sdk_style(path: str) -> bool:
    """Whether a route spells ids as the Anthropic SDK does (``memstore_…``)."""
    return any(path == p or path.startswith(p + "/") for p in ANTHROPIC_PREFIXES)


# MCP -------------------------------------------------------------------------------------


def mcp_slots() -> list[Slot]:
    """Every id-like argument of every tool, and every resource template's name."""
    found = []
    for tool in TOOLS:
        door = f"mcp tool {tool.name}"
        for prop in tool.input_schema.get("properties", {}):
            if prop == "ref":
                found.extend(
                    Slot(door, f"ref:{kind}", REF_SLOT_KINDS.get(kind)) for kind in REF_KINDS
                )
            elif IDISH.search(prop):
                found.append(Slot(door, prop, kind_of(door, prop)))
    for template in RESOURCE_TEMPLATES:
        door = f"mcp resource {template.uriTemplate}"
        found.append(Slot(door, "name", kind_of(door, "name")))
    return found


# What each kind a `read` reference starts with names.
REF_SLOT_KINDS = {
    "memory": "MemoryPage",
    "record": "Record",
    "skill": "SkillName",
    "approval": "CatalogApproval",
    "catalog": "-",  # a source outside (shipped:<name>, owner/repo): no workspace's thing
}
