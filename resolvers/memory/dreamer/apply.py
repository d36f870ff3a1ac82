"""Writing a pass's decisions (issue 10, item 6): each changed page stored with a version (a
record's or an actor's page created on its first souvenir), and every verdict recorded
against its item, a proposal's status with it. Runs inside the pass's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from db import dreamer_pass, memory
from db.memory import PageRow
from resolvers.common.errors import Problem, invalid
from resolvers.memory.dreamer.context import PageKey
from resolvers.memory.dreamer.gather import Gathered
from resolvers.memory.dreamer.verdicts import Decisions, Verdict
from resolvers.memory.system import PAGE_NAME_MAX_CHARS, SYSTEM_ACTOR
from resolvers.memory.writing import store

# A proposal's status from its learnings' verdicts: written over refreshed over refused.
_STRONGEST = ("written", "refreshed", "refused")


async def write_pages(
    conn: asyncpg.Connection, gathered: Gathered, decisions: Decisions, at: datetime
) -> dict[PageKey, UUID]:
    """Store every page the decisions change; the page ids by what they are about."""
    workspace_id = gathered.context.workspace_id
    written: dict[PageKey, UUID] = {}
    for key, lines in decisions.pages.items():
        row = gathered.context.pages.get(key)
        operation = "modified"
        if row is None:
            row = await _create(conn, key, gathered.names.get(key, "memory"), at)
            operation = "created"
        await store(conn, workspace_id, row, list(lines), SYSTEM_ACTOR, operation)
        written[key] = row.id
    return written


async def _create(conn: asyncpg.Connection, key: PageKey, name: str, at: datetime) -> PageRow:
    """A new page about ``key``, to be written in the same transaction."""
    kind, about = key
    page_id = uuid4()
    await memory.insert_page(
        conn,
        page_id,
        kind,
        member_id=about if kind == "member" else None,
        agent_id=about if kind == "agent" else None,
        routine_id=about if kind == "routine" else None,
        subject_id=about if kind == "record" else None,
        name=name[:PAGE_NAME_MAX_CHARS] or "memory",
        description="",
        at=at,
    )
    row = await memory.page_shown(conn, page_id, [], None, stored_form=True, for_update=True)
    if row is None:
        raise invalid([Problem("the page could not be created", "page")])
    return row


def verdict_rows(
    gathered: Gathered, verdicts: Sequence[Verdict], pages: dict[PageKey, UUID]
) -> list[dict[str, Any]]:
    """One row per verdict, numbered per item in order."""
    numbers: dict[str, int] = {}
    rows = []
    for verdict in verdicts:
        item = gathered.item_ids.get(verdict.item_id)
        if item is None:
            continue
        numbers[verdict.item_id] = numbers.get(verdict.item_id, 0) + 1
        page = pages.get(verdict.page) if verdict.page is not None else None
        if page is None and verdict.page is not None:
            existing = gathered.context.pages.get(verdict.page)
            page = existing.id if existing is not None else None
        rows.append(
            {
                "item_id": item,
                "number": numbers[verdict.item_id],
                "verdict": verdict.verdict,
                "reason": verdict.reason,
                "page_id": page if verdict.verdict != "refused" else None,
                "line_key": verdict.key if verdict.verdict != "refused" else None,
                "text": verdict.text,
            }
        )
    return rows


def proposal_decisions(
    rows: Sequence[asyncpg.Record], verdicts: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each proposal read: its status (written, refreshed or refused) and its verdict (the
    reason of a refusal, else the status)."""
    by_item: dict[UUID, list[dict[str, Any]]] = {}
    for verdict in verdicts:
        by_item.setdefault(verdict["item_id"], []).append(verdict)
    decided = []
    for row in rows:
        if row["proposal_id"] is None or row["id"] not in by_item:
            continue
        found = by_item[row["id"]]
        status = min((v["verdict"] for v in found), key=_STRONGEST.index)
        reason = next((v["reason"] for v in found if v["verdict"] == status), None)
        decided.append({"id": row["proposal_id"], "status": status, "verdict": reason or status})
    return decided


async def record(
    conn: asyncpg.Connection,
    gathered: Gathered,
    rows: Sequence[asyncpg.Record],
    decisions: Decisions,
    pages: dict[PageKey, UUID],
    pass_id: UUID,
    at: datetime,
) -> list[dict[str, Any]]:
    """Mark the items read by this pass with their verdicts, and decide their proposals."""
    verdicts = verdict_rows(gathered, decisions.verdicts, pages)
    await dreamer_pass.mark_read(conn, [row["id"] for row in rows], at, pass_id)
    await dreamer_pass.insert_verdicts(conn, verdicts, at)
    await dreamer_pass.decide_proposals(conn, proposal_decisions(rows, verdicts), at)
    return verdicts
