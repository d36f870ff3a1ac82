"""What the Dreamer may read (issue 10, item 2; DESIGN §6 "Sources"), decided by code.

Each source is a small frozen summary of its stored rows: only what the rules below need.
Record activity is never a source. Mail is read by the next issue. Pure: no database, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from resolvers.memory.dreamer.cues import asks_to_remember

# A conversation without a remember/correct request is read once its person said this much.
MIN_PERSON_MESSAGES = 2


@dataclass(frozen=True, slots=True)
class ConversationSource:
    """A conversation: its person's messages' texts in order (the agent's are not counted),
    and whether its agent read another conversation (then nothing of it is read)."""

    person_messages: Sequence[str]
    agent_read_another: bool = False


@dataclass(frozen=True, slots=True)
class RunSource:
    """A routine or agent run, and whether its parent conversation's agent read another
    conversation (then the run teaches nothing, like its conversation)."""

    retried: bool = False
    failed_before: bool = False
    answered_after_mission: bool = False
    conversation_agent_read_another: bool = False


@dataclass(frozen=True, slots=True)
class MeetingSource:
    """A meeting transcript and the records the meeting is linked to."""

    record_ids: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class ProposalSource:
    """A proposal, and whether it was made from a conversation whose agent read another."""

    from_conversation_agent_read_another: bool = False


def conversation_is_read(conversation: ConversationSource) -> bool:
    """Whether a conversation is read: at least MIN_PERSON_MESSAGES of its person, or one that
    asks to remember or correct; never when its agent read another conversation."""
    if conversation.agent_read_another:
        return False
    if len(conversation.person_messages) >= MIN_PERSON_MESSAGES:
        return True
    return any(asks_to_remember(text) for text in conversation.person_messages)


def run_is_read(run: RunSource) -> bool:
    """Whether a run is read: only when retried, failed before, or answered by a person after
    its mission message; never when its conversation's agent read another conversation."""
    if run.conversation_agent_read_another:
        return False
    return run.retried or run.failed_before or run.answered_after_mission


def meeting_reads(meeting: MeetingSource) -> tuple[str, ...]:
    """The records a meeting is read for (its linked records, in order, each once); none
    without any, and then the meeting is not read."""
    return tuple(dict.fromkeys(meeting.record_ids))


def proposal_is_read(proposal: ProposalSource) -> bool:
    """Whether a proposal is read: always, unless made from a conversation whose agent read
    another conversation."""
    return not proposal.from_conversation_agent_read_another
