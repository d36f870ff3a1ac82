"""What code applies of a reader's consolidation proposals on one page (pure, no database):
✍ lines never changed, keys not on the page ignored, duplicates only of the same words about
the same record, a new line's grammar (its source, author, day and end date from the lines it
replaces), the caps and the 4,000 characters."""

from __future__ import annotations

from datetime import UTC, date, datetime
from uuid import UUID, uuid4

from hypothesis import given, settings
from hypothesis import strategies as st

from db.memory import LineRow, PageRow
from resolvers.memory.caps import counted
from resolvers.memory.cleanup.tidying import tidy
from resolvers.memory.content import PAGE_CONTENT_MAX_CHARS
from resolvers.memory.dreamer.consolidating import GroupProposal, LineProposal, PageProposals
from resolvers.memory.reading import content_of

WS = UUID("00000000-0000-4000-8000-000000000001")
ACME, BOLT = uuid4(), uuid4()
SOURCE, OTHER_SOURCE = uuid4(), uuid4()
AT = datetime(2026, 11, 10, tzinfo=UTC)


def souvenir(key: str, text: str, day: int = 2, **more) -> LineRow:
    values = {"type": "relation", "author": "Claire", "day": date(2026, 10, day)} | more
    return LineRow(kind="souvenir", text=text, key=key, **values)


def page(*lines: LineRow, about_kind: str = "member") -> PageRow:
    return PageRow(
        id=uuid4(),
        about_kind=about_kind,
        member_id=uuid4() if about_kind == "member" else None,
        agent_id=None,
        routine_id=None,
        subject_id=uuid4() if about_kind == "record" else None,
        name="Page",
        description="",
        version=1,
        trashed_at=None,
        created_at=AT,
        updated_at=AT,
        memory_object_id=uuid4(),
        subject_object_id=None,
        subject_readable=False,
        carries_pages=True,
        actor_owner_id=None,
        lines=list(lines),
    )


def proposals(lines=(), groups=()) -> PageProposals:
    return PageProposals(page_id="p", lines=tuple(lines), groups=tuple(groups))


def group(reason: str, *keys: str, text: str = "New line", type_: str = "consigne"):
    return GroupProposal(keys=keys, reason=reason, text=text, type=type_)


def keys(lines: list[LineRow]) -> list[str | None]:
    return [line.key for line in lines]


def test_a_human_line_is_never_changed():
    row = page(souvenir("h", "Never on Sundays", human=True), souvenir("a", "Calls at 9"))
    done = tidy(
        row,
        proposals(
            [
                LineProposal(key="h", action="delete", reason="no_type"),
                LineProposal(key="h", action="retype", type="consigne"),
            ],
            [group("principle", "h", "a", text="Calls early")],
        ),
        WS,
    )
    assert [(line.key, line.text) for line in done.lines][0] == ("h", "Never on Sundays")
    assert done.lines[0] == row.lines[0]
    assert [line.text for line in done.lines] == ["Never on Sundays", "Calls early"]
    assert [c.line_key for c in done.changes] == ["a"]
    assert len(done.refused) == 2


def test_duplicates_keep_the_human_line_else_the_newest():
    row = page(
        souvenir("a", "Likes tea", day=2),
        souvenir("b", "likes  TEA!", day=9),
        souvenir("c", "Likes tea.", day=9),
    )
    done = tidy(row, proposals(groups=[group("duplicate", "a", "b", "c")]), WS)
    assert keys(done.lines) == ["b"]
    assert [(c.change, c.reason, c.line_key, c.new_text) for c in done.changes] == [
        ("merged", "duplicate", "a", "likes  TEA!"),
        ("merged", "duplicate", "c", "likes  TEA!"),
    ]
    human = page(souvenir("a", "Likes tea"), souvenir("h", "Likes tea", human=True))
    assert keys(tidy(human, proposals(groups=[group("duplicate", "a", "h")]), WS).lines) == ["h"]


def test_duplicates_must_say_the_same_about_the_same_record():
    different = page(souvenir("a", "Likes tea"), souvenir("b", "Likes coffee"))
    done = tidy(different, proposals(groups=[group("duplicate", "a", "b")]), WS)
    assert done.lines == different.lines and done.changes == []
    records = page(
        souvenir("a", "Pays late", about_id=ACME), souvenir("b", "Pays late", about_id=BOLT)
    )
    assert tidy(records, proposals(groups=[group("duplicate", "a", "b")]), WS).changes == []


