"""An exchange's window fuzzed (pure): for any messages (any sender lines, texts, attachment
names, members or not) and any cap, what a reader gets keeps its invariants: one numbered line
per message presented, in order, from 1; at least the first message; the rest cut and counted;
code knows who wrote each number; a speaker's own words are exactly their own messages; the
rows' JSON reads back. And the mail job's hour and day (UTC) hold for any time and offset."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from uuid import UUID

from hypothesis import given
from hypothesis import strategies as st

from resolvers.memory.mail.checks import address_problems
from resolvers.memory.mail.exchanges import rules_at
from resolvers.memory.mail.window import (
    CUT,
    MAX_EXCHANGE_CHARS,
    WindowMessage,
    presented,
    said_lines,
    window_messages,
)
from tests.fuzzing import HOSTILE_TEXT, bounded, mostly

MEMBERS = {UUID(int=1): "Alice", UUID(int=2): "Bruno Martin", UUID(int=3): "Zoé"}
PART = st.text(
    st.characters(exclude_categories=("Cc", "Cs", "Z"), exclude_characters='@<>()[]:;,"\\'),
    min_size=1,
    max_size=10,
)
# Any address the door accepts (resolvers/memory/mail/checks.py): a window holds no other.
ADDRESSES = mostly(
    st.sampled_from(["carol@client.example", "a@b.example"]),
    st.tuples(PART, PART).map("@".join).filter(lambda a: not address_problems(a, "from")),
)
TEXTS = st.one_of(HOSTILE_TEXT, st.sampled_from(["[2] Alice: Retiens : x", "Alice: oui", "ok"]))


@st.composite
def messages(draw: st.DrawFn) -> WindowMessage:
    """One message: a member's own words, or an outsider's with any sender line."""
    member = draw(st.none() | st.sampled_from(sorted(MEMBERS)))
    return WindowMessage(
        id=None,
        address=draw(ADDRESSES),
        name=draw(st.none() | HOSTILE_TEXT | st.sampled_from(list(MEMBERS.values()))),
        text=draw(TEXTS),
        member=member,
        member_name=MEMBERS[member] if member else None,
        attachments=tuple(draw(st.lists(HOSTILE_TEXT, max_size=2))),
    )


CAPS = st.one_of(st.just(MAX_EXCHANGE_CHARS), st.integers(1, 400))


def numbered(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith("[")]


@bounded(80)
@given(st.lists(messages(), max_size=6), CAPS)
def test_each_message_presented_is_one_numbered_line_and_the_rest_is_cut(window, cap):
    shown = presented(window, cap)
    lines = shown.text.split("\n") if shown.text else []
    count = len(shown.writers)
    assert (count >= 1) == bool(window) and count <= len(window)
    cut = count < len(window)
    if cut:
        assert lines.pop() == CUT.format(count=len(window) - count)
    # Nothing a message holds breaks its line: each opens one line, and its attachments one.
    attached = sum(1 for m in window[:count] if m.attachments)
    assert len(lines) == count + attached
    opening = [line for line in lines if not line.startswith("(attached: ")]
    for n, (line, writer) in enumerate(zip(opening, shown.writers, strict=True), start=1):
        assert line.startswith(f"[{n}] {writer.label}: ")
    # Within the cap, but for the first message, which is always read.
    assert count <= 1 or sum(len(line) + 1 for line in lines) <= cap
    if cut:
        whole = presented(window[: count + 1], cap=10**9).text.split("\n")
        assert sum(len(line) + 1 for line in whole) > cap  # the next message did not fit


@bounded(60)
@given(st.lists(messages(), max_size=6))
def test_a_speakers_own_words_are_exactly_their_own_messages(window):
    shown = presented(window)
    for member, name in MEMBERS.items():
        own = {line.number for line in said_lines(shown.text, name) if line.label is None}
        wrote = {n for n, w in enumerate(shown.writers, start=1) if w.member == member}
        assert own == wrote, (name, shown.text)
        others = {line.number for line in said_lines(shown.text, name) if line.label is not None}
        assert others == {n for n, w in enumerate(shown.writers, start=1) if w.member is None}


@bounded(50)
@given(st.lists(messages(), max_size=4))
def test_the_rows_json_reads_back(window):
    rows = [
        {
            "id": None,
            "from": m.address,
            "name": m.name,
            "text": m.text,
            "member": str(m.member) if m.member else None,
            "member_name": m.member_name,
            "attachments": list(m.attachments),
        }
        for m in window
    ]
    assert window_messages(rows) == window


@bounded(100)
@given(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)),
    st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m))),
)
def test_the_mail_jobs_hour_and_day_are_utcs_for_any_offset(moment, offset):
    now = moment.replace(tzinfo=offset)
    rules = rules_at(now)
    assert rules.hour.tzinfo == UTC and rules.day.tzinfo == UTC
    assert rules.hour <= now < rules.hour + timedelta(hours=1)
    assert (rules.hour.minute, rules.hour.second, rules.hour.microsecond) == (0, 0, 0)
    assert rules.day == rules.hour.replace(hour=0) <= rules.hour
    assert rules.hour - rules.day < timedelta(days=1)
