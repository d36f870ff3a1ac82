"""What a mailbox and a post of mail are checked for (issue 11, item 1): every field's kind and
length, the counts, a post's total size, and attachments (base64 contents decoded to check
their size, then forgotten: only their names, sizes and sha256 are kept). Every problem is
listed, each at its path (``messages.3.attachments.0.contents``). Pure."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from resolvers.common.errors import Problem
from resolvers.memory.dreamer.intake import external_id_problems, time_problems

KINDS = ("personal", "shared")
FILED = ("received", "sent")
# The classifier's categories; none (null) is an uncategorized mail.
CATEGORIES = ("direct", "newsletter", "notification", "marketing", "transactional", "custom")
OPENING_CATEGORY = "direct"

MAX_MAILBOX_NAME_CHARS = 200
MAX_ADDRESSES = 20
MAX_ADDRESS_CHARS = 320
MAX_MESSAGES = 100
MAX_SUBJECT_CHARS = 500
MAX_TEXT_CHARS = 100_000
MAX_QUOTED_CHARS = 200_000
# Every text and quoted history of one post together.
MAX_POST_CHARS = 2_000_000
MAX_FROM_NAME_CHARS = 200
MAX_ATTACHMENTS = 10
MAX_ATTACHMENT_NAME_CHARS = 255
MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024
# Every attachment of one post together, decoded.
MAX_POST_ATTACHMENT_BYTES = 15 * 1024 * 1024
MAX_MESSAGE_RECORDS = 20
# One address, as a provider files it: local@domain, no space, bracket, quote, colon or
# control character (C0 \x00-\x1f, DEL and C1 \x7f-\x9f: what a souvenir's speaker line could
# be confused by).
_ADDRESS_PART = r'[^\s@<>()\[\]:;,"\\\x00-\x1f\x7f-\x9f]+'
_ADDRESS = re.compile(f"{_ADDRESS_PART}@{_ADDRESS_PART}")


@dataclass(frozen=True, slots=True)
class MailboxInput:
    """A mailbox as the caller sends it: personal (``owner_id`` a Member id, by default the
    caller's person; ``addresses`` the owner's own, by default their email) or shared."""

    external_id: str
    kind: str
    name: str
    owner_id: str | None = None
    addresses: Sequence[str] | None = None
    refused: Sequence[Problem] = ()


@dataclass(frozen=True, slots=True)
class AttachmentInput:
    name: str
    contents: str  # base64 (standard alphabet, padded)


@dataclass(frozen=True, slots=True)
class MessageInput:
    """One message of a thread as the provider filed it."""

    external_id: str
    thread_id: str
    filed: str
    from_address: str
    at: datetime | None
    subject: str = ""
    text: str = ""
    quoted: str = ""
    category: str | None = None
    important: bool = False
    classified_at: datetime | None = None
    from_name: str | None = None
    attachments: Sequence[AttachmentInput] = ()
    record_ids: Sequence[str] = ()
    deleted: bool = False
    refused: Sequence[Problem] = ()


def _bad_text(value: str) -> bool:
    """NUL or half a character (PostgreSQL stores neither)."""
    return "\x00" in value or any(unicodedata.category(c) == "Cs" for c in value)


def _controls(value: str) -> bool:
    return any(unicodedata.category(c) in ("Cc", "Cs") for c in value)


def line_problems(value: str, field: str, cap: int, *, required: bool) -> list[Problem]:
    """A one-line text: at most ``cap`` characters, no control character; not blank when
    ``required``."""
    if required and not value.strip():
        return [Problem("says something (1 character at least, not blank)", field)]
    if len(value) > cap or _controls(value):
        return [Problem(f"at most {cap} characters, no control character", field)]
    return []


def body_problems(value: str, field: str, cap: int) -> list[Problem]:
    """A text of several lines (may be empty): at most ``cap`` characters, no NUL."""
    problems = []
    if len(value) > cap:
        problems.append(Problem(f"at most {cap} characters", field))
    if _bad_text(value):
        problems.append(Problem("holds no NUL and no lone surrogate", field))
    return problems


def address_problems(value: str, field: str) -> list[Problem]:
    """An address: local@domain, at most 320 characters, no space nor control character."""
    if len(value) > MAX_ADDRESS_CHARS or not _ADDRESS.fullmatch(value):
        message = (
            f"an address (local@domain, at most {MAX_ADDRESS_CHARS} characters,"
            " no space nor control character)"
        )
        return [Problem(message, field)]
    return []


def addresses_of(values: Sequence[str]) -> list[str]:
    """Addresses as stored: lower case, each once, in order."""
    return list(dict.fromkeys(value.lower() for value in values))


def mailbox_problems(given: MailboxInput) -> list[Problem]:
    """Every problem of a mailbox's fields (the owner's and rights aside)."""
    problems = external_id_problems(given.external_id, "externalId")
    if given.kind not in KINDS:
        problems.append(Problem(f"one of {', '.join(KINDS)}", "kind"))
    problems += line_problems(given.name, "name", MAX_MAILBOX_NAME_CHARS, required=True)
    if given.addresses is not None:
        if len(given.addresses) > MAX_ADDRESSES:
            problems.append(Problem(f"at most {MAX_ADDRESSES} addresses", "addresses"))
        for n, address in enumerate(given.addresses):
            problems += address_problems(address, f"addresses.{n}")
    if given.kind == "shared" and given.owner_id is not None:
        problems.append(Problem("a shared mailbox is the workspace's: it has no owner", "ownerId"))
    return problems


@dataclass(frozen=True, slots=True)
class Checked:
    """A message's attachments as kept (name, size, sha256), and its characters and bytes."""

    attachments: list[dict[str, Any]]
    chars: int
    attachment_bytes: int


