"""Exchanges, by code, once an hour (issue 11, item 2; seed 000 "Learning from mail").

An exchange opens only on a received mail its mailbox's classifier filed Direct and flagged
important (never a newsletter, a notification, a marketing, transactional, custom-category or
uncategorized mail, a Direct mail not flagged important, nor a reply sent); it is read once the
thread has been quiet for ``QUIET`` (2 hours) in that mailbox, from the message just before the
important mail through the thread's last message there (a later important mail opens its own
exchange from that point, and ends the one before). Only mail classified in the last ``REACH``
(30 days, counted in UTC) is read, both when the exchange opens and when a pass reads it (an
item read late reads only what is still within them; migration 0018); deleted mail is left
out. A personal mailbox is read while its owner's
``memory.learnFromEmail`` is on, and only its mail from the moment it was last turned on; a
shared mailbox is always read. A workspace opens at most ``HOUR_CAP`` (50) exchanges an hour
and ``DAY_CAP`` (300) a day (UTC), the longest quiet first; the rest wait for the next hour.

Each exchange becomes one item of ``memory_items`` (kind ``mail``): the mailbox owner's (private
to them, paid by them, their ``memory.shareWithTeam``), or the workspace's for a shared mailbox.
The rules are SQL, written once (``mail_openable``, migrations 0015 and 0018): one statement
lists the workspaces with exchanges to open (``mail_due``: ids, times and counts), then one
transaction per such workspace (under its lock: two runs at once never pass the caps) opens its
exchanges with their items in one statement; a workspace whose transaction fails is logged by
its id and skipped until the next hour, never keeping the workspaces after it waiting; a mailbox
with nothing to open costs no statement of its own. Running the job again at the same time opens
nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import cast
from uuid import UUID

import asyncpg

from db import dreamer, mail
from db.mail import MailRules
from db.pool import begin_workspace

log = logging.getLogger("skillmem.mail")

QUIET = timedelta(hours=2)
REACH = timedelta(days=30)
HOUR_CAP = 50
DAY_CAP = 300
# The periodic job's name and cron (every hour, on the hour, UTC).
JOB_NAME = "memory.mail"
JOB_CRON = "0 * * * *"


@dataclass(frozen=True, slots=True)
class Opened:
    """What the job did at one time: exchanges opened per workspace, and the workspaces whose
    run failed (the error's type: nothing of theirs was written, the next hour tries again)."""

    at: datetime
    by_workspace: dict[str, int]
    failed: dict[str, str] = field(default_factory=dict)

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
    given), each with its item. ``now`` is taken in UTC, whatever its offset (`dreamer run
    --now` may give one): the caps' hour and day, the 30 days and the job's report are UTC's."""
    now = now.astimezone(UTC)
    rules = rules_at(now)
    found = Opened(now, {})
    async with pool.acquire() as proxy:
        conn = cast(asyncpg.Connection, proxy)
        due = await mail.due_workspaces(conn, now, rules)
    for one in due:
        if workspaces is None or one.workspace_id in workspaces:
            await _isolated(pool, one.workspace_id, now, rules, found)
    return found


async def _isolated(
    pool: asyncpg.Pool, workspace_id: UUID, now: datetime, rules: MailRules, found: Opened
) -> None:
    """``open_workspace`` on a connection of its own, whose failure (the database's, a bug) is
    logged by the workspace's id alone (an error's text could quote its mail) and keeps no
    other workspace waiting; nothing of it was written, and the next hour tries again."""
    try:
        async with pool.acquire() as proxy:
            count = await open_workspace(cast(asyncpg.Connection, proxy), workspace_id, now, rules)
    except Exception as error:  # noqa: BLE001 - one workspace's failure never stops the others
        log.error("mail job of workspace %s failed", workspace_id)
        found.failed[str(workspace_id)] = type(error).__name__
        return
    if count:
        found.by_workspace[str(workspace_id)] = count


async def open_workspace(
    conn: asyncpg.Connection, workspace_id: UUID, now: datetime, rules: MailRules
) -> int:
    """One workspace's exchanges due at ``now`` opened in one transaction; how many."""
    async with conn.transaction():
        await begin_workspace(conn, workspace_id)
        # One job at a time per workspace (a worker's, `dreamer run`'s): the caps hold.
        await dreamer.lock_source(conn, f"{workspace_id}:mail-job")
        opened: int = await mail.open_exchanges(conn, now, rules)
    return opened


def lines(opened: Opened) -> list[str]:
    """What the job did, for the log and the command line: one line per workspace where it
    opened exchanges (none when it opened none)."""
    done = [
        f"mail: workspace {ws}: {n} exchange(s) opened at {opened.at.isoformat()}"
        for ws, n in opened.by_workspace.items()
    ]
    return done + [f"mail: workspace {ws}: failed ({error})" for ws, error in opened.failed.items()]


# Why a waiting mail item is not read after all (a pass finds it so).
MAIL_DELETED = "mail_deleted"
LEARN_FROM_EMAIL_OFF = "learn_from_email_off"
MAIL_TOO_OLD = "mail_too_old"


async def without_closed(
    conn: asyncpg.Connection, rows: Sequence[asyncpg.Record]
) -> list[asyncpg.Record]:
    """A pass's waiting rows but the mail items no longer to read, which are not read now with
    their reason: the important mail was deleted since the exchange opened, the personal
    mailbox's owner turned memory.learnFromEmail off, or the important mail was classified
    more than ``REACH`` before the pass (``waiting_items``' mail_closed)."""
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
