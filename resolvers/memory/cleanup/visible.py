"""Memory's cleanup runs made visible (issue 11, item 5): the Monday removals and the
consolidations, each with its audience, trigger, reader, counts and cost, and its changes with
their reasons. A person sees the runs of their own audience (their profile), an admin (the
settings update right) every run; a change shows its page, line and text only to a reader who
may read that page (the page's read rule, ``access.may_read_page``), its kind and reason to
everyone who sees the run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import asyncpg

from db import cleanup_runs
from db.cleanup_runs import ChangeRow, RunRow
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.pages import DEFAULT_PAGE_SIZE, check_page_size
from resolvers.common.principals import Principal
from resolvers.memory.access import may_read_page

CLEANUP_KINDS = ("removal", "consolidation")


@dataclass(frozen=True, slots=True)
class CleanupsPage:
    runs: list[RunRow]
    end_cursor: str | None


async def memory_cleanups(
    conn: asyncpg.Connection,
    principal: Principal,
    *,
    kind: str | None = None,
    every: bool = False,
    first: int | None = None,
    after: str | None = None,
) -> CleanupsPage:
    """The runs of the caller's own audience (``every``: the workspace's, for an admin),
    newest first; every problem with the arguments listed."""
    problems = []
    if kind is not None and kind not in CLEANUP_KINDS:
        problems.append(Problem(f"one of {', '.join(CLEANUP_KINDS)}", "kind"))
    try:
        size = check_page_size(first)
    except DomainError as error:
        problems.extend(error.problems)
        size = DEFAULT_PAGE_SIZE
    cursor = None
    if after is not None:
        try:
            cursor = ids.decode_cursor(after)
        except DomainError as error:
            problems.extend(error.problems)
    if problems:
        raise invalid(problems)
    if every and not principal.row.can_update_settings:
        raise DomainError(Code.FORBIDDEN, "Only an admin sees the workspace's cleanup runs.")
    if not every and principal.person_id is None:
        raise DomainError(Code.FORBIDDEN, "The request acts for no member.")
    position = (cursor.created_at, cursor.key) if cursor else None
    rows = await cleanup_runs.runs(conn, principal.person_id, every, kind, size, position)
    last = rows[-1] if rows and len(rows) == size else None
    return CleanupsPage(rows, ids.encode_cursor(last.id, last.started_at) if last else None)


def check_changes_window(first: int, after: int) -> int:
    """The size of a run's page of changes (numbered after ``after``), within the page cap."""
    problems = []
    try:
        size = check_page_size(first)
    except DomainError as error:
        problems.extend(error.problems)
        size = 0
    if after < 0:
        problems.append(Problem("a change's number, 0 or more", "after"))
    if problems:
        raise invalid(problems)
    return size


async def changes_of_runs(
    conn: asyncpg.Connection,
    readable: Sequence[UUID],
    person: UUID | None,
    keys: Sequence[tuple[UUID, int, int]],
) -> list[list[ChangeRow]]:
    """For each (run, first, after) asked, its changes numbered after ``after``, at most
    ``first``, with what the reader (``person``, whose role reads ``readable``) needs to know
    whether they may read each one's page: one statement per distinct window."""
    found: dict[tuple[UUID, int, int], list[ChangeRow]] = {key: [] for key in keys}
    for first, after in sorted({(first, after) for _, first, after in keys}):
        wanted = [run for run, size, start in keys if (size, start) == (first, after)]
        rows = await cleanup_runs.changes(conn, wanted, after, first, readable, person)
        for row in rows:
            found[(row.cleanup_id, first, after)].append(row)
    return [found[key] for key in keys]


def change_shown(principal: Principal, row: ChangeRow) -> bool:
    """Whether the caller may read the page a change was made on (a page gone: no)."""
    if row.about_kind is None or row.memory_object_id is None:
        return False
    return may_read_page(
        principal, row.memory_object_id, row.about_kind, row.subject_readable, row.member_id
    )
