"""Mailboxes (issue 11, item 1): ``createMailbox`` and ``POST /v1/mailboxes``.

A mailbox is personal (one member's: private to them, feeding their memory) or shared (the
workspace's, feeding workspace memory). Who creates one: a shared mailbox or anyone's personal
one, a person with the settings update right in their own session or an API key with that
right (a partner scripts it); a member their own personal one. A personal mailbox knows its
owner's addresses (by default the member's email): a mail the provider filed as sent from one
of them is the owner's own words. Its external id is the caller's, one namespace per owner;
re-sending it with the same content answers the stored mailbox, with other content a
validation problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID, uuid4

import asyncpg

from db import dreamer, mail
from db.mail import MailboxRow
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.dreamer.intake import with_refused
from resolvers.memory.mail.checks import MailboxInput, addresses_of, mailbox_problems

MAILBOX_TYPE = "Mailbox"


@dataclass(frozen=True, slots=True)
class CreatedMailbox:
    mailbox: MailboxRow
    replayed: bool


def trusted(principal: Principal) -> bool:
    """A person with the settings update right in their own session, or an API key with that
    right: they set up mailboxes and post any mailbox's mail (never an agent or a client
    acting for someone)."""
    return principal.row.can_update_settings and principal.kind in ("member", "api_key")


def may_use(principal: Principal, kind: str, owner: UUID | None) -> bool:
    """Whether the caller may create (or post into) a mailbox of this kind and owner."""
    if trusted(principal):
        return True
    return kind == "personal" and principal.kind == "member" and principal.person_id == owner


def _owner(principal: Principal, given: MailboxInput, problems: list[Problem]) -> UUID | None:
    """The personal mailbox's owner: the member named, else the caller's person."""
    if given.kind != "personal":
        return None
    if given.owner_id is None:
        if principal.person_id is None:
            message = "an API key acts for no person: name the mailbox's owner"
            problems.append(Problem(message, "ownerId"))
        return principal.person_id
    try:
        return ids.decode(given.owner_id, "Member", principal.workspace_id, "ownerId")
    except DomainError as error:
        if error.code is Code.NOT_FOUND:
            raise not_found("member") from None
        problems.extend(error.problems)
        return None


async def create_mailbox(
    conn: asyncpg.Connection, principal: Principal, given: MailboxInput
) -> CreatedMailbox:
    """Create a mailbox; a re-sent one answers as stored. Nothing is stored when anything is
    refused."""
    problems = mailbox_problems(given)
    owner = _owner(principal, given, problems) if given.kind in ("personal", "shared") else None
    problems = with_refused(given.refused, problems)
    if problems:
        raise invalid(problems)
    if not may_use(principal, given.kind, owner):
        raise DomainError(
            Code.FORBIDDEN,
            "Only an admin (or an API key with the settings right) creates this mailbox; a"
            " member creates their own personal one.",
        )
    addresses = addresses_of(given.addresses or [])
    if owner is not None:
        email = await mail.member_email(conn, owner)
        if email is None:
            raise not_found("member")
        addresses = addresses or [email]
    new = MailboxRow(
        uuid4(), given.external_id, given.kind, owner, given.name, addresses, clock.now()
    )
    # A savepoint, and the external id's lock: a re-send waits for the first and finds it.
    async with conn.transaction():
        key = f"{principal.workspace_id}:mailbox:{owner or 'workspace'}:{given.external_id}"
        await dreamer.lock_source(conn, key)
        found = await mail.mailbox_of(conn, owner, given.external_id)
        if found is not None:
            same = (found.kind, found.name) == (new.kind, new.name)
            if not same or (given.addresses is not None and found.addresses != addresses):
                message = "this external id was recorded with other content: nothing was stored"
                raise invalid([Problem(message, "externalId")])
            return CreatedMailbox(found, replayed=True)
        return CreatedMailbox(await mail.insert_mailbox(conn, new), replayed=False)


async def mailbox_for(
    conn: asyncpg.Connection, principal: Principal, mailbox_gid: str
) -> MailboxRow:
    """The mailbox a global id names, when the caller may post into it: NOT_FOUND for one it
    may not (a member's own session sees only their personal mailboxes)."""
    local = ids.decode(mailbox_gid, MAILBOX_TYPE, principal.workspace_id, "mailboxId")
    found = await mail.mailbox_by_id(conn, local)
    if found is None:
        raise not_found("mailbox")
    if not may_use(principal, found.kind, found.owner_id):
        if principal.kind == "member" and found.owner_id not in (None, principal.person_id):
            raise not_found("mailbox")
        raise DomainError(Code.FORBIDDEN, "You may not post into this mailbox.")
    return found
