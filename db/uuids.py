"""A uuid's hex digits from its text, as PostgreSQL writes a uuid in JSON."""

from __future__ import annotations

import re
from uuid import UUID

# uuid_out's spelling, in json and jsonb alike: lowercase 8-4-4-4-12.
_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def hex_of(text: str) -> str:
    """``UUID(text).hex`` without making a UUID when ``text`` is canonical (a page makes a
    global id of most related records); text in any other form is parsed, and refused as
    UUID() refuses it, never turned into another id."""
    if type(text) is str and _CANONICAL.fullmatch(text):
        return text.replace("-", "")
    return UUID(text).hex
