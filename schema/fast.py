"""The whole-operation fast path: a cached query or mutation whose one root field is a direct
async resolver (schema/direct.py's AsyncDirect) and whose value below it has a plan
(schema/planned.py), run without graphql-core's executor around it.

graphql-core's ``execute`` builds an executor, collects the root fields, coerces the root
field's arguments, builds an Info and completes the value for every request. Here what does
not change between requests is found once a document (``fast_operation``): the root field, its
definition and resolver, its arguments when no variable is among them, and the key of its plan.
A request then coerces the arguments that hold variables, builds one Info, awaits the resolver
and completes its value by the plan: ``{"data": {key: value}}``, what graphql-core gives.

What is left to graphql-core, before any resolver runs (``fast_operation`` or ``run_fast``
gives None): anything but a query or a mutation of exactly one root field (two root fields of a
query run concurrently in graphql-core, and their errors come in the order they end; a
subscription is served over WebSocket), a directive anywhere at the root or on the operation, a
fragment at the root, introspection, a variable below the root field (its plan is not kept
with the document), arguments that do not coerce or are not plain
(the resolver's own Strawberry conversion), no plan yet (the first request of a document makes
it), and the planned executor off.

After the resolver ran, nothing is run twice: when it raised, or its value is one the plan does
not expect (a None where the type is non-null, an error, an awaitable), graphql-core executes
the operation with ``Replay`` as its middleware, which gives the root field the outcome the
fast path saw instead of calling the resolver again. graphql-core then makes the errors (the
message, locations, path, null propagation) and the app formats them as always. This holds for
a mutation and a query that writes (``turnContext``) as for one that reads: no resolver runs
twice, so no READ ONLY check is needed.

The Info a resolver gets is graphql-core's GraphQLResolveInfo with every field as the executor
fills it, save ``async_helpers`` (the executor's own gather and track): no resolver uses them
(tests/schema/test_fast.py checks), and those here raise if one ever does.

graphql-core internals relied on (re-check on an upgrade; CONTRIBUTING.md): GraphQLResolveInfo's
fields and their order, ``VariableValues``, ``get_argument_values``, ``Path``, and middleware
objects with ``resolve``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    GraphQLField,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    OperationType,
    ValueNode,
    VariableNode,
)
from graphql.execution.values import VariableValues, get_argument_values
from graphql.language import FragmentDefinitionNode
from graphql.pyutils import Path
from graphql.pyutils.is_awaitable import is_awaitable
from graphql.type.definition import GraphQLResolveInfoHelpers
from strawberry.types.arguments import convert_arguments

from schema.direct import ASYNC_DIRECT, AsyncDirect
from schema.planned import Plans, reads_variables

NO_VARIABLES = VariableValues(sources={}, coerced={})
# The operations the fast path takes, and their root type. A mutation's root fields run one
# after the other where a query's run concurrently: with one root field, both run just it.
ROOTS = {
    OperationType.QUERY: lambda schema: schema.query_type,
    OperationType.MUTATION: lambda schema: schema.mutation_type,
}


def _unavailable(*_args: Any) -> Any:
    raise RuntimeError("async_helpers are not provided on the fast path (schema/fast.py)")


HELPERS = GraphQLResolveInfoHelpers(gather=_unavailable, track=_unavailable)


@dataclass(frozen=True, slots=True)
class FastOperation:
    """What a request of this operation needs that does not change between requests."""

    schema: GraphQLSchema
    operation: OperationDefinitionNode
    fragments: dict[str, FragmentDefinitionNode]
    parent: GraphQLObjectType
    key: str  # the response key (the alias, else the name)
    node: FieldNode
    field: GraphQLField
    direct: AsyncDirect
    # The arguments as graphql-core coerces them, when none is a variable (coerced once);
    # else None (coerced each request).
    values: dict[str, Any] | None
    plan_key: tuple[Any, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Replay:
    """graphql-core middleware giving the root field ``key`` the outcome the fast path saw
    (its value, or the exception its resolver raised) without running its resolver again."""

    key: str
    value: Any = None
    error: Exception | None = None

    def resolve(self, next_: Any, root: Any, info: GraphQLResolveInfo[Any], **args: Any) -> Any:
        if info.path.prev is None and info.path.key == self.key:
            if self.error is not None:
                raise self.error
            return self.value
        return next_(root, info, **args)


def _has_variable(value: ValueNode) -> bool:
    if isinstance(value, VariableNode):
        return True
    if isinstance(value, ListValueNode):
        return any(_has_variable(item) for item in value.values)
    if isinstance(value, ObjectValueNode):
        return any(_has_variable(item.value) for item in value.fields)
    return False


def _python_arguments(direct: AsyncDirect, values: dict[str, Any], info: Any) -> dict[str, Any]:
    """The resolver's keyword arguments, as the field's resolver makes them: plain ones and
    nulls as graphql-core coerced them, input objects of leaf fields built from them
    (``AsyncDirect.inputs``), else by Strawberry's own conversion (other input objects, enums,
    IDs; what ``get_arguments`` in its schema converter does). Raises what the conversion
    raises: the field's error, as when Strawberry converts them inside the resolver."""
    arguments = direct.arguments(values)
    if arguments is not None:
        return arguments
    return convert_arguments(
        values,
        direct.field.arguments,
        scalar_registry=direct.scalars,
        config=direct.config,
        info=info,
    )


