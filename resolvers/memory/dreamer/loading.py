"""Which reader the Dreamer uses, by name (issue 10, item 5).

- ``rules``: the default ``RulesReader`` (no network, costs nothing);
- ``openai`` (or ``chat``): the ``ChatReader``, configured by ``ChatSettings``;
- ``package.module:attribute``: a reader of your own. The attribute is a class or a factory
  called without arguments, or an object used as it is; what it gives must have a callable
  ``read`` (``async def read(self, batch: Batch) -> ReaderAnswer``, the ``Reader`` protocol).
  It may also consolidate (``async def consolidate(self, batch: ConsolidationBatch) ->
  ConsolidationAnswer``, the ``Consolidator`` protocol); without it, consolidation is skipped
  and says so (``consolidator_of``, ``NO_CONSOLIDATION``). It may polish skills too (``async
  def polish(self, batch: PolishBatch) -> PolishAnswer``, ``polishing.Polisher``); without it,
  automatic polish is skipped and says so (``polishing.polisher_of``).

Anything else is a ``ValueError`` naming the spec, raised when the process starts rather
than at its first pass.
"""

from __future__ import annotations

import importlib
import inspect
from typing import cast

from resolvers.memory.dreamer.chat import CHAT_READER, ChatReader
from resolvers.memory.dreamer.chat_settings import ChatSettings
from resolvers.memory.dreamer.consolidating import Consolidator
from resolvers.memory.dreamer.reader import Reader
from resolvers.memory.dreamer.rules import RULES_READER, RulesReader

CHAT_NAMES = (CHAT_READER, "chat")
SPEC_FORMS = "'rules', 'openai' (or 'chat'), or 'package.module:attribute'"
NO_CONSOLIDATION = (
    "consolidation skipped: the Dreamer reader {name!r} cannot consolidate (a reader that "
    "does has: async def consolidate(self, batch: ConsolidationBatch) -> ConsolidationAnswer)"
)


def reader_named(spec: str, chat: ChatSettings | None = None) -> Reader:
    """The reader ``spec`` names; ``chat`` configures the chat reader. ``ValueError`` for an
    unknown name, incomplete chat settings, or an attribute that cannot be imported or gives
    no reader."""
    name = spec.strip()
    if name == RULES_READER:
        return RulesReader()
    if name in CHAT_NAMES:
        return _chat_reader(spec, chat or ChatSettings())
    if ":" in name:
        return _imported(spec, name)
    raise ValueError(f"unknown Dreamer reader {spec!r}: one of {SPEC_FORMS}")


def _chat_reader(spec: str, chat: ChatSettings) -> Reader:
    missing = chat.missing()
    if missing:
        raise ValueError(f"the Dreamer reader {spec!r} needs its model's {', '.join(missing)}")
    return ChatReader(chat)


def _imported(spec: str, name: str) -> Reader:
    module_name, _, path = name.partition(":")
    if not module_name or not path:
        raise ValueError(f"the Dreamer reader {spec!r} is not 'package.module:attribute'")
    try:
        target: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(
            f"the Dreamer reader {spec!r}: module {module_name!r} cannot be imported ({exc})"
        ) from exc
    for attribute in path.split("."):
        if not hasattr(target, attribute):
            raise ValueError(
                f"the Dreamer reader {spec!r}: {module_name!r} has no attribute {path!r}"
            )
        target = getattr(target, attribute)
    reader = _made(spec, target)
    if not callable(getattr(reader, "read", None)):
        raise ValueError(
            f"the Dreamer reader {spec!r} gives {type(reader).__name__!r}, which has no "
            "callable read (a reader has: async def read(self, batch) -> ReaderAnswer)"
        )
    return cast(Reader, reader)


def _made(spec: str, target: object) -> object:
    """A class or a factory, called without arguments; an object with a ``read``, as it is."""
    if not inspect.isclass(target) and callable(getattr(target, "read", None)):
        return target
    if not callable(target):
        return target
    try:
        inspect.signature(target).bind()
    except TypeError as exc:
        raise ValueError(
            f"the Dreamer reader {spec!r} cannot be called without arguments ({exc})"
        ) from exc
    except ValueError:  # no signature to read (a builtin): let the call say
        pass
    return target()


def consolidator_of(reader: object) -> Consolidator | None:
    """``reader`` when it consolidates (a callable ``consolidate``), else None: a reader of
    one's own may implement only ``read`` (consolidation is then skipped, with
    ``NO_CONSOLIDATION`` as its note)."""
    if callable(getattr(reader, "consolidate", None)):
        return cast(Consolidator, reader)
    return None
