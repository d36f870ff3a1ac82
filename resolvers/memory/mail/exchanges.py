"""Exchanges, by code, once an hour (issue 11, item 2; seed 000 "Learning from mail").

An exchange opens only on a received mail its mailbox's classifier filed Direct and flagged
important (never a newsletter, a notification, a marketing, transactional, custom-category or
uncategorized mail, a Direct mail not flagged important, nor a reply sent); it is read once the
thread has been quiet for ``QUIET`` (2 hours) in that mailbox, from the message just before the
important mail through the thread's last message there (a later important mail opens its own
exchange from that point, and ends the one before). Only mail classified in the last ``REACH``
(30 days) is read; deleted mail is left out. A personal mailbox is read while its owner's
``memory.learnFromEmail`` is on, and only its mail from the moment it was last turned on; a
shared mailbox is always read. A workspace opens at most ``HOUR_CAP`` (50) exchanges an hour
and ``DAY_CAP`` (300) a day (UTC), the longest quiet first; the rest wait for the next hour.

Each exchange becomes one item of ``memory_items`` (kind ``mail``): the mailbox owner's (private
to them, paid by them, their ``memory.shareWithTeam``), or the workspace's for a shared
mailbox. The rules are SQL, written once (``mail_openable``, migration 0015): one statement
lists the workspaces with exchanges to open (``mail_due``: ids, times and counts), then one
transaction per such workspace (under its lock: two runs at once never pass the caps) opens its
exchanges with their items in one statement; a
mailbox with nothing to open costs no statement of its own. Running the job again at the same
time opens nothing twice.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import cast
from uuid import UUID

import asyncpg

from db import dreamer, mail
from db.mail import MailRules
from db.pool import begin_workspace

QUIET = timedelta(hours=2)
REACH = timedelta(days=30)
HOUR_CAP = 50
DAY_CAP = 300
# The periodic job's name and cron (every hour, on the hour, UTC).
JOB_NAME = "memory.mail"
JOB_CRON = "0 * * * *"


@dataclass(frozen=True, slots=True)
class Opened:
    """What the job did at one time: exchanges opened per workspace."""

    at: datetime
    by_workspace: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.by_workspace.values())


def rules_at(now: datetime) -> MailRules:
    """The job's rules at ``now``: its hour and its day (UTC) for the caps."""
    utc = now.astimezone(UTC)
    hour = utc.replace(minute=0, second=0, microsecond=0)
    return MailRules(QUIET, REACH, hour, hour.replace(hour=0), HOUR_CAP, DAY_CAP)


async def open_due(
    pool: asyncpg.Pool, now: datetime, workspaces: Collection[UUID] | None = None
) -> Opened:
    """Open every workspace's exchanges due at ``now`` (only those of ``workspaces`` when
    given), each with its item."""
    rules = rules_at(now)
    opened: dict[str, int] = {}
    async with pool.acquire() as proxy:
        conn = cast(asyncpg.Connection, proxy)
        for due in await mail.due_workspaces(conn, now, rules):
            if workspaces is not None and due.workspace_id not in workspaces:
                continue
            async with conn.transaction():
                await begin_workspace(conn, due.workspace_id)
                # One job at a time per workspace (a worker's, `dreamer run`'s): the caps hold.
                await dreamer.lock_source(conn, f"{due.workspace_id}:mail-job")
                count = await mail.open_exchanges(conn, now, rules)
            if count:
                opened[str(due.workspace_id)] = count
    return Opened(now, opened)


def lines(opened: Opened) -> list[str]:
    """What the job did, for the log and the command line: one line per workspace where it
    opened exchanges (none when it opened none)."""
    return [
        f"mail: workspace {ws}: {n} exchange(s) opened at {opened.at.isoformat()}"
        for ws, n in opened.by_workspace.items()
    ]


# Why a waiting mail item is not read after all (a pass finds it so).
MAIL_DELETED = "mail_deleted"
LEARN_FROM_EMAIL_OFF = "learn_from_email_off"


async def without_closed(
    conn: asyncpg.Connection, rows: Sequence[asyncpg.Record]
) -> list[asyncpg.Record]:
    """A pass's waiting rows but the mail items no longer to read, which are not read now with
    their reason: the important mail was deleted since the exchange opened, or the personal
    mailbox's owner turned memory.learnFromEmail off (``waiting_items``' mail_closed)."""
    kept: list[asyncpg.Record] = []
    closed: dict[str, list[UUID]] = {}
    for row in rows:
        reason = row["mail_closed"] if row["kind"] == "mail" else None
        if reason is None:
            kept.append(row)
        else:
            closed.setdefault(reason, []).append(row["id"])
    for reason, item_ids in closed.items():
        await mail.close_items(conn, item_ids, reason)
    return kept
