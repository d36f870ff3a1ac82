"""Global IDs: opaque, naming a type and a workspace, checked on every resolve."""

from __future__ import annotations

import base64
import binascii
import re
from uuid import UUID

from resolvers.common.errors import Problem, invalid, not_found


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


def _words(type_name: str) -> str:
    """A type's name as the error messages say it: MemoryPage -> memory page."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", type_name).lower()


def encode_cursor(key: UUID) -> str:
    """An opaque cursor after a node of a list kept in creation order: it names the node itself
    (a random id), never a position shared with other workspaces."""
    return base64.urlsafe_b64encode(f"cursor:{key.hex}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str, field: str = "after") -> UUID:
    """The node behind a cursor; a malformed cursor is a validation error."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        tag, key = base64.urlsafe_b64decode(padded.encode()).decode().split(":")
        value = UUID(hex=key)
    except (ValueError, binascii.Error, UnicodeError):
        raise invalid([Problem("not a valid cursor", field=field)]) from None
    # One spelling per cursor, as for global ids.
    if tag != "cursor" or encode_cursor(value) != cursor:
        raise invalid([Problem("not a valid cursor", field=field)])
    return value


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
    if tag != "after" or encode_text_cursor(key) != cursor:
        raise invalid([Problem("not a valid cursor", field=field)])
    return key
