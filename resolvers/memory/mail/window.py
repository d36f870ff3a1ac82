"""An exchange as a pass reads it (issue 11, item 2; seed "the subject, the text without its
quoted history and the attachment names are read, never the attachments themselves").

Its text is its window's messages in order, one line each, opening with who wrote it: a
member's own words (a mail filed as sent from their own address) with the member's name, any
other mail with the sender's address in angle brackets (``Bob Smith <bob@acme.com>: ...``),
whatever its sender line says; a message's attachments follow it on a line of their own,
``(attached: a.pdf, b.xlsx)``. The subject is its context (read, never learned from). A
sender's name loses what could pass for another speaker's line (colons, angle brackets, line
breaks), so that a line opens with a member's name only when it is that member's own words.
Pure.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

# An exchange's text is cut past this many characters (its first messages are kept whole).
MAX_EXCHANGE_CHARS = 60_000
ATTACHED = "(attached: {names})"
CUT = "({count} later message(s) not read: the exchange is too long)"
SUBJECT = "Subject: {subject}"
NO_TEXT = "(no text)"
_SPACES = re.compile(r"\s+")
# What an outsider's line opens with: a name (maybe none), then the address in brackets.
_OUTSIDER = re.compile(r"^(?P<label>[^:<>]*<[^<>\s:]+>): (?P<text>.*)$")


@dataclass(frozen=True, slots=True)
class WindowMessage:
    """One message of an exchange's window, as ``waiting_items`` gives it."""

    id: UUID | None
    address: str
    name: str | None
    text: str
    member: UUID | None
    member_name: str | None
    attachments: tuple[str, ...]

    @property
    def label(self) -> str:
        """Who wrote it, as its line opens: a member by name, anyone else by address."""
        if self.member is not None and self.member_name:
            return self.member_name
        return outsider_label(self.name, self.address)


def one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def outsider_label(name: str | None, address: str) -> str:
    """An outsider's label: their sender line's name, cleaned, and their address."""
    cleaned = "".join(
        " " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") or c in ":<>" else c
        for c in name or ""
    )
    cleaned = one_line(cleaned)
    return f"{cleaned} <{address}>" if cleaned else f"<{address}>"


def window_messages(raw: Iterable[Mapping[str, Any]] | None) -> list[WindowMessage]:
    """The window's messages from the row's JSON."""
    found = []
    for message in raw or ():
        member = message.get("member")
        ident = message.get("id")
        found.append(
            WindowMessage(
                id=UUID(str(ident)) if ident else None,
                address=str(message.get("from") or ""),
                name=message.get("name"),
                text=str(message.get("text") or ""),
                member=UUID(str(member)) if member else None,
                member_name=message.get("member_name"),
                attachments=tuple(str(n) for n in message.get("attachments") or ()),
            )
        )
    return found


def exchange_text(messages: Sequence[WindowMessage], cap: int = MAX_EXCHANGE_CHARS) -> str:
    """The exchange's lines, cut past ``cap`` characters (at least its first message)."""
    lines: list[str] = []
    length = 0
    for n, message in enumerate(messages):
        said = [f"{message.label}: {one_line(message.text) or NO_TEXT}"]
        if message.attachments:
            names = ", ".join(one_line(name) for name in message.attachments)
            said.append(ATTACHED.format(names=names))
        added = sum(len(line) + 1 for line in said)
        if lines and length + added > cap:
            lines.append(CUT.format(count=len(messages) - n))
            break
        lines.extend(said)
        length += added
    return "\n".join(lines)


def subject_line(subject: str | None) -> str:
    """The exchange's context: its subject."""
    subject = one_line(subject or "")
    return SUBJECT.format(subject=subject) if subject else ""


def first_author(messages: Sequence[WindowMessage]) -> WindowMessage | None:
    """The first message that is a member's own words, if any."""
    return next((m for m in messages if m.member is not None and m.member_name), None)


def said_lines(text: str, speaker: str | None) -> list[tuple[str | None, str]]:
    """The lines of an exchange's text, each as (its outsider's label, what was said); the
    label is None for the lines of ``speaker`` (a member's name: their own words). Attachment
    lines, and lines of members other than the speaker, are left out."""
    found: list[tuple[str | None, str]] = []
    own = f"{speaker}: " if speaker else None
    for line in text.split("\n"):
        if own is not None and line.startswith(own):
            found.append((None, line[len(own) :]))
            continue
        match = _OUTSIDER.match(line)
        if match is not None:
            found.append((match["label"], match["text"]))
    return found
