"""What the Dreamer reads (resolvers/memory/dreamer/sources.py): every boundary, no database."""

from __future__ import annotations

import pytest

from resolvers.memory.dreamer.sources import (
    MIN_PERSON_MESSAGES,
    ConversationSource,
    MeetingSource,
    ProposalSource,
    RunSource,
    conversation_is_read,
    meeting_reads,
    proposal_is_read,
    run_is_read,
)


def test_the_threshold_is_two_messages():
    assert MIN_PERSON_MESSAGES == 2


def test_a_conversation_without_messages_is_not_read():
    assert not conversation_is_read(ConversationSource(person_messages=()))


def test_one_plain_person_message_is_not_read():
    assert not conversation_is_read(ConversationSource(person_messages=("Send the quote",)))


def test_two_person_messages_are_read():
    assert conversation_is_read(ConversationSource(person_messages=("Hello", "Send the quote")))


@pytest.mark.parametrize(
    "text",
    ["Remember: Acme wants every message in French", "Retiens que Acme paie en euros"],
)
def test_a_single_remember_message_is_read(text: str):
    assert conversation_is_read(ConversationSource(person_messages=(text,)))


@pytest.mark.parametrize(
    "messages",
    [("Hello", "Send the quote"), ("Remember: Acme pays in euros",), ("a", "b", "c")],
)
def test_a_conversation_whose_agent_read_another_is_never_read(messages: tuple[str, ...]):
    assert not conversation_is_read(
        ConversationSource(person_messages=messages, agent_read_another=True)
    )


def test_a_run_with_no_condition_is_not_read():
    assert not run_is_read(RunSource())


@pytest.mark.parametrize(
    "run",
    [
        RunSource(retried=True),
        RunSource(failed_before=True),
        RunSource(answered_after_mission=True),
        RunSource(retried=True, failed_before=True, answered_after_mission=True),
    ],
)
def test_a_run_is_read_on_each_condition(run: RunSource):
    assert run_is_read(run)


@pytest.mark.parametrize(
    "run",
    [
        RunSource(retried=True, conversation_agent_read_another=True),
        RunSource(failed_before=True, conversation_agent_read_another=True),
        RunSource(answered_after_mission=True, conversation_agent_read_another=True),
        RunSource(conversation_agent_read_another=True),
    ],
)
def test_a_run_whose_conversation_agent_read_another_is_never_read(run: RunSource):
    assert not run_is_read(run)


def test_a_meeting_without_records_reads_nothing():
    assert meeting_reads(MeetingSource()) == ()


def test_a_meeting_reads_its_linked_records_in_order_once():
    meeting = MeetingSource(record_ids=("deal-1", "company-1", "deal-1"))
    assert meeting_reads(meeting) == ("deal-1", "company-1")


def test_a_proposal_is_read():
    assert proposal_is_read(ProposalSource())


def test_a_proposal_from_a_conversation_whose_agent_read_another_is_not_read():
    assert not proposal_is_read(ProposalSource(from_conversation_agent_read_another=True))


def test_sources_are_frozen():
    source = RunSource()
    with pytest.raises(AttributeError):
        source.retried = True  # type: ignore[misc]
