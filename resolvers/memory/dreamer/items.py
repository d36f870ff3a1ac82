"""What each waiting item says, from its stored source (issue 10, items 1 and 5): its text,
who spoke, the person it belongs to, the agent or routine involved, the records it is linked
to (mentioned, attached, the meeting's, the proposal's, the mail's: never a record guessed
from a name), and the source a souvenir learned from it names. Pure: rows in, facts out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from resolvers.common import ids
from resolvers.common.errors import DomainError
from resolvers.memory.mail import window
from resolvers.turns.cards import MENTION

# How a speaker with no stored identity is named (a meeting nobody owns), and a run message's
# speaker who is no longer there.
UNNAMED_MEETING = "meeting"
UNNAMED_PERSON = "someone"
UNNAMED_AGENT = "an agent"


@dataclass(frozen=True, slots=True)
class Speaker:
    """Who said an item: a member, an agent (a routine speaks as one), or an outsider."""

    kind: str  # member, agent, routine, outsider
    id: UUID | None
    name: str | None = None  # known from the source itself (a proposer's name)


@dataclass(frozen=True, slots=True)
class Source:
    """One item's source as a pass reads it."""

    text: str
    speaker: Speaker
    person: UUID | None
    agent: UUID | None
    routine: UUID | None
    records: tuple[UUID, ...]
    source_kind: str | None
    source_id: UUID | None
    context: str = ""  # what the text answers (a run's mission): read, never learned from
    # A mail exchange's: who wrote each message its text presents (None: not a mail).
    writers: tuple[window.Writer, ...] | None = None


def mentioned(texts: Iterable[str], workspace_id: UUID) -> list[UUID]:
    """The records the texts mention with markup, in order, each once (a malformed or foreign
    id is no record)."""
    found: list[UUID] = []
    for text in texts:
        for match in MENTION.finditer(text):
            try:
                record_id = ids.decode(match["id"], "Record", workspace_id)
            except DomainError:
                continue
            if record_id not in found:
                found.append(record_id)
    return found


def source_of(row: Mapping[str, Any], workspace_id: UUID) -> Source:
    """The source of a waiting item's row (db.dreamer_pass.waiting_items)."""
    kind = row["kind"]
    if kind == "conversation":
        return _message(row, workspace_id)
    if kind == "meeting":
        return _meeting(row)
    if kind == "run":
        return _run(row, workspace_id)
    if kind == "proposal":
        return _proposal(row, workspace_id)
    if kind == "mail":
        return _mail(row)
    raise ValueError(f"no source of kind {kind!r} is read by this pass")


def _message(row: Mapping[str, Any], workspace_id: UUID) -> Source:
    text: str = row["message_text"]
    records = mentioned([text], workspace_id)
    attached = row["attached_record_id"]
    if attached is not None and attached not in records:
        records.append(attached)
    person = row["conversation_person_id"]
    speaker_kind = "member" if row["message_speaker_kind"] == "member" else "agent"
    return Source(
        text=text,
        speaker=Speaker(speaker_kind, row["message_speaker_id"]),
        person=person,
        agent=row["conversation_agent_id"],
        routine=None,
        records=tuple(records),
        source_kind="conversation",
        source_id=person,
    )


def _meeting(row: Mapping[str, Any]) -> Source:
    owner = row["meeting_owner_id"]
    title = row["meeting_title"] or ""
    speaker = Speaker("member", owner) if owner else Speaker("outsider", None, UNNAMED_MEETING)
    return Source(
        text=f"{title}\n{row['transcript']}" if title else row["transcript"],
        speaker=speaker,
        person=owner,
        agent=None,
        routine=None,
        records=tuple(dict.fromkeys(row["meeting_records"] or ())),
        source_kind="record",
        source_id=row["meeting_id"],
    )


