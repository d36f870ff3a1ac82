"""The shape each attribute type accepts for a record value (pure)."""

from __future__ import annotations

import math
import re
from datetime import date
from typing import Any

MAX_TEXT_CHARS = 10_000
MAX_LABEL_CHARS = 500
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# Integers JSON values are stored with (the encoder refuses larger ones).
MIN_INT, MAX_INT = -(2**63), 2**63 - 1


def value_problem(attribute_type: str, value: Any) -> str | None:
    """Why ``value`` does not fit ``attribute_type``, or None when it does (null always fits)."""
    if value is None:
        return None
    if attribute_type in ("text", "email", "url"):
        if not isinstance(value, str):
            return "must be a string"
        if len(value) > MAX_TEXT_CHARS:
            return f"must be at most {MAX_TEXT_CHARS} characters"
        if attribute_type == "email" and not _EMAIL.fullmatch(value):
            return "must be an email address"
        if attribute_type == "url" and not value.startswith(("https://", "http://")):
            return "must be an http or https URL"
        return None
    if attribute_type == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if isinstance(value, float) and not math.isfinite(value):
            return "must be a finite number"
        if isinstance(value, int) and not MIN_INT <= value <= MAX_INT:
            return "must be within the 64-bit integer range"
        return None
    if attribute_type == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if attribute_type == "date":
        if not isinstance(value, str) or not _DATE.fullmatch(value):
            return "must be a date (YYYY-MM-DD)"
        try:
            date.fromisoformat(value)
        except ValueError:
            return "must be a date (YYYY-MM-DD)"
        return None
    return f"has an unknown type {attribute_type}"


def label_problem(label: Any) -> str | None:
    """Why ``label`` is not a usable record label, or None."""
    if not isinstance(label, str) or not label.strip():
        return "must be a non-empty string"
    if len(label) > MAX_LABEL_CHARS:
        return f"must be at most {MAX_LABEL_CHARS} characters"
    return None
