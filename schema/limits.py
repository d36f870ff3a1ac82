"""Guards on incoming documents that need no schema: tokens and length (the parser), depth and
aliases (``limit_errors``, on the parsed document before graphql-core's validation, so that an
abusive document is refused without paying for the standard rules)."""

from __future__ import annotations

from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)

# As graphql-core's validate: at most this many errors, then one saying the rest were not sought.
MAX_ERRORS = 100
TOO_MANY = "Too many validation errors, error limit reached. Validation aborted."


def limit_errors(document: DocumentNode, max_depth: int, max_aliases: int) -> list[GraphQLError]:
    """The document's depth and alias errors, in the order validation used to report them: one
    per operation deeper than ``max_depth`` fields, in document order, then the alias count.
    Only the parsed document is read. May raise RecursionError on fragments nested past the
    interpreter's limit (graphql-core's validate then reports the document as it always has)."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    errors: list[GraphQLError] = []
    for definition in document.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            continue
        depth = _height(definition.selection_set, fragments, {}, set())
        if depth > max_depth:
            name = definition.name.value if definition.name else "anonymous"
            message = f"Operation '{name}' is {depth} levels deep; the depth limit is {max_depth}."
            errors.append(GraphQLError(message, definition, extensions={"limit": "depth"}))
    aliases = _aliases(document)
    if aliases > max_aliases:
        message = f"The document has {aliases} aliases; the alias limit is {max_aliases}."
        errors.append(GraphQLError(message, extensions={"limit": "aliases"}))
    if len(errors) > MAX_ERRORS:
        return [*errors[:MAX_ERRORS], GraphQLError(TOO_MANY)]
    return errors


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


def _aliases(document: DocumentNode) -> int:
    """How many aliased fields the document's text holds (each fragment counted once, however
    often it is spread). Walked without recursion."""
    count = 0
    pending: list[SelectionSetNode] = [
        d.selection_set
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode | FragmentDefinitionNode)
    ]
    while pending:
        for selection in pending.pop().selections:
            if isinstance(selection, FieldNode) and selection.alias is not None:
                count += 1
            nested = getattr(selection, "selection_set", None)
            if nested is not None:
                pending.append(nested)
    return count
