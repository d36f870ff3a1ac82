"""Guards on incoming documents: depth, aliases (validation rules) and tokens (the parser)."""

from __future__ import annotations

from typing import Any

from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
)


def depth_limit_rule(max_depth: int) -> type[ValidationRule]:
    """A rule refusing operations nested deeper than ``max_depth`` fields."""

    class DepthLimit(ValidationRule):
        def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
            fragments = {
                f.name.value: f
                for f in self.context.document.definitions
                if f.kind == "fragment_definition"
            }  # type: ignore[attr-defined]
            depth = _depth(node.selection_set, fragments, 0, set())
            if depth > max_depth:
                name = node.name.value if node.name else "anonymous"
                self.report_error(
                    GraphQLError(
                        f"Operation '{name}' is {depth} levels deep;"
                        f" the depth limit is {max_depth}.",
                        node,
                        extensions={"limit": "depth"},
                    )
                )

    return DepthLimit


def _depth(
    selection_set: SelectionSetNode | None,
    fragments: dict[str, Any],
    level: int,
    visiting: set[str],
) -> int:
    if selection_set is None:
        return level
    deepest = level
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            if selection.name.value.startswith("__"):
                continue  # introspection is bounded by its own rule
            deepest = max(deepest, _depth(selection.selection_set, fragments, level + 1, visiting))
        elif isinstance(selection, InlineFragmentNode):
            deepest = max(deepest, _depth(selection.selection_set, fragments, level, visiting))
        elif isinstance(selection, FragmentSpreadNode):
            name = selection.name.value
            if name in visiting or name not in fragments:
                continue  # cycles and unknown fragments are reported by the standard rules
            deepest = max(
                deepest, _depth(fragments[name].selection_set, fragments, level, visiting | {name})
            )
    return deepest


def alias_limit_rule(max_aliases: int) -> type[ValidationRule]:
    """A rule refusing documents with more than ``max_aliases`` aliased fields."""

    class AliasLimit(ValidationRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            self.count = 0

        def enter_field(self, node: FieldNode, *_: Any) -> None:
            if node.alias is not None:
                self.count += 1

        def leave_document(self, node: Any, *_: Any) -> None:
            if self.count > max_aliases:
                self.report_error(
                    GraphQLError(
                        f"The document has {self.count} aliases; the alias limit is {max_aliases}.",
                        extensions={"limit": "aliases"},
                    )
                )

    return AliasLimit
