"""The planned executor: graphql-core's executor, with plain subtrees completed by a plan.

graphql-core completes each field on its own (an Info, a path, the argument values, then
``complete_value``): about 10 µs a field. Where the value a resolver returned has a plain
subtree (schema/plan.py), this executor completes all of it at once from a plan made the first
time that selection is met; graphql-core runs everything else (root fields, resolvers with I/O
or ``info``, abstract types) and every error: a plan that meets anything it does not expect
gives the value back to graphql-core's ``complete_value``, which completes it from the start.

Plans are keyed by the return type and the field nodes of the selection, which live as long
as the prepared document they belong to: a plan whose subtree reads no variable is kept with
the document (``plans``, shared by every request that runs it); one that does (a variable in
an argument, @skip or @include) lasts one request.

graphql-core internals relied on (re-check on an upgrade; CONTRIBUTING.md): the executor
class (``IncrementalExecutor``, what ``execute`` builds by default, given as
``executor_class`` with extra constructor arguments), its ``complete_value`` signature,
``collect_subfields`` returning ``(grouped_field_set, defer_usages, _)`` for an object type
and a ``FieldDetailsList``, ``FieldDetails.node``/``.fragment_variable_values``,
``variable_values``, ``fragment_definitions``, ``middleware_manager``,
``error_propagation``, and ``get_argument_values``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from graphql import (
    FragmentDefinitionNode,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    SelectionSetNode,
    get_named_type,
    is_leaf_type,
)
from graphql.execution.collect_fields import FieldDetailsList
from graphql.execution.incremental.incremental_executor import IncrementalExecutor
from graphql.execution.values import get_argument_values
from graphql.language import BREAK, FragmentSpreadNode, Visitor, visit
from graphql.pyutils import AwaitableOrValue, Path

from schema.direct import DIRECT, Direct
from schema.plan import (
    Complete,
    Mixed,
    PlannedField,
    constant,
    identity,
    leaf,
    list_of,
    list_of_objects,
    non_null,
    object_of,
)

# A document's plans: by return type and the ids of the selection's field nodes.
Plans = dict[tuple[GraphQLOutputType, tuple[int, ...]], Complete | None]


Made = TypeVar("Made")


def once(
    made: dict[tuple[int, int], tuple[FieldDetailsList, Made | None]],
    of: object,
    field_details_list: FieldDetailsList,
    make: Callable[[], Made | None],
) -> Made | None:
    """``make()`` for this type and selection, once a request (the selection is kept with it
    so that its id stays its own); a plan never fails a request: on an exception, None, and
    graphql-core runs it all."""
    key = (id(of), id(field_details_list))
    found = made.get(key)
    if found is None:
        try:
            value = make()
        except Exception:
            value = None
        found = (field_details_list, value)
        made[key] = found
    return found[1]


class _Variables(Visitor):
    """Finds a variable in a selection set, following fragment spreads."""

    def __init__(self, fragments: dict[str, FragmentDefinitionNode]) -> None:
        super().__init__()
        self.fragments = fragments
        self.seen: set[str] = set()
        self.found = False

    def enter_variable(self, *_args: Any) -> Any:
        self.found = True
        return BREAK

    def enter_fragment_spread(self, node: FragmentSpreadNode, *_args: Any) -> Any:
        name = node.name.value
        if name not in self.seen and name in self.fragments:
            self.seen.add(name)
            visit(self.fragments[name], self)
            if self.found:
                return BREAK
        return None


def reads_variables(
    selections: list[SelectionSetNode], fragments: dict[str, FragmentDefinitionNode]
) -> bool:
    """Whether any of these selection sets (or a fragment they spread) holds a variable."""
    finder = _Variables(fragments)
    for selection_set in selections:
        visit(selection_set, finder)
        if finder.found:
            return True
    return False


class PlannedExecutor(IncrementalExecutor):
    """graphql-core's executor with planned completion of plain values."""

    def __init__(self, *args: Any, plans: Plans | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plans: Plans = plans if plans is not None else {}
        # This request's plans by (return type, field details list), the list kept alive.
        self.planned: dict[tuple[int, int], tuple[FieldDetailsList, Complete | None]] = {}
        self.mixed: dict[tuple[int, int], tuple[FieldDetailsList, Mixed | None]] = {}
        self.enabled = self.middleware_manager is None and self.error_propagation

    def complete_value(
        self,
        return_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: Any,
    ) -> AwaitableOrValue[Any]:
        complete = self.plan_of(return_type, field_details_list)
        if complete is not None:
            try:
                return complete(result)
            except Exception:  # noqa: S110 - graphql-core completes it again, errors and all
                pass
        return super().complete_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def collect_and_execute_subfields(
        self,
        return_type: GraphQLObjectType,
        field_details_list: FieldDetailsList,
        path: Path,
        result: Any,
        position_context: Any,
    ) -> AwaitableOrValue[dict[str, Any]]:
        """An object that is not all plain: its plain fields by their plans, the others (and
        all of them when a plan meets the unexpected) by graphql-core."""
        mixed = self.mixed_of(return_type, field_details_list)
        if mixed is not None and position_context is None:
            try:
                planned = mixed.read(result)
            except Exception:  # noqa: S110 - nothing is executed yet: graphql-core does it all
                pass
            else:
                executed = self.execute_fields(return_type, result, path, mixed.executed, None)
                if isinstance(executed, dict):
                    return mixed.merge(planned, executed)
                return mixed.merge_later(planned, executed)
        return super().collect_and_execute_subfields(
            return_type, field_details_list, path, result, position_context
        )

    def mixed_of(
        self, object_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> Mixed | None:
        """The object's plain fields and the others, made once a request (None: none plain)."""
        return once(
            self.mixed,
            object_type,
            field_details_list,
            lambda: self.plan_mixed(object_type, field_details_list),
        )

    def plan_mixed(
        self, object_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> Mixed | None:
        if not self.enabled:
            return None
        grouped, defer_usages, _ = self.collect_subfields(object_type, field_details_list)
        if defer_usages:
            return None
        planned: list[PlannedField] = []
        executed = {}
        for key, details in grouped.items():
            entry = self.plan_field(object_type, key, details)
            if entry is None:
                executed[key] = details
            else:
                planned.append(entry)
        if not planned or not executed:
            return None
        return Mixed(tuple(grouped), tuple(planned), executed)

    def plan_of(
        self, return_type: GraphQLOutputType, field_details_list: FieldDetailsList
    ) -> Complete | None:
        """The plan of a value at this position of the operation, made once a request."""
        return once(
            self.planned,
            return_type,
            field_details_list,
            lambda: self.plan(return_type, field_details_list),
        )

    def plan(
        self, return_type: GraphQLOutputType, field_details_list: FieldDetailsList
    ) -> Complete | None:
        """The plan of a value of ``return_type`` selected by ``field_details_list``: from the
        document's plans, else made (and kept there when it reads no variable)."""
        if not self.enabled or is_leaf_type(get_named_type(return_type)):
            return None  # graphql-core completes a lone leaf as fast
        key = (return_type, tuple(id(details.node) for details in field_details_list))
        if key in self.plans:
            return self.plans[key]
        complete = self.plan_value(return_type, field_details_list)
        selections = [d.node.selection_set for d in field_details_list if d.node.selection_set]
        if not reads_variables(selections, self.fragment_definitions):
            self.plans[key] = complete
        return complete

    def plan_value(
        self, return_type: GraphQLOutputType, field_details_list: FieldDetailsList
    ) -> Complete | None:
        if isinstance(return_type, GraphQLNonNull):
            if is_leaf_type(return_type.of_type):  # one call a leaf, not two
                assert isinstance(return_type.of_type, GraphQLLeafType)
                return leaf(return_type.of_type, required=True)
            inner = self.plan_value(return_type.of_type, field_details_list)
            return non_null(inner) if inner is not None else None
        if isinstance(return_type, GraphQLList):
            item = return_type.of_type
            named = item.of_type if isinstance(item, GraphQLNonNull) else item
            if isinstance(named, GraphQLObjectType) and named.is_type_of is None:
                fields = self.plan_fields(named, field_details_list)
                required = named is not item
                return list_of_objects(fields, required) if fields is not None else None
            inner = self.plan_value(item, field_details_list)
            return list_of(inner) if inner is not None else None
        if is_leaf_type(return_type):
            assert isinstance(return_type, GraphQLLeafType)
            return leaf(return_type)
        if isinstance(return_type, GraphQLObjectType) and return_type.is_type_of is None:
            return self.plan_object(return_type, field_details_list)
        return None  # an interface or a union: graphql-core resolves the type

    def plan_object(
        self, object_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> Complete | None:
        fields = self.plan_fields(object_type, field_details_list)
        return object_of(fields) if fields is not None else None

    def plan_fields(
        self, object_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> tuple[PlannedField, ...] | None:
        """The planned fields of an object (None: one of them is not plain)."""
        grouped, defer_usages, _ = self.collect_subfields(object_type, field_details_list)
        if defer_usages:
            return None
        fields: list[PlannedField] = []
        for key, details in grouped.items():
            planned = self.plan_field(object_type, key, details)
            if planned is None:
                return None
            fields.append(planned)
        return tuple(fields)

    def plan_field(
        self, parent: GraphQLObjectType, key: str, details: FieldDetailsList
    ) -> PlannedField | None:
        first = details[0]
        name = first.node.name.value
        if name == "__typename":
            return key, constant(parent.name), identity
        field = parent.fields.get(name)
        if field is None or any(d.fragment_variable_values is not None for d in details):
            return None
        direct = (field.extensions or {}).get(DIRECT)
        if not isinstance(direct, Direct):
            return None
        read = direct.read
        if field.args or first.node.arguments:
            try:
                values = get_argument_values(
                    field, first.node, self.variable_values, None, self.hide_suggestions
                )
            except Exception:
                return None  # graphql-core reports it as the field's error
            read = partial(read, **{direct.names[k]: v for k, v in values.items()})
        if is_leaf_type(get_named_type(field.type)):
            complete = self.plan_value(field.type, details)
        else:  # the document's plan when there is one
            complete = self.plan(field.type, details)
        return (key, read, complete) if complete is not None else None
