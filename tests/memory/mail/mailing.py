"""Helpers of the mail tests: mailboxes and mail recorded through the resolvers with the clock
stood, the hourly job run for one workspace, and what the database holds (read as the owner)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from db.mail import MailboxRow
from db.pool import begin_workspace
from resolvers.common import clock, ids
from resolvers.common.principals import principal_for_token
from resolvers.memory import settings
from resolvers.memory.mail import exchanges
from resolvers.memory.mail.checks import AttachmentInput, MailboxInput, MessageInput
from resolvers.memory.mail.mailboxes import MAILBOX_TYPE, create_mailbox
from resolvers.memory.mail.messages import RecordedMail, record_mail
from tests.factories import Workspace

OUTSIDER = "carol@client.example"


def address(ws: Workspace, who: str) -> str:
    """A member's email, as tests/factories.py makes it."""
    return f"{who}@{ws.name.lower()}.example"


async def mailbox(
    pool: asyncpg.Pool,
    ws: Workspace,
    owner: str | None = "member",
    *,
    external_id: str | None = None,
    addresses: Sequence[str] | None = None,
) -> MailboxRow:
    """A personal mailbox of ``owner`` (None: a shared one), made by the admin."""
    async with pool.acquire() as conn, conn.transaction():
        admin = await principal_for_token(conn, ws.tokens["admin"])
        assert admin is not None
        given = MailboxInput(
            external_id=external_id or f"box-{owner or 'shared'}",
            kind="personal" if owner else "shared",
            name=f"{owner or 'Team'}'s mail",
            owner_id=ws.gid(ws.members[owner], "Member") if owner else None,
            addresses=addresses,
        )
        return (await create_mailbox(conn, admin, given)).mailbox


def box_gid(ws: Workspace, box: MailboxRow) -> str:
    return ids.encode(MAILBOX_TYPE, ws.id, box.id)


def message(
    external_id: str,
    at: datetime,
    *,
    thread: str = "t1",
    filed: str = "received",
    sender: str = OUTSIDER,
    category: str | None = "direct",
    important: bool = False,
    text: str = "Hello.",
    **more: Any,
) -> MessageInput:
    """One message as a provider files it (received from an outsider, Direct by default)."""
    return MessageInput(
        external_id=external_id,
        thread_id=thread,
        filed=filed,
        from_address=sender,
        at=at,
        category=category,
        important=important,
        text=text,
        subject=more.pop("subject", "Renewal"),
        from_name=more.pop("from_name", "Carol" if sender == OUTSIDER else None),
        **more,
    )


def important(external_id: str, at: datetime, **more: Any) -> MessageInput:
    """A received mail filed Direct and flagged important: it opens an exchange."""
    return message(external_id, at, important=True, **more)


def reply(external_id: str, at: datetime, ws: Workspace, who: str = "member", **more: Any):
    """A reply sent from ``who``'s own address."""
    return message(external_id, at, filed="sent", sender=address(ws, who), category=None, **more)


def attachment(name: str, contents: bytes) -> AttachmentInput:
    return AttachmentInput(name, base64.b64encode(contents).decode())


async def post(
    pool: asyncpg.Pool,
    ws: Workspace,
    box: MailboxRow,
    messages: Sequence[MessageInput],
    at: datetime,
    who: str = "admin",
) -> RecordedMail:
    """Post messages into a mailbox as ``who`` with the clock stood at ``at``."""
    clock.set_clock(lambda: at)
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens[who])
        assert principal is not None
        return await record_mail(conn, principal, box_gid(ws, box), messages)


async def open_at(pool: asyncpg.Pool, ws: Workspace, now: datetime) -> int:
    """The hourly job at ``now`` for this workspace: how many exchanges it opened."""
    clock.set_clock(lambda: now)
    opened = await exchanges.open_due(pool, now, workspaces={ws.id})
    return opened.total


async def set_preference(
    pool: asyncpg.Pool, ws: Workspace, who: str, key: str, value: bool, at: datetime
) -> None:
    clock.set_clock(lambda: at)
    async with pool.acquire() as conn, conn.transaction():
        principal = await principal_for_token(conn, ws.tokens[who])
        assert principal is not None
        await settings.set_preference(conn, principal, key, value)


async def exchanges_of(pool: asyncpg.Pool, ws: Workspace) -> list[dict[str, Any]]:
    """The workspace's exchanges in opening order, with their messages' external ids and
    their items."""
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            """SELECT x.*, o.external_id AS opening, f.external_id AS first,
                      l.external_id AS last, i.id AS item_id, i.owner_kind, i.owner_id,
                      i.private_to, i.payer_kind, i.payer_id, i.share_with_team, i.said_at,
                      i.status, i.reason, b.external_id AS mailbox
                 FROM mail_exchanges x
                 JOIN mailboxes b ON b.workspace_id = x.workspace_id AND b.id = x.mailbox_id
                 JOIN mail_messages o ON o.workspace_id = x.workspace_id AND o.id = x.opening_id
                 JOIN mail_messages f ON f.workspace_id = x.workspace_id AND f.id = x.first_id
                 JOIN mail_messages l ON l.workspace_id = x.workspace_id AND l.id = x.last_id
                 LEFT JOIN memory_items i
                        ON i.workspace_id = x.workspace_id AND i.exchange_id = x.id
                WHERE x.workspace_id = $1
                ORDER BY x.opened_at, x.quiet_since, o.sent_at""",
            ws.id,
        )
    return [dict(row) for row in rows]


async def openings(pool: asyncpg.Pool, ws: Workspace) -> list[str]:
    """The external ids of the mails that opened the workspace's exchanges, in order."""
    return [row["opening"] for row in await exchanges_of(pool, ws)]


async def workspace_fetch(pool: asyncpg.Pool, ws: Workspace, query: str, *args: Any) -> list[Any]:
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        return list(await conn.fetch(query, *args))


__all__ = ["UUID"]
