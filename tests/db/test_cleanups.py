"""Cleanup runs and their changes are recorded, numbered in order, inside the workspace."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

from db import cleanups
from db.cleanups import ChangeRow, CleanupRow
from db.pool import begin_workspace


async def test_a_run_and_its_changes_are_recorded_in_order(pool, ws) -> None:
    at = datetime(2026, 11, 30, 0, 5, tzinfo=UTC)
    run_id, page_id = uuid4(), uuid4()
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await cleanups.insert_cleanup(
            conn, CleanupRow(run_id, "removal", "workspace", None, "monday", "code", at, at)
        )
        await cleanups.insert_changes(
            conn,
            run_id,
            [
                ChangeRow(page_id, "removed", "ended", "k1", "- a line"),
                ChangeRow(page_id, "page_deleted", "page_empty"),
            ],
            at,
        )
        rows = await conn.fetch(
            "SELECT number, change, reason, line_key FROM memory_cleanup_changes"
            " WHERE cleanup_id = $1 ORDER BY number",
            run_id,
        )
    assert [tuple(r) for r in rows] == [
        (1, "removed", "ended", "k1"),
        (2, "page_deleted", "page_empty", None),
    ]
