"""A document's shape, all the depth and alias limits read (schema/limits.py): each operation's
selections, each fragment's, and how many aliases the text holds. Made from a parsed document,
or from the text alone by a scan of its tokens (one regular expression, no parse tree), so that
an abusive document is measured before graphql-core's parser pays for every token of it.

A selection is ``(FIELD, children)``, ``(INLINE, children)`` or ``(SPREAD, name)``; a field
named ``__...`` (introspection, bounded by its own rule) has no entry, though its aliases count.

The scan reads executable documents only. It gives up (None), and the parser decides, on
anything else: a type-system definition, a description, a token the language does not have,
unbalanced braces, more than ``max_tokens`` tokens. It does not check what lies between
parentheses (arguments, variables), so a document over a limit is refused for the limit even
when it would not have parsed: as the parser's own token limit does."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    Source,
)

FIELD, INLINE, SPREAD = 0, 1, 2
Selections = list[tuple[int, Any]]
OPERATIONS = ("query", "mutation", "subscription")
NO_CHILDREN: Selections = []

# Ignored text (white space, commas, a byte order mark, comments), then one token: a block
# string, a string, a name, a spread, a number (loosely: only ever between parentheses), a
# punctuator, or any other character (which the language does not have).
TOKEN = re.compile(
    r"(?:[ \t\n\r,\ufeff]+|#[^\n\r]*)*"
    r'("""(?:\\"""|[^"]|"(?!""))*"""|"(?:[^"\\\n\r]|\\.)*"'
    r"|[_A-Za-z][_0-9A-Za-z]*|\.\.\.|-?[0-9][_0-9A-Za-z.+-]*|[!$&():=@\[\]{|}]|.)"
)
NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*")


@dataclass
class Operation:
    """An operation: its name (None: anonymous), where its text starts, its selections."""

    name: str | None
    source: Source
    start: int
    selections: Selections


@dataclass
class Shape:
    operations: list[Operation] = field(default_factory=list)
    fragments: dict[str, Selections] = field(default_factory=dict)
    aliases: int = 0


# -- from a parsed document ------------------------------------------------------------------


def parsed_shape(document: DocumentNode) -> Shape:
    """The shape of a parsed document."""
    shape = Shape()
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            assert definition.loc is not None  # the gateway parses with locations
            name = definition.name.value if definition.name else None
            selections = _selections(definition.selection_set, shape)
            shape.operations.append(
                Operation(name, definition.loc.source, definition.loc.start, selections)
            )
        elif isinstance(definition, FragmentDefinitionNode):
            shape.fragments[definition.name.value] = _selections(definition.selection_set, shape)
    return shape


def _selections(selection_set: SelectionSetNode | None, shape: Shape) -> Selections:
    if selection_set is None:
        return NO_CHILDREN
    found: Selections = []
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            shape.aliases += selection.alias is not None
            children = _selections(selection.selection_set, shape)
            if not selection.name.value.startswith("__"):
                found.append((FIELD, children))
        elif isinstance(selection, InlineFragmentNode):
            found.append((INLINE, _selections(selection.selection_set, shape)))
        elif isinstance(selection, FragmentSpreadNode):
            found.append((SPREAD, selection.name.value))
    return found


# -- from the text ---------------------------------------------------------------------------


class GiveUp(Exception):
    """The scan cannot say: the parser decides."""


class Scan:
    """The tokens of a text and a cursor over them; past the last, the empty string."""

    def __init__(self, text: str, max_tokens: int) -> None:
        self.matches = list(itertools.islice(TOKEN.finditer(text), max_tokens))
        if len(self.matches) == max_tokens:
            raise GiveUp  # the parser's token limit speaks first
        self.words = [match[1] for match in self.matches]
        self.words.append("")
        self.source = Source(text)
        self.at = 0

    def peek(self) -> str:
        return self.words[self.at]

    def take(self) -> str:
        token = self.words[self.at]
        if not token:
            raise GiveUp  # the text ends here
        self.at += 1
        return token

    def name(self) -> str:
        token = self.take()
        if not NAME.fullmatch(token):
            raise GiveUp
        return token

    def expect(self, token: str) -> None:
        if self.take() != token:
            raise GiveUp

    def parentheses(self) -> None:
        """Past ``( ... )`` when one opens here (its inside unread)."""
        if self.words[self.at] == "(":
            depth = 0
            while True:
                token = self.take()
                depth += (token == "(") - (token == ")")
                if depth == 0:
                    return

    def directives(self) -> None:
        while self.words[self.at] == "@":
            self.at += 1
            self.name()
            self.parentheses()


def scanned_shape(text: str, max_tokens: int) -> Shape | None:
    """The shape of an executable document's text, or None when the scan cannot say."""
    try:
        scan = Scan(text, max_tokens)
        shape = Shape()
        while scan.peek():
            _definition(scan, shape)
    except GiveUp:
        return None
    return shape


def _definition(scan: Scan, shape: Shape) -> None:
    start = scan.matches[scan.at].start(1)
    keyword = scan.take()
    if keyword == "{":
        scan.at -= 1
        shape.operations.append(Operation(None, scan.source, start, _selection_set(scan, shape)))
    elif keyword in OPERATIONS:
        name = scan.name() if NAME.fullmatch(scan.peek()) else None
        scan.parentheses()
        scan.directives()
        shape.operations.append(Operation(name, scan.source, start, _selection_set(scan, shape)))
    elif keyword == "fragment":
        name = scan.name()
        if name == "on":
            raise GiveUp
        scan.expect("on")
        scan.name()
        scan.directives()
        shape.fragments[name] = _selection_set(scan, shape)
    else:
        raise GiveUp


def _selection_set(scan: Scan, shape: Shape) -> Selections:
    """The selection set opening here, walked without recursion."""
    scan.expect("{")
    root: Selections = []
    # Each open set: its entries and how many selections it has had (introspection counts).
    open_sets: list[tuple[Selections, list[int]]] = [(root, [0])]
    while open_sets:
        token = scan.take()
        current, count = open_sets[-1]
        if token == "}":
            if count[0] == 0:
                raise GiveUp  # an empty selection set is a syntax error
            open_sets.pop()
            continue
        count[0] += 1
        children = _selection(scan, shape, token, current)
        if children is not None:
            open_sets.append((children, [0]))
    return root


def _selection(scan: Scan, shape: Shape, token: str, current: Selections) -> Selections | None:
    """One selection starting with ``token``, entered in ``current``; the selections of the set
    it opens, if it opens one."""
    if token == "...":
        following = scan.peek()
        if following == "on" or following in ("@", "{"):
            if following == "on":
                scan.at += 1
                scan.name()
            scan.directives()
            scan.expect("{")
            children: Selections = []
            current.append((INLINE, children))
            return children
        current.append((SPREAD, scan.name()))
        scan.directives()
        return None
    if not NAME.fullmatch(token):
        raise GiveUp
    name = token
    if scan.peek() == ":":
        scan.at += 1
        shape.aliases += 1
        name = scan.name()
    scan.parentheses()
    scan.directives()
    opens = scan.peek() == "{"
    children = []
    if opens:
        scan.at += 1
    if not name.startswith("__"):
        current.append((FIELD, children if opens else NO_CHILDREN))
    return children if opens else None