def message_problems(given: MessageInput, where: str) -> tuple[list[Problem], Checked]:
    """Every problem of one message's fields, at ``where`` (``messages.3``), and what its
    attachments keep."""
    problems = external_id_problems(given.external_id, f"{where}.externalId")
    problems += external_id_problems(given.thread_id, f"{where}.threadId")
    if given.filed not in FILED:
        problems.append(Problem(f"one of {', '.join(FILED)}", f"{where}.filed"))
    if given.category is not None and given.category not in CATEGORIES:
        message = f"one of {', '.join(CATEGORIES)}, or null (uncategorized)"
        problems.append(Problem(message, f"{where}.category"))
    problems += address_problems(given.from_address, f"{where}.from")
    if given.from_name is not None:
        problems += line_problems(
            given.from_name, f"{where}.fromName", MAX_FROM_NAME_CHARS, required=False
        )
    if given.at is None:
        problems.append(Problem("required", f"{where}.at"))
    problems += time_problems(given.at, f"{where}.at")
    problems += time_problems(given.classified_at, f"{where}.classifiedAt")
    problems += line_problems(given.subject, f"{where}.subject", MAX_SUBJECT_CHARS, required=False)
    problems += body_problems(given.text, f"{where}.text", MAX_TEXT_CHARS)
    problems += body_problems(given.quoted, f"{where}.quoted", MAX_QUOTED_CHARS)
    if len(given.record_ids) > MAX_MESSAGE_RECORDS:
        problems.append(Problem(f"at most {MAX_MESSAGE_RECORDS} records", f"{where}.recordIds"))
    if len(given.attachments) > MAX_ATTACHMENTS:
        message = f"at most {MAX_ATTACHMENTS} attachments"
        problems.append(Problem(message, f"{where}.attachments"))
    kept = []
    for n, attachment in enumerate(given.attachments):
        found = attachment_problems(attachment, f"{where}.attachments.{n}")
        if isinstance(found, list):
            problems += found
        else:
            kept.append(found)
    checked = Checked(
        attachments=kept,
        chars=len(given.text) + len(given.quoted),
        attachment_bytes=sum(a["size"] for a in kept),
    )
    return problems, checked


def attachment_problems(given: AttachmentInput, where: str) -> list[Problem] | dict[str, Any]:
    """An attachment's problems, or what is kept of it (name, size, sha256): its contents are
    decoded to be checked and never kept."""
    problems = line_problems(given.name, f"{where}.name", MAX_ATTACHMENT_NAME_CHARS, required=True)
    try:
        contents = base64.b64decode(given.contents.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        problems.append(Problem("base64 (standard alphabet, padded)", f"{where}.contents"))
        return problems
    if len(contents) > MAX_ATTACHMENT_BYTES:
        message = f"at most {MAX_ATTACHMENT_BYTES} bytes once decoded"
        problems.append(Problem(message, f"{where}.contents"))
    if problems:
        return problems
    return {
        "name": given.name,
        "size": len(contents),
        "sha256": hashlib.sha256(contents).hexdigest(),
    }


def post_problems(messages: Sequence[MessageInput], checked: Sequence[Checked]) -> list[Problem]:
    """What a whole post is refused for: none or too many messages, an external id twice, more
    text or attachments than a post holds."""
    problems = []
    if not messages:
        problems.append(Problem("at least one message", "messages"))
    if len(messages) > MAX_MESSAGES:
        problems.append(Problem(f"at most {MAX_MESSAGES} messages in one post", "messages"))
    seen: set[str] = set()
    for n, message in enumerate(messages):
        if message.external_id in seen:
            problems.append(Problem("sent twice in this post", f"messages.{n}.externalId"))
        seen.add(message.external_id)
    if sum(c.chars for c in checked) > MAX_POST_CHARS:
        said = f"at most {MAX_POST_CHARS} characters of text and quoted history in one post"
        problems.append(Problem(said, "messages"))
    if sum(c.attachment_bytes for c in checked) > MAX_POST_ATTACHMENT_BYTES:
        said = f"at most {MAX_POST_ATTACHMENT_BYTES} bytes of attachments in one post"
        problems.append(Problem(said, "messages"))
    return problems
