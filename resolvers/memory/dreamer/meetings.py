"""Meetings as the Dreamer's source (issue 10, item 1): ``recordMeeting`` and
``POST /v1/meetings``.

A meeting is a record of the native ``meeting`` object (its title the label), private to its
owner (the caller's person) or the workspace's (no owner: an API key records only those), with
its transcript and the records it is linked to (each one the caller may read). Recording one
needs the role's right to create meetings. Its external id is the caller's, one namespace per
owner; re-sending it with the same content answers the stored meeting, with other content a
validation problem.

Its item waits when the meeting is linked to records (it is read for them), else it is not
read (``no_linked_records``). Its page owner and payer: the owner, or the workspace.

``deleteMeeting`` and ``DELETE /v1/meetings/{id}`` delete one the caller may read, with the
role's right to delete meetings: its record, transcript, links and item. Souvenirs it was the
source of are then from a source gone, and the Monday removal takes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from db import dreamer, records
from db.dreamer import ItemRow, MeetingRow, NewItem
from resolvers.common import clock
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal
from resolvers.memory.dreamer.intake import (
    Named,
    arrive,
    decode_records,
    external_id_problems,
    meeting_status,
    readable_or_not_found,
    scope_problems,
    text_problems,
    time_problems,
    with_refused,
)
from resolvers.records.values import MAX_LABEL_CHARS

MEETING_OBJECT = "meeting"
# A meeting's title is its record's label.
MAX_TITLE_CHARS = MAX_LABEL_CHARS
MAX_TRANSCRIPT_CHARS = 200_000
MAX_MEETING_RECORDS = 100


@dataclass(frozen=True, slots=True)
class MeetingInput:
    """A meeting as the caller sends it."""

    external_id: str
    title: str
    transcript: str
    held_at: datetime | None = None
    record_ids: Sequence[str] = ()
    scope: str | None = None
    # Problems found while parsing it (a route's: a field of the wrong kind, missing or
    # unknown), listed with every other; the fields they name hold stand-ins.
    refused: Sequence[Problem] = ()


@dataclass(frozen=True, slots=True)
class RecordedMeeting:
    """A meeting as stored, its item, and whether it was stored before."""

    meeting: MeetingRow
    item: ItemRow
    replayed: bool

    @property
    def scope(self) -> str:
        return "workspace" if self.meeting.owner_id is None else "private"


def _problems(principal: Principal, given: MeetingInput) -> tuple[list[Problem], Named]:
    """Every problem of the input, and the records it links."""
    problems = external_id_problems(given.external_id, "externalId")
    problems += text_problems(given.title, "title", MAX_TITLE_CHARS)
    problems += text_problems(given.transcript, "transcript", MAX_TRANSCRIPT_CHARS)
    problems += time_problems(given.held_at, "heldAt")
    problems += scope_problems(given.scope)
    if (given.scope or "private") == "private" and principal.person_id is None:
        message = "an API key acts for no person: its meetings are the workspace's"
        problems.append(Problem(message, "scope"))
    if len(given.record_ids) > MAX_MEETING_RECORDS:
        problems.append(Problem(f"at most {MAX_MEETING_RECORDS} records", "recordIds"))
    named = decode_records(principal.workspace_id, given.record_ids, "recordIds", problems)
    return with_refused(given.refused, problems), named


async def record_meeting(
    conn: asyncpg.Connection, principal: Principal, given: MeetingInput
) -> RecordedMeeting:
    """Store a meeting (its record, transcript and links) with its item; a re-sent one
    answers as stored. Nothing is stored when anything is refused."""
    problems, named = _problems(principal, given)
    if problems:
        raise invalid(problems)
    meeting_object = await records.object_id(conn, MEETING_OBJECT)
    if meeting_object is None or not principal.may("create", meeting_object):
        raise DomainError(Code.FORBIDDEN, "Your role may not create meetings.")
    await readable_or_not_found(conn, principal, named)
    owner = principal.person_id if (given.scope or "private") == "private" else None
    now = clock.now()
    new = MeetingRow(
        meeting_id=uuid4(),
        external_id=given.external_id,
        owner_id=owner,
        title=given.title,
        visibility="workspace" if owner is None else "private",
        transcript=given.transcript,
        held_at=given.held_at or now,
        created_at=now,
        record_ids=named.ids,
    )
    # A savepoint, and the external id's lock: a re-send waits for the first and finds it.
    async with conn.transaction():
        key = f"{principal.workspace_id}:meeting:{owner or 'workspace'}:{given.external_id}"
        await dreamer.lock_source(conn, key)
        found = await dreamer.meeting_of(conn, owner, given.external_id)
        if found is not None:
            return await _replayed(conn, found, new, given.held_at is not None)
        await records.insert_record(
            conn, new.meeting_id, meeting_object, None, new.title, {}, new.visibility, owner
        )
        row = principal.row
        await records.insert_change(
            conn, new.meeting_id, principal.kind, row.actor_id, row.actor_name, "create", ["label"]
        )
        await dreamer.insert_meeting(conn, new)
        item = await arrive(conn, _item(new, now))
    return RecordedMeeting(new, item, replayed=False)


async def _replayed(
    conn: asyncpg.Connection, found: MeetingRow, new: MeetingRow, held_at_given: bool
) -> RecordedMeeting:
    """The stored meeting a re-send names, when it says the same; else a problem."""
    fields = ("title", "transcript", "record_ids")
    same = all(getattr(found, f) == getattr(new, f) for f in fields)
    if not same or (held_at_given and found.held_at != new.held_at):
        message = "this external id was recorded with other content: nothing was stored"
        raise invalid([Problem(message, "externalId")])
    item = await dreamer.item_of(conn, "meeting", found.meeting_id)
    assert item is not None  # stored with its meeting
    return RecordedMeeting(found, item, replayed=True)


def _item(meeting: MeetingRow, now: datetime) -> NewItem:
    """A meeting's item: its owner's (private to them, their pass, their payment), or the
    workspace's."""
    owner: UUID | None = meeting.owner_id
    status = meeting_status(meeting.record_ids)
    return NewItem(
        id=uuid4(),
        kind="meeting",
        owner_kind="workspace" if owner is None else "member",
        owner_id=owner,
        private_to=owner,
        payer_kind="workspace" if owner is None else "member",
        payer_id=owner,
        share_person=owner,
        urgent=False,
        said_at=meeting.held_at,
        arrived_at=now,
        status=status.status,
        reason=status.reason,
        meeting_id=meeting.meeting_id,
    )


async def delete_meeting(conn: asyncpg.Connection, principal: Principal, meeting_id: UUID) -> None:
    """Delete a meeting the caller may read, with their role's right to delete meetings;
    NOT_FOUND when they may not read it (or it is no meeting), FORBIDDEN without the right."""
    meeting_object = await records.object_id(conn, MEETING_OBJECT)
    found = await records.record_targets(
        conn, [meeting_id], [], principal.readable_objects, principal.person_id
    )
    row = found[0] if found else None
    if meeting_object is None or row is None or row.object_id != meeting_object:
        raise not_found("meeting")
    if not row.readable:
        raise not_found("meeting")
    if not principal.may("delete", meeting_object):
        raise DomainError(Code.FORBIDDEN, "Your role may not delete meetings.")
    if not await dreamer.delete_meeting(conn, meeting_id, meeting_object):
        raise not_found("meeting")
