"""Direct resolvers for fields that need none of Strawberry's per-field machinery.

Strawberry wraps every field's resolver: it builds an Info object, converts arguments and
runs field extensions, even for a field that only reads an attribute. On a page of records
that is most of the work (about a hundred field executions a request). A field with no
arguments, no extensions and either no resolver or a plain synchronous method taking only
``self`` gets a resolver that reads or calls it directly; everything else keeps Strawberry's.
Each such field also carries its reader in its extensions (``DIRECT``), for the planned
executor (schema/plan.py), which calls it without building an Info at all.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass
from operator import attrgetter
from typing import Any

from graphql import GraphQLObjectType, GraphQLSchema
from strawberry import ID
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.base import StrawberryMaybe, StrawberryOptional
from strawberry.types.field import StrawberryField

# Argument types that reach a resolver exactly as graphql-core coerced them.
PLAIN_ARGUMENTS = (str, int, float, bool)
# The key of a direct field's reader in its GraphQLField's extensions.
DIRECT = "skillmem.direct"
# The key of an async field's AsyncDirect in its extensions (the fast path, schema/fast.py).
ASYNC_DIRECT = "skillmem.async_direct"


@dataclass(frozen=True, slots=True)
class Direct:
    """How a direct field reads its value: ``read(source, **python_arguments)``, the GraphQL
    argument names mapped to the Python ones."""

    read: Callable[..., Any]
    names: dict[str, str]


def _nullable(annotation: Any) -> bool:
    """An optional argument whose null reaches the resolver as None (Strawberry's conversion
    of None to any optional type but ``Maybe``, which wraps it)."""
    return isinstance(annotation, StrawberryOptional) and not isinstance(
        annotation, StrawberryMaybe
    )


def _plain(annotation: Any) -> bool:
    if _nullable(annotation):  # `int | None` as Strawberry resolves it
        return _plain(annotation.of_type)
    options = getattr(annotation, "__args__", None) if annotation is not None else None
    if options and type(None) in options:
        return all(o in PLAIN_ARGUMENTS or o is type(None) for o in options)
    return annotation in PLAIN_ARGUMENTS


def _leaf(annotation: Any) -> bool:
    """A plain argument or an ID, optional or not (not ``Maybe``): Strawberry's conversion
    gives it as graphql-core coerced it."""
    if _nullable(annotation):
        annotation = annotation.of_type
    return annotation is ID or _plain(annotation)


def _plain_input(annotation: Any, config: StrawberryConfig) -> Callable[[Any], Any] | None:
    """How an input object of only leaf fields (``TurnInput``) is built from graphql-core's
    coerced dict, as Strawberry's ``convert_argument`` builds it: each field given passed as it
    came, each one without a default None, the others their default. None for any other
    type (nested inputs, lists, enums, ``Maybe``, an input building itself)."""
    nullable = _nullable(annotation)
    type_ = annotation.of_type if nullable else annotation
    definition = getattr(type_, "__strawberry_definition__", None)
    if definition is None or not definition.is_input or definition.from_input is not None:
        return None
    fields = definition.fields
    if not all(_leaf(f.resolve_type(type_definition=definition)) for f in fields):
        return None
    names = tuple((config.name_converter.from_field(f), f.python_name) for f in fields)
    unset = {
        f.python_name: None
        for f in fields
        if f.default_value is MISSING and f.default_factory is MISSING
    }

    def build(value: Any) -> Any:
        if value is None:
            return None
        given = dict(unset)
        for graphql_name, python_name in names:
            if graphql_name in value:
                given[python_name] = value[graphql_name]
        return type_(**given)

    return build


def _direct(field: StrawberryField, config: StrawberryConfig) -> Direct | None:
    if field.extensions or field.permission_classes or field.is_subscription:
        return None
    if field.base_resolver is None:
        if field.arguments:
            return None
        return Direct(attrgetter(field.python_name), {})
    resolver = field.base_resolver
    func = resolver.wrapped_func
    if resolver.is_async or isinstance(func, (staticmethod, classmethod)):
        return None
    parameters = list(inspect.signature(func).parameters)
    if parameters[:1] != ["self"] or len(parameters) != len(field.arguments) + 1:
        return None  # the resolver asks for info, root or parent: Strawberry provides them
    if not all(_plain(a.type_annotation.resolve()) for a in field.arguments):
        return None
    names = {config.name_converter.from_argument(a): a.python_name for a in field.arguments}
    return Direct(func, names)


def _resolver(direct: Direct) -> Callable[..., Any]:
    read, names = direct.read, direct.names
    if not names:
        return lambda source, _info: read(source)
    return lambda source, _info, **kwargs: read(
        source, **{names[name]: value for name, value in kwargs.items()}
    )


def _async_direct(
    field: StrawberryField, config: StrawberryConfig, scalars: Mapping[object, Any]
) -> AsyncDirect | None:
    """An async method taking ``self`` and ``info`` (and arguments), with nothing of
    Strawberry's around it: no extensions, permissions or exception handlers."""
    resolver = field.base_resolver
    if resolver is None or not resolver.is_async or field.is_subscription:
        return None
    if field.extensions or field.permission_classes:
        return None
    func = resolver.wrapped_func
    if isinstance(func, (staticmethod, classmethod)):
        return None
    parameters = list(inspect.signature(func).parameters)
    info = resolver.info_parameter
    if parameters[:1] != ["self"] or info is None or parameters[1:2] != [info.name]:
        return None
    if len(parameters) != len(field.arguments) + 2:
        return None  # root or parent asked for: Strawberry provides them
    names = {a.python_name: config.name_converter.from_argument(a) for a in field.arguments}
    resolved = {a.python_name: a.type_annotation.resolve() for a in field.arguments}
    plain = {names[python]: python for python, type_ in resolved.items() if _plain(type_)}
    nullable = {names[python]: python for python, type_ in resolved.items() if _nullable(type_)}
    inputs = {
        names[python]: (python, build)
        for python, type_ in resolved.items()
        if (build := _plain_input(type_, config)) is not None
    }
    return AsyncDirect(
        func, plain, nullable, inputs, info.name, field, config.info_class, config, scalars
    )