def _root_field(
    schema: GraphQLSchema, operation: OperationDefinitionNode
) -> tuple[GraphQLObjectType, FieldNode, GraphQLField, AsyncDirect] | None:
    """The operation's one root field, when the fast path may run it."""
    parent = ROOTS[operation.operation](schema) if operation.operation in ROOTS else None
    if operation.directives or parent is None:
        return None
    selections = operation.selection_set.selections
    if len(selections) != 1 or not isinstance(selections[0], FieldNode):
        return None
    node = selections[0]
    if node.directives or node.name.value.startswith("__"):
        return None
    field = parent.fields.get(node.name.value)
    direct = (field.extensions or {}).get(ASYNC_DIRECT) if field is not None else None
    if field is None or not isinstance(direct, AsyncDirect):
        return None
    return parent, node, field, direct


def fast_operation(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    fragments: dict[str, FragmentDefinitionNode],
) -> FastOperation | None:
    """The operation's fast form, or None: graphql-core runs it (see the module's doc)."""
    found = _root_field(schema, operation)
    if found is None:
        return None
    parent, node, field, direct = found
    selections = [node.selection_set] if node.selection_set else []
    if reads_variables(selections, fragments):
        return None
    values: dict[str, Any] | None = None
    if not any(_has_variable(argument.value) for argument in node.arguments or ()):
        try:
            values = get_argument_values(field, node, NO_VARIABLES, None, True)
        except Exception:
            return None  # graphql-core reports it
    key = node.alias.value if node.alias else node.name.value
    plan_key = (field.type, (id(node),))
    return FastOperation(
        schema, operation, fragments, parent, key, node, field, direct, values, plan_key
    )


def _info(fast: FastOperation, context: Any, variables: VariableValues) -> GraphQLResolveInfo[Any]:
    """graphql-core's Info of the root field, as its executor builds it."""
    return GraphQLResolveInfo(
        fast.node.name.value,
        [fast.node],
        fast.field.type,
        fast.parent,
        Path(None, fast.key, fast.parent.name),
        fast.schema,
        fast.fragments,
        None,  # the root value: the endpoint gives none
        fast.operation,
        variables,
        context,
        is_awaitable,
        None,  # no abort signal
        HELPERS,
    )


def _values(fast: FastOperation, variables: VariableValues) -> dict[str, Any] | None:
    """The root field's arguments as graphql-core coerces them, or None where it refuses."""
    if fast.values is not None:
        return fast.values
    try:
        return get_argument_values(fast.field, fast.node, variables, None, True)
    except Exception:
        return None


async def run_fast(
    fast: FastOperation, plans: Plans, context: Any, variables: VariableValues
) -> dict[str, Any] | Replay | None:
    """The operation's data, or Replay (graphql-core completes what the resolver gave), or
    None before any resolver ran (graphql-core runs it all)."""
    complete = plans.get(fast.plan_key)
    if complete is None:
        return None
    values = _values(fast, variables)
    if values is None:
        return None
    direct = fast.direct
    info = direct.info_class(_raw_info=_info(fast, context, variables), _field=direct.field)
    try:
        arguments = _python_arguments(direct, values, info)
        arguments[direct.info_name] = info
        value = await direct.func(None, **arguments)
    except Exception as error:
        return Replay(fast.key, error=error)
    try:
        return {fast.key: complete(value)}
    except Exception:
        return Replay(fast.key, value=value)
