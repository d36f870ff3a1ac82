"""Global IDs: opaque, naming a type and a workspace, checked on every resolve."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from uuid import UUID, uuid4

from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The URL-safe alphabet from the standard one (what base64.urlsafe_b64encode translates).
_URLSAFE = bytes.maketrans(b"+/", b"-_")


def _b64(raw: bytes) -> str:
    """URL-safe base64 without padding, as base64.urlsafe_b64encode spells it without its
    Python-level calls (a page of records encodes 37 ids and 20 cursors)."""
    return binascii.b2a_base64(raw, newline=False).translate(_URLSAFE).rstrip(b"=").decode()


# "cursor" is two whole 3-byte groups: a cursor's encoded start is a constant.
_CURSOR = _b64(b"cursor")


@lru_cache(1024)
def _prefix(type_name: str, workspace_id: UUID) -> tuple[str, bytes]:
    """The encoded start of every id of a type in a workspace, whole 3-byte groups (base64 of
    a concatenation is the concatenation of their base64 when the first is whole groups), and
    the bytes left over that start the rest."""
    raw = f"{type_name}:{workspace_id.hex}:".encode()
    whole = len(raw) - len(raw) % 3
    return _b64(raw[:whole]), raw[whole:]


def encode(type_name: str, workspace_id: UUID, local_id: UUID) -> str:
    """The global ID of a node."""
    return encode_hex(type_name, workspace_id, local_id.hex)


def encode_hex(type_name: str, workspace_id: UUID, local_hex: str) -> str:
    """The global ID of a node whose id is given as its 32 lowercase hex digits (``UUID.hex``)."""
    head, rest = _prefix(type_name, workspace_id)
    return head + _b64(rest + local_hex.encode())


def decode(global_id: str, type_name: str, workspace_id: UUID, field: str = "id") -> UUID:
    """The local id behind ``global_id``.

    A malformed id is a validation error; an id of another type or another workspace is
    answered exactly like a missing node.
    """
    try:
        padded = global_id + "=" * (-len(global_id) % 4)
        kind, workspace, local = base64.urlsafe_b64decode(padded.encode()).decode().split(":")
        parsed_workspace, parsed_local = UUID(hex=workspace), UUID(hex=local)
    except (ValueError, binascii.Error, UnicodeError):
        raise invalid([Problem("not a valid ID", field=field)]) from None
    if encode(kind, parsed_workspace, parsed_local) != global_id:
        # One spelling per node: no padding, no stray characters, lowercase hex.
        raise invalid([Problem("not a valid ID", field=field)])
    if kind != type_name or parsed_workspace != workspace_id:
        raise not_found(_words(type_name))
    return parsed_local


def decode_or_absent(global_id: str, type_name: str, workspace_id: UUID, field: str = "id") -> UUID:
    """The local id behind ``global_id``; for an id of another type or another workspace, a
    fresh id that names nothing, so that the caller answers exactly as it does for a missing
    node (its own answer, not this module's). A malformed id is a validation error."""
    try:
        return decode(global_id, type_name, workspace_id, field)
    except DomainError as error:
        if error.code is not Code.NOT_FOUND:
            raise
        return uuid4()


def _words(type_name: str) -> str:
    """A type's name as the error messages say it: MemoryPage -> memory page."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", type_name).lower()


@dataclass(frozen=True, slots=True)
class Cursor:
    """A position in a list kept in creation order: the node it follows (a random id, never a
    sequence other workspaces move) and that node's creation time, so that the list goes on
    from the same place once the node is deleted."""

    key: UUID
    created_at: datetime


def encode_cursor(key: UUID, created_at: datetime) -> str:
    """An opaque cursor after the node ``key`` created at ``created_at``."""
    return _CURSOR + _b64(f":{key.hex}:{_micros(created_at)}".encode())


def decode_cursor(cursor: str, field: str = "after") -> Cursor:
    """The position behind a cursor; a malformed cursor is a validation error."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        tag, key, micros = base64.urlsafe_b64decode(padded.encode()).decode().split(":")
        found = Cursor(UUID(hex=key), _EPOCH + timedelta(microseconds=int(micros)))
    except (ValueError, OverflowError, binascii.Error, UnicodeError):
        raise invalid([Problem("not a valid cursor", field=field)]) from None
    # One spelling per cursor, as for global ids.
    if tag != "cursor" or encode_cursor(found.key, found.created_at) != cursor:
        raise invalid([Problem("not a valid cursor", field=field)])
    return found


def _micros(moment: datetime) -> int:
    # In integers, the same as `// timedelta(microseconds=1)` and a third of its cost (a page
    # of 20 makes 20 cursors).
    since = moment - _EPOCH
    return (since.days * 86_400 + since.seconds) * 1_000_000 + since.microseconds


def encode_text_cursor(key: str) -> str:
    """An opaque cursor for a position in a list ordered by text (a name)."""
    return _b64(f"after:{key}".encode())


def decode_text_cursor(cursor: str, field: str = "after") -> str:
    """The text position behind a cursor; a malformed cursor is a validation error."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        tag, _, key = base64.urlsafe_b64decode(padded.encode()).decode().partition(":")
    except (ValueError, binascii.Error, UnicodeError):
        raise invalid([Problem("not a valid cursor", field=field)]) from None
    # NUL is no text PostgreSQL can compare: a cursor that decodes to it is no cursor of ours.
    if tag != "after" or "\x00" in key or encode_text_cursor(key) != cursor:
        raise invalid([Problem("not a valid cursor", field=field)])
    return key
