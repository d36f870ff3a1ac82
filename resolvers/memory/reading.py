"""How a reader sees a page's lines (DESIGN §5): a souvenir's source opens only to who may read
it (others see its kind, its owner and its day), a record reference only to who reads it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from db.memory import LineRow, PageRow
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError, Problem
from resolvers.memory.content import mission_section, render_content
from resolvers.memory.grammar import Reference, Souvenir, render

_SHA256 = re.compile(r"[0-9a-f]{64}")
_SEPARATORS = re.compile(r"[\u2014\u2192\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class ShownSouvenir:
    """A souvenir as one reader sees it."""

    key: str
    line: str
    souvenir: Souvenir
    source_record_id: UUID | None
    source_member_id: UUID | None
    about_record_id: UUID | None


@dataclass(frozen=True, slots=True)
class Page:
    """A page as one reader sees it."""

    row: PageRow
    content: str
    souvenirs: list[ShownSouvenir]
    can_edit: bool

    @property
    def content_sha256(self) -> str:
        return sha256(self.content)

    @property
    def lines_only_deletable(self) -> bool:
        """A page on a satellite (or on a record that may carry none): its lines can only be
        deleted."""
        return self.row.about_kind == "record" and not self.row.carries_pages

    @property
    def mission(self) -> str | None:
        return mission_section(self.content) if self.row.about_kind == "workspace" else None


def sha256(text: str) -> str:
    """The hex sha256 of a text's UTF-8 bytes, without normalisation (what an edit's
    baseSha256 and a store memory's precondition name)."""
    return hashlib.sha256(text.encode()).hexdigest()


def sha256_problems(value: str | None, field: str) -> list[Problem]:
    """A problem when a given sha256 is not 64 lowercase hexadecimal digits."""
    if value is None or _SHA256.fullmatch(value):
        return []
    return [Problem("a sha256 is 64 lowercase hexadecimal digits", field)]


def check_precondition(expected: str | None, current: str, message: str) -> None:
    """The one content precondition of memory (a page's edit, a store memory's update and
    delete): when a sha256 is expected, the current content must still be the one it names;
    MEMORY_PRECONDITION_FAILED otherwise, before anything is changed."""
    if expected is not None and expected != current:
        raise DomainError(Code.MEMORY_PRECONDITION_FAILED, message)


def plain_name(name: str) -> str:
    """A name fit for a souvenir's author or source: no dash, arrow or control character."""
    return _SEPARATORS.sub("-", name).strip() or "someone"


def _source_token(line: LineRow, workspace_id: UUID) -> str | None:
    if line.source_kind is None or line.source_id is None:
        return None
    if line.source_kind == "record":
        return "record:" + ids.encode("Record", workspace_id, line.source_id)
    return "conversation:" + ids.encode("Member", workspace_id, line.source_id)


def _closed_source(line: LineRow) -> str:
    """What a reader who cannot open a source sees: its kind, its owner, its day."""
    day = line.day.isoformat() if line.day else ""
    if not line.source_exists:
        return f"a source now gone, {day}"
    kind = (
        "conversation" if line.source_kind == "conversation" else (line.source_object or "record")
    )
    kind = plain_name(kind.lower())
    if line.source_owner:
        return f"{kind} from {plain_name(line.source_owner)}, {day}"
    return f"{kind}, {day}"


def souvenir_of(line: LineRow, workspace_id: UUID, *, stored_form: bool = False) -> Souvenir:
    """The souvenir a stored line states, its source and reference as the reader sees them
    (``stored_form``: as stored, every source open)."""
    source: str | None = None
    if line.source_kind is not None:
        opened = stored_form or line.source_open
        source = _source_token(line, workspace_id) if opened else _closed_source(line)
    about = None
    if line.about_id is not None and line.about_label and (stored_form or line.about_open):
        label = _SEPARATORS.sub("-", line.about_label).replace("[", "(").replace("]", ")")
        label = label.replace("(", "").replace(")", "").strip() or "record"
        about = Reference(label, "record:" + ids.encode("Record", workspace_id, line.about_id))
    assert line.type is not None
    return Souvenir(
        text=line.text,
        type=line.type,
        author=line.author,
        day=line.day,
        source=source,
        about=about,
        until=line.until,
        human=line.human,
    )


def line_text(line: LineRow, workspace_id: UUID, *, stored_form: bool = False) -> str:
    """One line of content as the reader sees it."""
    if line.kind != "souvenir":
        return line.text
    return render(souvenir_of(line, workspace_id, stored_form=stored_form))


def content_of(lines: Sequence[LineRow], workspace_id: UUID, *, stored_form: bool = False) -> str:
    """A page's content from its lines, as the reader sees it (or as stored)."""
    return render_content(line_text(line, workspace_id, stored_form=stored_form) for line in lines)


def shown_souvenirs(lines: Sequence[LineRow], workspace_id: UUID) -> list[ShownSouvenir]:
    """The souvenirs among a page's lines, each as the reader sees it."""
    found = []
    for line in lines:
        if line.kind != "souvenir" or line.key is None:
            continue
        souvenir = souvenir_of(line, workspace_id)
        found.append(
            ShownSouvenir(
                key=line.key,
                line=render(souvenir),
                souvenir=souvenir,
                source_record_id=line.source_id
                if line.source_kind == "record" and line.source_open
                else None,
                source_member_id=line.source_id
                if line.source_kind == "conversation" and line.source_open
                else None,
                about_record_id=line.about_id if souvenir.about is not None else None,
            )
        )
    return found


def page_content(lines: Sequence[LineRow], souvenirs: Sequence[ShownSouvenir]) -> str:
    """A page's content from its lines, each souvenir rendered once (as ``souvenirs`` shows
    it)."""
    shown = iter(souvenirs)
    return render_content(
        next(shown).line if line.kind == "souvenir" and line.key is not None else line.text
        for line in lines
    )
