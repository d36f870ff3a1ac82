"""Tables on stdout with rich (plain text when stdout is not a terminal: no colour codes)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

# Where stdout is a file or a pipe, rows are this wide before rich wraps a cell.
PIPE_WIDTH = 200


def print_table(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    table = Table(*columns)
    for row in rows:
        table.add_row(*("" if cell is None else str(cell) for cell in row))
    console = Console()
    if not console.is_terminal:
        console = Console(width=PIPE_WIDTH)
    console.print(table)