def _run(row: Mapping[str, Any], workspace_id: UUID) -> Source:
    """A run: its messages after the mission are what was said, each by its stored speaker
    (named); the mission is what they answer (context, never learned from). A member who
    answered after the mission is its speaker (the person's words), else its runner."""
    messages: list[dict[str, Any]] = row["run_messages"] or []
    names: dict[str, str] = row["run_speaker_names"] or {}
    lines = [f"{_said_by(message, names)}: {message.get('text', '')}" for message in messages]
    agent, routine = row["run_agent_id"], row["run_routine_id"]
    speaker = Speaker("agent", agent) if agent else Speaker("routine", routine)
    member = next((m for m in messages if m.get("speakerKind") == "member"), None)
    if member is not None:
        speaker = Speaker("member", UUID(member["speakerId"]))
    # The person whose words these are: the conversation's it ran in, else its runner's owner.
    person = row["run_person_id"] or row["run_owner_id"]
    private_to = row["private_to"]
    texts = [row["mission"], *(message.get("text", "") for message in messages)]
    return Source(
        text="\n".join(lines),
        speaker=speaker,
        person=person,
        agent=agent,
        routine=routine,
        records=tuple(mentioned(texts, workspace_id)),
        source_kind="conversation" if private_to is not None else None,
        source_id=private_to,
        context=row["mission"],
    )


def _said_by(message: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The name of a run message's speaker (a member, an agent or a routine), by its id."""
    name = names.get(message.get("speakerId") or "")
    if name:
        return name
    return UNNAMED_PERSON if message.get("speakerKind") == "member" else UNNAMED_AGENT


def _proposal(row: Mapping[str, Any], workspace_id: UUID) -> Source:
    text: str = row["proposal_text"]
    proposer_kind, proposer = row["proposer_kind"], row["proposer_id"]
    person = row["on_behalf_of"] or (proposer if proposer_kind == "member" else None)
    records = []
    if row["proposal_record_id"] is not None:
        records.append(row["proposal_record_id"])
    records.extend(r for r in mentioned([text], workspace_id) if r not in records)
    if proposer_kind == "member":
        speaker = Speaker("member", proposer)
    else:
        # An agent's, an API key's or an MCP client's words: not a person's.
        speaker = Speaker("agent", proposer if proposer_kind == "agent" else None)
        speaker = Speaker(speaker.kind, speaker.id, row["proposer_name"])
    return Source(
        text=text,
        speaker=speaker,
        person=person,
        agent=proposer if proposer_kind == "agent" else None,
        routine=None,
        records=tuple(records),
        source_kind="conversation" if person else None,
        source_id=person,
    )


def _mail(row: Mapping[str, Any]) -> Source:
    """A mail exchange: its window's messages, each line opening with who wrote it (a member's
    own words by name, anyone else by address); its subject is context. Its speaker: the first
    member whose own words it holds (a personal mailbox: its owner), else the important mail's
    sender, an outsider; a learning is the speaker's words only when the message it rests on
    is theirs (``writers``, checked by ``verdicts.vouched``). Its person is a personal
    mailbox's owner (a shared one: none); a souvenir learned from it names the important
    mail's record. Never its quoted history nor its attachments' contents: the row holds
    neither."""
    messages = window.window_messages(row["mail_messages"])
    shown = window.presented(messages)
    author = window.first_author(messages)
    if author is not None:
        speaker = Speaker("member", author.member)
    else:
        opening = next((m for m in messages if m.id == row["mail_opening_id"]), None)
        sender = opening or (messages[0] if messages else None)
        name = sender.label if sender is not None else UNNAMED_PERSON
        speaker = Speaker("outsider", None, name)
    return Source(
        text=shown.text,
        speaker=speaker,
        person=row["mailbox_owner_id"],
        agent=None,
        routine=None,
        records=tuple(dict.fromkeys(row["mail_records"] or ())),
        source_kind="record",
        source_id=row["mail_opening_id"],
        context=window.subject_line(row["mail_subject"]),
        writers=shown.writers,
    )