@dataclass(frozen=True, slots=True)
class AsyncDirect:
    """How an async field is called without Strawberry's wrapper: its plain arguments (GraphQL
    name to Python name) passed as graphql-core coerced them, the Info it asks for built as
    Strawberry builds it."""

    func: Callable[..., Any]
    plain: dict[str, str]
    # Optional arguments (not ``Maybe``) whose null is passed as None, whatever their type.
    nullable: dict[str, str]
    # Input objects of leaf fields only: GraphQL name to Python name and how it is built.
    inputs: dict[str, tuple[str, Callable[[Any], Any]]]
    info_name: str
    field: StrawberryField
    info_class: Any
    # What Strawberry converts arguments that are not plain with (schema/fast.py).
    config: StrawberryConfig
    scalars: Mapping[object, Any]

    def arguments(self, values: dict[str, Any]) -> dict[str, Any] | None:
        """The resolver's keyword arguments from graphql-core's coerced ``values`` when each
        is plain, a null or an input object of leaf fields (what Strawberry's conversion gives
        them), else None: Strawberry converts them (other input objects, enums, IDs)."""
        plain = self.plain
        if values.keys() <= plain.keys():
            return {plain[name]: value for name, value in values.items()}
        nullable, inputs = self.nullable, self.inputs
        arguments = {}
        for name, value in values.items():
            if name in plain:
                arguments[plain[name]] = value
            elif name in inputs:
                python, build = inputs[name]
                arguments[python] = build(value)
            elif value is None and name in nullable:
                arguments[nullable[name]] = None
            else:
                return None
        return arguments

    def resolver(self, strawberry_resolve: Callable[..., Any]) -> Callable[..., Any]:
        """The field's resolver: direct when every argument given is plain, null or an input
        object of leaf fields, else Strawberry's own (it converts the other input objects,
        enums and IDs)."""
        func, info_name, direct = self.func, self.info_name, self.arguments
        field, info_class = self.field, self.info_class

        # Positional only: an argument may be named `source` or `info`.
        def resolve(source: Any, info: Any, /, **kwargs: Any) -> Any:
            arguments = direct(kwargs)
            if arguments is None:
                return strawberry_resolve(source, info, **kwargs)
            arguments[info_name] = info_class(_raw_info=info, _field=field)
            return func(source, **arguments)

        return resolve


def use_direct_resolvers(
    schema: GraphQLSchema, config: StrawberryConfig, scalars: Mapping[object, Any] | None = None
) -> int:
    """Give every eligible field of ``schema`` a direct resolver; return how many. A root
    field's, or an async one's, only calls its method directly (the planned executor never
    reads those)."""
    count = 0
    roots = (schema.query_type, schema.mutation_type, schema.subscription_type)
    for type_ in schema.type_map.values():
        if not isinstance(type_, GraphQLObjectType) or type_.name.startswith("__"):
            continue
        for gql_field in type_.fields.values():
            definition = (gql_field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
            if not isinstance(definition, StrawberryField):
                continue
            direct = _direct(definition, config) if type_ not in roots else None
            if direct is not None:
                gql_field.resolve = _resolver(direct)
                gql_field.extensions = {**(gql_field.extensions or {}), DIRECT: direct}
                count += 1
                continue
            called = _async_direct(definition, config, scalars or {})
            if called is not None and gql_field.resolve is not None:
                gql_field.resolve = called.resolver(gql_field.resolve)
                gql_field.extensions = {**(gql_field.extensions or {}), ASYNC_DIRECT: called}
                count += 1
    return count
