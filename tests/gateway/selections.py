"""Valid GraphQL queries drawn over the whole schema, for the planned executor's differential
test: root fields that need no argument (or a known one on the demo), then random selections of
each type's fields, with aliases, repeated fields, inline fragments, __typename and @skip /
@include by literal or variable, a few levels deep."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLNonNull, GraphQLObjectType, get_named_type, is_leaf_type
from graphql.pyutils import Undefined
from hypothesis import strategies as st

from schema.schema import schema

SCHEMA = schema._schema
# Root fields and their arguments on the demo ($ACME_ID filled in by the test).
ROOTS = {
    "me": "",
    "workspace": "",
    "objects": "",
    "records": '(object: "contacts", first: 5)',
    "skills": "(first: 5)",
    "skill": '(name: "invoice-followup")',
    "skillCatalog": "",
    "skillsPanel": "",
    "myMemories": "",
    "myMemoryProposals": "",
    "memoryPreferences": "",
    "tenantSettings": "",
    "memoryMission": "",
    "memoryItems": "",
    "memoryCleanups": "",
    "agents": "",
    "shippedSkills": "",
    "catalogUpdates": "",
    "approvals": "",
    "search": '(q: "Acme")',
    "record": '(id: "$ACME_ID")',
    "memoryPageByRecord": '(recordId: "$ACME_ID")',
}
# Required arguments below the root, by type and field.
KNOWN_ARGUMENTS = {("Record", "relation"): '(attribute: "company")'}
DIRECTIVES = (
    "",
    "",
    "",
    " @include(if: true)",
    " @skip(if: false)",
    " @skip(if: true)",
    " @include(if: $flag)",
    " @skip(if: $flag)",
)
MAX_DEPTH = 4


def _arguments(parent: GraphQLObjectType, name: str) -> str | None:
    """The arguments a field is selected with, or None when it needs some we do not know."""
    known = KNOWN_ARGUMENTS.get((parent.name, name))
    if known is not None:
        return known
    field = parent.fields[name]
    required = [
        a
        for a in field.args.values()
        if isinstance(a.type, GraphQLNonNull) and a.default_value is Undefined
    ]
    return None if required else ""


@st.composite
def selection(draw: Any, parent: GraphQLObjectType, depth: int = 1) -> str:
    """A selection set's inside over ``parent``."""
    names = [n for n in parent.fields if _arguments(parent, n) is not None]
    if depth >= MAX_DEPTH:
        names = [n for n in names if is_leaf_type(get_named_type(parent.fields[n].type))]
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=5)) if names else []
    parts = []
    for index, name in enumerate(chosen):  # a name drawn twice: the same field merged
        field_type = get_named_type(parent.fields[name].type)
        alias = draw(st.sampled_from(["", "", f"{name}{index}: "]))
        text = f"{alias}{name}{_arguments(parent, name)}{draw(st.sampled_from(DIRECTIVES))}"
        if isinstance(field_type, GraphQLObjectType):
            text += " { " + draw(selection(field_type, depth + 1)) + " }"
        parts.append(text)
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), "__typename")
    if len(parts) > 1 and draw(st.booleans()):
        parts[-1] = f"... on {parent.name}{draw(st.sampled_from(DIRECTIVES))} {{ {parts[-1]} }}"
    return " ".join(parts) or "__typename"


@st.composite
def queries(draw: Any) -> tuple[str, dict[str, Any]]:
    """A query over one or two root fields, and its variables."""
    query_type = SCHEMA.query_type
    assert query_type is not None
    roots = draw(st.lists(st.sampled_from(sorted(ROOTS)), min_size=1, max_size=2, unique=True))
    parts = []
    for root in roots:
        root_type = get_named_type(query_type.fields[root].type)
        text = f"{root}{ROOTS[root]}"
        if isinstance(root_type, GraphQLObjectType):
            text += " { " + draw(selection(root_type)) + " }"
        parts.append(text)
    body = " ".join(parts)
    if "$flag" not in body:
        return "{ " + body + " }", {}
    return "query($flag: Boolean!) { " + body + " }", {"flag": draw(st.booleans())}
