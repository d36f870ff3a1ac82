"""Guards on incoming documents that need no schema: tokens and length (the parser), depth and
aliases (``limit_errors``, on the document's shape before graphql-core's validation, so that an
abusive document is refused without paying for the standard rules; ``unparsed_limit_errors``,
on the text's shape before the parser, so that it is refused without paying for a parse tree
either). One rule, whichever way the shape was made (schema/shape.py)."""

from __future__ import annotations

from typing import Any, Protocol

from graphql import DocumentNode, GraphQLError

from resolvers.common.errors import Code
from schema.errors import format_error
from schema.shape import FIELD, INLINE, SPREAD, Selections, Shape, parsed_shape, scanned_shape

# As graphql-core's validate: at most this many errors, then one saying the rest were not sought.
MAX_ERRORS = 100
TOO_MANY = "Too many validation errors, error limit reached. Validation aborted."


def limit_errors(document: DocumentNode, max_depth: int, max_aliases: int) -> list[GraphQLError]:
    """The parsed document's depth and alias errors (``shape_errors``). May raise
    RecursionError on fragments nested past the interpreter's limit (graphql-core's validate
    then reports the document as it always has)."""
    return shape_errors(parsed_shape(document), max_depth, max_aliases)


class Limits(Protocol):
    """The settings' limits on a document (the gateway's document cache holds them)."""

    max_tokens: int
    max_depth: int
    max_aliases: int


def unparsed_refusal(text: str, max_length: int, limits: Limits) -> tuple[dict[str, Any], ...]:
    """The errors of a document refused from its text alone (``unparsed_limit_errors``),
    formatted as every request error is (GRAPHQL_VALIDATION_FAILED); empty when it is not."""
    found = unparsed_limit_errors(
        text, max_length, limits.max_tokens, limits.max_depth, limits.max_aliases
    )
    code = Code.GRAPHQL_VALIDATION_FAILED
    return tuple(format_error(error, "", request_code=code) for error in found)


def unparsed_limit_errors(
    text: str, max_length: int, max_tokens: int, max_depth: int, max_aliases: int
) -> list[GraphQLError]:
    """The same errors read from the text alone, when the scan can read it (an executable
    document within ``max_length`` characters and ``max_tokens`` tokens); none otherwise, and
    the parser and ``limit_errors`` decide as they always have."""
    if text.count("{") <= max_depth and text.count(":") <= max_aliases:
        # Each field level of an operation opens a selection set of its own, each alias has
        # its colon: within the limits whatever the text says, no scan needed.
        return []
    shape = scanned_shape(text, max_tokens) if len(text) <= max_length else None
    if shape is None:
        return []
    try:
        return shape_errors(shape, max_depth, max_aliases)
    except RecursionError:
        return []


def shape_errors(shape: Shape, max_depth: int, max_aliases: int) -> list[GraphQLError]:
    """The depth and alias errors, in the order validation used to report them: one per
    operation deeper than ``max_depth`` fields, in document order, then the alias count."""
    errors: list[GraphQLError] = []
    for operation in shape.operations:
        depth = _height(operation.selections, shape.fragments, {}, set())
        if depth > max_depth:
            name = operation.name or "anonymous"
            message = f"Operation '{name}' is {depth} levels deep; the depth limit is {max_depth}."
            errors.append(
                GraphQLError(
                    message,
                    source=operation.source,
                    positions=[operation.start],
                    extensions={"limit": "depth"},
                )
            )
    if shape.aliases > max_aliases:
        message = f"The document has {shape.aliases} aliases; the alias limit is {max_aliases}."
        errors.append(GraphQLError(message, extensions={"limit": "aliases"}))
    if len(errors) > MAX_ERRORS:
        return [*errors[:MAX_ERRORS], GraphQLError(TOO_MANY)]
    return errors


def _height(
    selections: Selections,
    fragments: dict[str, Selections],
    heights: dict[str, int],
    visiting: set[str],
) -> int:
    """How many fields deep a selection set goes. Each fragment is measured once (``heights``),
    so a fragment spread many times costs nothing more: no document can make this slow."""
    deepest = 0
    for kind, item in selections:
        if kind == FIELD:
            deepest = max(deepest, 1 + _height(item, fragments, heights, visiting))
        elif kind == INLINE:
            deepest = max(deepest, _height(item, fragments, heights, visiting))
        elif kind == SPREAD:
            if item in visiting or item not in fragments:
                continue  # cycles and unknown fragments are reported by the standard rules
            if item not in heights:
                visiting.add(item)
                heights[item] = _height(fragments[item], fragments, heights, visiting)
                visiting.discard(item)
            deepest = max(deepest, heights[item])
    return deepest
