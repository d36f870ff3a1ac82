"""An exchange as a pass reads it (issue 11, item 2; seed "the subject, the text without its
quoted history and the attachment names are read, never the attachments themselves").

Its text is its window's messages in order, one line each, opening with its number in
brackets (from 1) and who wrote it: a member's own words (a mail filed as sent from their own
address) with the member's name, any other mail with the sender's address in angle brackets
(``[2] Bob Smith <bob@acme.com>: ...``), whatever its sender line says; a message's attachments
follow it on a line of their own, ``(attached: a.pdf, b.xlsx)``. A reader names the number of
the message each learning rests on; code knows who wrote each number (``Presented.writers``),
and so whose words a learning is, whatever the reader says. The subject is its context (read,
never learned from). A sender's name loses what could pass for another speaker's line (colons,
angle brackets, line breaks), so that a line opens with a member's name only when it is that
member's own words. Pure.
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
LINE = "[{number}] {label}: {text}"
SUBJECT = "Subject: {subject}"
NO_TEXT = "(no text)"
_SPACES = re.compile(r"\s+")
# What a message's line opens with: its number; then an outsider's, a name (maybe none) and
# the address in brackets.
_NUMBERED = re.compile(r"^\[(?P<number>[1-9][0-9]*)\] (?P<rest>.*)$")
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


@dataclass(frozen=True, slots=True)
class Writer:
    """Who wrote one message of an exchange as presented: the member whose own words it is
    (None: an outsider's), and the label its line opens with."""

    member: UUID | None
    label: str


@dataclass(frozen=True, slots=True)
class Presented:
    """An exchange as a reader gets it: its text, and the writer of each message it presents
    (message ``n`` of the text is ``writers[n - 1]``; a message cut is not presented)."""

    text: str
    writers: tuple[Writer, ...]


def presented(messages: Sequence[WindowMessage], cap: int = MAX_EXCHANGE_CHARS) -> Presented:
    """The exchange's numbered lines, cut past ``cap`` characters (at least its first
    message), and who wrote each message presented."""
    lines: list[str] = []
    writers: list[Writer] = []
    length = 0
    for n, message in enumerate(messages):
        text = one_line(message.text) or NO_TEXT
        said = [LINE.format(number=n + 1, label=message.label, text=text)]
        if message.attachments:
            names = ", ".join(one_line(name) for name in message.attachments)
            said.append(ATTACHED.format(names=names))
        added = sum(len(line) + 1 for line in said)
        if lines and length + added > cap:
            lines.append(CUT.format(count=len(messages) - n))
            break
        lines.extend(said)
        writers.append(Writer(message.member if message.member_name else None, message.label))
        length += added
    return Presented("\n".join(lines), tuple(writers))


def exchange_text(messages: Sequence[WindowMessage], cap: int = MAX_EXCHANGE_CHARS) -> str:
    """The exchange's numbered lines, cut past ``cap`` characters (``presented``'s text)."""
    return presented(messages, cap).text


def subject_line(subject: str | None) -> str:
    """The exchange's context: its subject."""
    subject = one_line(subject or "")
    return SUBJECT.format(subject=subject) if subject else ""


def first_author(messages: Sequence[WindowMessage]) -> WindowMessage | None:
    """The first message that is a member's own words, if any."""
    return next((m for m in messages if m.member is not None and m.member_name), None)


@dataclass(frozen=True, slots=True)
class SaidLine:
    """One message's line of an exchange's text: its number, its outsider's label (None: the
    speaker's own line), and what was said."""

    number: int
    label: str | None
    text: str


def said_lines(text: str, speaker: str | None) -> list[SaidLine]:
    """The message lines of an exchange's text, each with its number, its outsider's label
    (None for the lines of ``speaker``, a member's name: their own words) and what was said.
    Attachment lines, and lines of members other than the speaker, are left out."""
    found: list[SaidLine] = []
    own = f"{speaker}: " if speaker else None
    for line in text.split("\n"):
        numbered = _NUMBERED.match(line)
        if numbered is None:
            continue
        number, rest = int(numbered["number"]), numbered["rest"]
        if own is not None and rest.startswith(own):
            found.append(SaidLine(number, None, rest[len(own) :]))
            continue
        match = _OUTSIDER.match(rest)
        if match is not None:
            found.append(SaidLine(number, match["label"], match["text"]))
    return found