def test_a_principle_takes_their_source_and_author_and_day_from_the_newest_line():
    sourced = {"source_kind": "record", "source_id": SOURCE}
    row = page(
        souvenir("a", "Calls Acme at 9", day=2, author="Bob", **sourced),
        souvenir("b", "Calls Bolt at 9", day=7, author="Claire", **sourced),
        souvenir("c", "Calls Cora at 9", day=7, author="Dan", **sourced),
        souvenir("d", "Likes tea"),
    )
    done = tidy(row, proposals(groups=[group("principle", "c", "a", "b", text=" Calls at 9 ")]), WS)
    [new, kept] = done.lines
    assert kept.key == "d"
    assert (new.text, new.type, new.author, new.day) == (
        "Calls at 9",
        "consigne",
        "Claire",
        date(2026, 10, 7),
    )
    assert (new.source_kind, new.source_id, new.human) == ("record", SOURCE, False)
    assert new.key not in {"a", "b", "c"}
    assert [(c.change, c.reason, c.line_key) for c in done.changes] == [
        ("rewritten", "principle", "a"),
        ("rewritten", "principle", "b"),
        ("rewritten", "principle", "c"),
    ]


def test_lines_of_different_sources_are_never_put_together():
    mail = {"source_kind": "record", "source_id": SOURCE}
    meeting = {"source_kind": "record", "source_id": OTHER_SOURCE}
    talk = {"source_kind": "conversation", "source_id": SOURCE}
    row = page(
        souvenir("a", "Calls at 9", **mail),
        souvenir("b", "Calls at 10", **meeting),
        souvenir("c", "Calls at 9", **talk),
        souvenir("d", "Calls at 9"),
        souvenir("e", "Calls at 9", day=9, **mail),
        souvenir("f", "Calls at 11"),
    )
    mixed = [
        group("principle", "a", "b"),  # two records
        group("log", "a", "c"),  # the same id, another kind
        group("principle", "d", "a"),  # no source with one
        group("duplicate", "a", "c", "d"),
    ]
    done = tidy(row, proposals(groups=mixed), WS)
    assert done.lines == row.lines and done.changes == []
    assert done.mixed_sources == 4
    assert done.refused == [
        "a, b: from different sources, not merged",
        "a, c: from different sources, not merged",
        "a, d: from different sources, not merged",
        "a, c, d: from different sources, not merged",
    ]
    # One source: merged, the new line keeps it; no source with no source alone.
    same = [group("duplicate", "a", "e"), group("principle", "d", "f", text="Calls early")]
    done = tidy(row, proposals(groups=same), WS)
    assert done.mixed_sources == 0 and done.refused == []
    [b, c, new, e] = done.lines
    assert [b.key, c.key, e.key] == ["b", "c", "e"] and new.key not in set("abcdef")
    assert (new.text, new.source_kind, new.source_id) == ("Calls early", None, None)
    assert e == row.lines[4]


def test_a_new_line_ends_on_the_latest_end_when_every_line_has_one():
    ends = page(
        souvenir("a", "Away", until=date(2026, 12, 1)),
        souvenir("b", "Away too", until=date(2026, 12, 20)),
    )
    [new] = tidy(ends, proposals(groups=[group("log", "a", "b")]), WS).lines
    assert new.until == date(2026, 12, 20)
    some = page(souvenir("a", "Away", until=date(2026, 12, 1)), souvenir("b", "Here"))
    [new] = tidy(some, proposals(groups=[group("log", "a", "b")]), WS).lines
    assert new.until is None


def test_lines_about_different_records_are_never_put_together():
    row = page(souvenir("a", "Pays late", about_id=ACME), souvenir("b", "Pays late", about_id=BOLT))
    assert tidy(row, proposals(groups=[group("principle", "a", "b")]), WS).changes == []
    same = page(
        souvenir("a", "Pays late", about_id=ACME), souvenir("b", "Pays in EUR", about_id=ACME)
    )
    [new] = tidy(same, proposals(groups=[group("principle", "a", "b")]), WS).lines
    assert new.about_id == ACME


def test_a_new_line_outside_the_grammar_is_refused():
    row = page(souvenir("a", "Calls at 9"), souvenir("b", "Calls at 10"))
    for text in ("", "Calls → Acme", "Calls — often", "Calls ✍", "Calls\x00"):
        done = tidy(row, proposals(groups=[group("principle", "a", "b", text=text)]), WS)
        assert done.lines == row.lines and len(done.refused) == 1, text


