"""Named SQL blocks, read from ``db/queries/*.sql``.

A block starts with ``-- name: <name>`` followed by a one-line ``-- `` description; its text
runs to the next block. Each block is wrapped by exactly one typed function in ``db/``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

QUERIES_DIR = Path(__file__).parent / "queries"
_BLOCK = re.compile(r"^-- name: (?P<name>[a-z_]+)\n(?P<body>.*?)(?=^-- name: |\Z)", re.M | re.S)


@cache
def queries(domain: str) -> dict[str, str]:
    """Every named query of ``db/queries/<domain>.sql``, by name."""
    text = (QUERIES_DIR / f"{domain}.sql").read_text()
    found: dict[str, str] = {}
    for match in _BLOCK.finditer(text):
        name = match["name"]
        if name in found:
            raise RuntimeError(f"query {name} is defined twice in {domain}.sql")
        found[name] = match["body"].strip()
    return found
