"""Global IDs: opaque, naming a type and a workspace, checked on every resolve."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def encode(type_name: str, workspace_id: UUID, local_id: UUID) -> str:
    """The global ID of a node."""
    raw = f"{type_name}:{workspace_id.hex}:{local_id.hex}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


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
    micros = _micros(created_at)
    return base64.urlsafe_b64encode(f"cursor:{key.hex}:{micros}".encode()).decode().rstrip("=")


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
    return base64.urlsafe_b64encode(f"after:{key}".encode()).decode().rstrip("=")


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
