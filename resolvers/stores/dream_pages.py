"""A memory store's memories as the pages consolidation tidies (issue 14, item 5). Pure: no I/O.

A dream asks the reader's consolidation (``resolvers/memory/dreamer/consolidating.py``) about a
store's memories, each memory one page named by its path, and code applies what it proposes
with the one set of rules memory pages are tidied by (``resolvers/memory/cleanup/tidying.py``):

- a line written in the souvenir grammar is that souvenir (its type, author, day, source, ✍);
- any other line that is not blank nor a heading (``#``) is a plain line: its text without a
  list marker (``- ``, ``* ``, ``+ ``), typed by cue words (as the ``rules`` reader types what it
  learns), of the memory's last day, with no author the reader is told of; plain lines are
  grouped only with plain lines, grammar lines only with lines of their own source;
- a line kept is written back exactly as it was; a souvenir retyped is rendered again with its
  new type (a plain line shows no type: it stays as it was); a new line (a principle, a log
  turned into one line) is a souvenir like those it replaces, or a plain ``- `` line;
- a memory left with nothing but blank lines is deleted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from uuid import UUID, uuid5

from db.memory import LineRow, PageRow
from db.memory_stores import MemoryRow
from resolvers.memory.cleanup.tidying import Tidied
from resolvers.memory.dreamer.consolidating import ConsolidationLine, ConsolidationPage
from resolvers.memory.dreamer.rules import retyped
from resolvers.memory.grammar import LineError, Reference, Souvenir, parse, render

# A plain line's source kind (never mixed with a souvenir's) and the author it carries for
# the grammar's checks (never shown: a plain line is written back as plain text).
PLAIN = "plain"
PLAIN_AUTHOR = "memory"
# A souvenir's source and record reference, as ids the page's rules compare.
_NAMES = UUID("0d4c2a8e-5f0e-4e55-9a57-64726561d500")
_MARKER = re.compile(r"^\s*[-*+]\s+")


@dataclass
class MemoryPage:
    """One memory read as a page: the page tidy works on, and what writes each line back (the
    line as written, the souvenir a grammar line states, sources and references by id)."""

    memory: MemoryRow
    row: PageRow
    written: dict[str, str] = field(default_factory=dict)
    souvenirs: dict[str, Souvenir] = field(default_factory=dict)
    sources: dict[UUID, str] = field(default_factory=dict)
    references: dict[UUID, Reference] = field(default_factory=dict)

    @property
    def page_id(self) -> str:
        return str(self.memory.id)


def read_memory(memory: MemoryRow) -> MemoryPage:
    """``memory`` (with its content) as a page of lines."""
    page = MemoryPage(memory, _row(memory, []))
    day = memory.updated_at.date()
    lines: list[LineRow] = []
    for number, text in enumerate((memory.content or "").split("\n"), start=1):
        if not text.strip():
            lines.append(LineRow(kind="blank", text=text))
        elif text.lstrip().startswith("#") or not _MARKER.sub("", text).strip():
            lines.append(LineRow(kind="text", text=text))
        else:
            key = f"l{number}"
            page.written[key] = text
            lines.append(_line(page, key, text, day))
    page.row = _row(memory, lines)
    return page


def _line(page: MemoryPage, key: str, text: str, day: date) -> LineRow:
    try:
        souvenir = parse(text)
    except LineError:
        plain = _MARKER.sub("", text).strip()
        kind = retyped(plain, "contexte", "workspace") or "contexte"
        return LineRow(
            kind="souvenir", text=plain, key=key, type=kind, author=PLAIN_AUTHOR, day=day,
            source_kind=PLAIN,
        )  # fmt: skip
    page.souvenirs[key] = souvenir
    source_id = about_id = None
    if souvenir.source is not None:
        source_id = uuid5(_NAMES, souvenir.source)
        page.sources[source_id] = souvenir.source
    if souvenir.about is not None:
        about_id = uuid5(_NAMES, souvenir.about.target)
        page.references[about_id] = souvenir.about
    return LineRow(
        kind="souvenir",
        text=souvenir.text,
        key=key,
        type=souvenir.type,
        author=souvenir.author,
        day=souvenir.day,
        until=souvenir.until,
        human=souvenir.human,
        source_kind=None if source_id is None else "source",
        source_id=source_id,
        about_id=about_id,
    )


def _row(memory: MemoryRow, lines: list[LineRow]) -> PageRow:
    """The memory as the page row tidy reads (only its id and lines matter to it)."""
    return PageRow(
        id=memory.id,
        about_kind="workspace",
        member_id=None,
        agent_id=None,
        routine_id=None,
        subject_id=None,
        name=memory.path,
        description="",
        version=0,
        trashed_at=None,
        created_at=memory.created_at,
        updated_at=memory.updated_at,
        memory_object_id=memory.store_id,
        subject_object_id=None,
        subject_readable=False,
        carries_pages=False,
        actor_owner_id=None,
        lines=lines,
    )


def consolidation_page(page: MemoryPage) -> ConsolidationPage:
    """The page as the reader gets it: its lines, each source a tag of the page's own."""
    tags: dict[tuple[str | None, UUID | None], str] = {(None, None): ""}
    found = []
    for line in page.row.lines:
        if line.kind != "souvenir" or line.key is None:
            continue
        tag = tags.setdefault((line.source_kind, line.source_id), f"s{len(tags)}")
        found.append(
            ConsolidationLine(
                key=line.key,
                type=line.type,  # type: ignore[arg-type]
                day=line.day or date.min,
                human=line.human,
                text=line.text,
                source=tag,
            )
        )
    return ConsolidationPage(
        id=page.page_id, kind="workspace", name=page.memory.path, lines=tuple(found)
    )


def content_after(page: MemoryPage, tidied: Tidied) -> str | None:
    """The memory's content once tidied; None when nothing but blank lines is left (the
    memory goes)."""
    if tidied.emptied:
        return None
    before = {line.key: line for line in page.row.lines if line.key is not None}
    out = []
    for line in tidied.lines:
        if line.kind != "souvenir" or line.key is None:
            out.append(line.text)
        elif line.key in before:
            out.append(_kept(page, line, before[line.key]))
        elif line.source_kind == PLAIN:
            out.append(f"- {line.text}")
        else:
            out.append(render(_souvenir(page, line)))
    return "\n".join(out)


def _kept(page: MemoryPage, line: LineRow, was: LineRow) -> str:
    """A line of the memory as written, or rendered again when a souvenir was retyped."""
    souvenir = page.souvenirs.get(was.key or "")
    if souvenir is None or line.type == was.type:
        return page.written[was.key or ""]
    return render(replace(souvenir, type=line.type or souvenir.type))


def _souvenir(page: MemoryPage, line: LineRow) -> Souvenir:
    """A new line as a souvenir: the source and reference of the lines it replaces."""
    assert line.type is not None
    return Souvenir(
        text=line.text,
        type=line.type,
        author=line.author,
        day=line.day,
        source=page.sources.get(line.source_id) if line.source_id else None,
        about=page.references.get(line.about_id) if line.about_id else None,
        until=line.until,
        human=False,
    )
