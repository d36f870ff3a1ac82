"""Guards on incoming documents: depth, aliases (validation rules) and tokens (the parser)."""

from __future__ import annotations

from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
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
                if isinstance(f, FragmentDefinitionNode)
            }
            depth = _height(node.selection_set, fragments, {}, set())
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


def _height(
    selection_set: SelectionSetNode | None,
    fragments: dict[str, Any],
    heights: dict[str, int],
    visiting: set[str],
) -> int:
    """How many fields deep a selection set goes. Each fragment is measured once (``heights``),
    so a fragment spread many times costs nothing more: no document can make this slow."""
    if selection_set is None:
        return 0
    deepest = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            if selection.name.value.startswith("__"):
                continue  # introspection is bounded by its own rule
            below = _height(selection.selection_set, fragments, heights, visiting)
            deepest = max(deepest, 1 + below)
        elif isinstance(selection, InlineFragmentNode):
            deepest = max(deepest, _height(selection.selection_set, fragments, heights, visiting))
        elif isinstance(selection, FragmentSpreadNode):
            name = selection.name.value
            if name in visiting or name not in fragments:
                continue  # cycles and unknown fragments are reported by the standard rules
            if name not in heights:
                visiting.add(name)
                heights[name] = _height(fragments[name].selection_set, fragments, heights, visiting)
                visiting.discard(name)
            deepest = max(deepest, heights[name])
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