def test_keys_not_on_the_page_and_lines_changed_once():
    row = page(souvenir("a", "Calls at 9"), souvenir("b", "Calls at 10"))
    done = tidy(
        row,
        proposals(
            [
                LineProposal(key="zz", action="delete", reason="no_type"),
                LineProposal(key="a", action="delete", reason="not_durable"),
                LineProposal(key="b", action="retype"),
                LineProposal(key="b", action="delete"),
                LineProposal(key="b", action="keep"),
            ],
            [group("log", "a", "zz")],
        ),
        WS,
    )
    # "a" went into the log's line, so its own deletion is not applied; a retype without a
    # type changes nothing; a deletion without a reason is refused.
    assert [line.text for line in done.lines] == ["New line", "Calls at 10"]
    assert [(c.change, c.line_key) for c in done.changes] == [("rewritten", "a")]
    assert done.refused == ["b: a deletion says why, not deleted"]


def test_headings_and_the_mission_stay_where_they_are():
    row = page(
        LineRow(kind="heading", text="## Mission mémoire"),
        LineRow(kind="mission", text="Keep what clients decide."),
        LineRow(kind="blank", text=""),
        souvenir("a", "Likes tea"),
        souvenir("b", "Likes tea"),
        about_kind="workspace",
    )
    done = tidy(row, proposals([LineProposal(key="b", action="delete", reason="no_type")]), WS)
    assert [(line.kind, line.text) for line in done.lines] == [
        ("heading", "## Mission mémoire"),
        ("mission", "Keep what clients decide."),
        ("blank", ""),
        ("souvenir", "Likes tea"),
    ]


def test_a_change_that_would_pass_4000_characters_is_refused():
    row = page(souvenir("a", "x" * 1900), souvenir("b", "y" * 1900), souvenir("c", "Likes tea"))
    done = tidy(row, proposals(groups=[group("principle", "c", text="z" * 2000)]), WS)
    assert done.lines == row.lines
    [why] = done.refused
    assert "more than 4000" in why


TEXTS = st.sampled_from(["Likes tea", "likes tea", "Calls at 9", "Pays late", "x" * 900])


@st.composite
def a_page_and_proposals(draw):
    lines = []
    for n in range(draw(st.integers(1, 8))):
        lines.append(
            souvenir(
                f"k{n}",
                draw(TEXTS),
                day=draw(st.integers(1, 28)),
                human=draw(st.booleans()),
                about_id=draw(st.sampled_from([None, ACME])),
            )
        )
    named = st.sampled_from([f"k{n}" for n in range(len(lines))] + ["zz"])
    line_proposals = draw(
        st.lists(
            st.builds(
                LineProposal,
                key=named,
                action=st.sampled_from(["keep", "retype", "delete"]),
                type=st.sampled_from([None, "contexte", "décision"]),
                reason=st.sampled_from([None, "no_type", "not_durable"]),
            ),
            max_size=6,
        )
    )
    groups = draw(
        st.lists(
            st.builds(
                GroupProposal,
                keys=st.lists(named, max_size=4).map(tuple),
                reason=st.sampled_from(["principle", "log", "duplicate"]),
                text=st.sampled_from(["A principle", "y" * 3000, " → bad"]),
                type=st.sampled_from(["consigne", "contexte"]),
            ),
            max_size=3,
        )
    )
    return page(*lines), proposals(line_proposals, groups)


@settings(max_examples=200, deadline=None)
@given(a_page_and_proposals())
def test_whatever_the_reader_proposes_what_code_keeps_holds(drawn):
    row, proposed = drawn
    done = tidy(row, proposed, WS)
    humans = [line for line in row.lines if line.human]
    assert [line for line in done.lines if line.human] == humans
    before = counted((line.human, line.about_id) for line in row.lines)
    after = counted((line.human, line.about_id) for line in done.lines)
    assert all(after[about] <= before.get(about, 0) for about in after)
    # (A page drawn over 4,000 characters, which no page is, is left as it is.)
    length = len(content_of(done.lines, WS, stored_form=True))
    assert length <= PAGE_CONTENT_MAX_CHARS or done.lines == row.lines
    assert len({line.key for line in done.lines}) == len(done.lines)
    changed = {change.line_key for change in done.changes}
    assert not changed & {line.key for line in humans}
