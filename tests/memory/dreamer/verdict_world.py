"""A small world for the verdict tests: a workspace, its members, an agent, a routine, linked
records (a company, its contact, their deal, satellites), pages built as stored rows, and one
call that decides a batch. No database."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from uuid import UUID, uuid4

from db.memory import LineRow, PageRow
from resolvers.common import ids
from resolvers.memory.dreamer.context import ItemContext, PageKey, PassContext, Permissions
from resolvers.memory.dreamer.reader import (
    About,
    Batch,
    Candidate,
    Item,
    ItemLearnings,
    LinkedRecord,
    PageLine,
    PageOwner,
    ReaderAnswer,
    Usage,
    Voice,
)
from resolvers.memory.dreamer.verdicts import Decisions, Verdict, decide
from resolvers.memory.reading import content_of

WS = UUID("00000000-0000-4000-8000-000000000001")
ALICE_ID = UUID("00000000-0000-4000-8000-0000000000a1")  # the owner of the private items
BOB_ID = UUID("00000000-0000-4000-8000-0000000000b0")  # a colleague
AGENT_ID = UUID("00000000-0000-4000-8000-0000000000a9")
OTHER_AGENT_ID = UUID("00000000-0000-4000-8000-0000000000aa")
ROUTINE_ID = UUID("00000000-0000-4000-8000-0000000000c0")
ACME_ID = UUID("00000000-0000-4000-8000-000000000101")  # a company
JOHN_ID = UUID("00000000-0000-4000-8000-000000000102")  # its contact
DEAL_ID = UUID("00000000-0000-4000-8000-000000000103")  # their deal
NOTE_ID = UUID("00000000-0000-4000-8000-000000000104")  # a note on the deal (a satellite)
TASK_ID = UUID("00000000-0000-4000-8000-000000000105")  # a task pointing nowhere
MEETING_ID = UUID("00000000-0000-4000-8000-000000000106")  # a framework document
BETA_ID = UUID("00000000-0000-4000-8000-000000000107")  # a company unrelated to Acme

DAY = date(2026, 10, 2)
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def gid(type_name: str, local: UUID, workspace_id: UUID = WS) -> str:
    return ids.encode(type_name, workspace_id, local)


def rec(local: UUID) -> str:
    return gid("Record", local)


ALICE = Voice(kind="person", id=gid("Member", ALICE_ID), name="Alice")
BOB = Voice(kind="person", id=gid("Member", BOB_ID), name="Bob")
SCOUT = Voice(kind="agent", id=gid("Agent", AGENT_ID), name="Scout")
OUTSIDER = Voice(kind="person", id=None, name="Carol")

ACME = LinkedRecord(id=rec(ACME_ID), object="companies", label="Acme")
JOHN = LinkedRecord(id=rec(JOHN_ID), object="people", label="John", points_to=(rec(ACME_ID),))
DEAL = LinkedRecord(
    id=rec(DEAL_ID), object="deals", label="Acme renewal", points_to=(rec(JOHN_ID),)
)
NOTE = LinkedRecord(
    id=rec(NOTE_ID),
    object="notes",
    label="Call notes",
    satellite=True,
    points_to=(rec(JOHN_ID), rec(DEAL_ID)),
)
TASK = LinkedRecord(id=rec(TASK_ID), object="tasks", label="Call back", satellite=True)
MEETING = LinkedRecord(id=rec(MEETING_ID), object="meetings", label="Weekly")
BETA = LinkedRecord(id=rec(BETA_ID), object="companies", label="Beta")
RECORDS = (ACME, JOHN, DEAL, NOTE, TASK, MEETING, BETA)
CARRIES = frozenset({ACME_ID, JOHN_ID, DEAL_ID, BETA_ID})
# Alice may shape everything: tests of other rules are not stopped by who may shape.
EVERYTHING = Permissions(
    records=frozenset(CARRIES), agents=frozenset({AGENT_ID, OTHER_AGENT_ID}), workspace=True
)

ACME_PAGE: PageKey = ("record", ACME_ID)
ALICE_PROFILE: PageKey = ("member", ALICE_ID)
WORKSPACE_PROFILE: PageKey = ("workspace", None)
AGENT_PROFILE: PageKey = ("agent", AGENT_ID)


def about_record(local: UUID = ACME_ID) -> About:
    return About(kind="record", id=rec(local))


def candidate(
    text: str = "Le DAF décide seul",
    type: str = "décision",
    about: About | None = None,
    stated_by: Voice | None = ALICE,
    **flags: object,
) -> Candidate:
    return Candidate(
        text=text,
        type=type,
        about=about or about_record(),
        stated_by=stated_by,
        **flags,  # type: ignore[arg-type]
    )


def item(
    item_id: str = "i1",
    speaker: Voice = ALICE,
    records: Sequence[LinkedRecord] = RECORDS,
    at: date = DAY,
    kind: str = "conversation",
    text: str = "(what was said)",
) -> Item:
    return Item(
        id=item_id,
        kind=kind,  # type: ignore[arg-type]
        at=datetime(at.year, at.month, at.day, 9, tzinfo=UTC),
        speaker=speaker,
        text=text,
        record_ids=tuple(r.id for r in records),
    )


def scope(
    item_id: str = "i1",
    *,
    day: date = DAY,
    private: bool = True,
    owner: UUID | None = ALICE_ID,
    share: bool = True,
    source_kind: str | None = "conversation",
    source_id: UUID | None = ALICE_ID,
) -> ItemContext:
    return ItemContext(item_id, day, private, owner, share, source_kind, source_id)


def souvenir(
    text: str,
    key: str,
    *,
    day: date = DAY,
    type: str = "contexte",
    author: str = "Bob",
    human: bool = False,
    until: date | None = None,
    about_id: UUID | None = None,
    about_label: str | None = None,
) -> LineRow:
    return LineRow(
        kind="souvenir",
        text=text,
        key=key,
        type=type,
        author=author,
        day=day,
        until=until,
        human=human,
        about_id=about_id,
        about_label=about_label,
    )


def page(key: PageKey, lines: Sequence[LineRow]) -> PageRow:
    kind, about = key
    return PageRow(
        id=uuid4(),
        about_kind=kind,
        member_id=about if kind == "member" else None,
        agent_id=about if kind == "agent" else None,
        routine_id=about if kind == "routine" else None,
        subject_id=about if kind == "record" else None,
        name="a page",
        description="",
        version=1,
        trashed_at=None,
        created_at=CREATED,
        updated_at=CREATED,
        memory_object_id=UUID(int=1),
        subject_object_id=None,
        subject_readable=True,
        carries_pages=kind != "record" or about in CARRIES,
        actor_owner_id=None,
        lines=list(lines),
    )


def run(
    learnings: Sequence[tuple[Item, Sequence[Candidate]]],
    *,
    scopes: Sequence[ItemContext] | None = None,
    pages: Sequence[PageRow] = (),
    permissions: dict[UUID, Permissions] | None = None,
    lines: Sequence[PageLine] = (),
    carries: frozenset[UUID] = CARRIES,
    records: Sequence[LinkedRecord] = RECORDS,
    unanswered: Sequence[str] = (),
    strays: Sequence[ItemLearnings] = (),
) -> Decisions:
    """Decide a batch of items, each with the candidates its reader proposed (``unanswered``:
    items the answer leaves out; ``strays``: answers naming no item of the batch)."""
    items = tuple(found for found, _ in learnings)
    batch = Batch(
        owner=PageOwner(kind="person", id=gid("Member", ALICE_ID), name="Alice"),
        items=items,
        records=tuple(records),
        lines=tuple(lines),
        today=DAY,
    )
    answer = ReaderAnswer(
        learnings=(
            *(
                ItemLearnings(item_id=found.id, candidates=tuple(found_candidates))
                for found, found_candidates in learnings
                if found.id not in unanswered
            ),
            *strays,
        ),
        usage=Usage(),
    )
    context = PassContext(
        workspace_id=WS,
        items={s.item_id: s for s in (scopes or [scope(found.id) for found in items])},
        permissions={ALICE_ID: EVERYTHING} if permissions is None else permissions,
        pages={(p.about_kind, _about(p)): p for p in pages},
        carries_pages=carries,
    )
    return decide(batch, answer, context)


def _about(row: PageRow) -> UUID | None:
    return row.member_id or row.agent_id or row.routine_id or row.subject_id


def one(the_candidate: Candidate, **kwargs: object) -> tuple[Verdict, Decisions]:
    """The one verdict of one candidate of one item (keyword ``item`` and ``scope`` too)."""
    the_item = kwargs.pop("item", None) or item()
    the_scope = kwargs.pop("scope", None)
    scopes = [the_scope] if the_scope is not None else None
    decisions = run([(the_item, [the_candidate])], scopes=scopes, **kwargs)  # type: ignore[arg-type]
    assert len(decisions.verdicts) == 1, decisions.verdicts
    return decisions.verdicts[0], decisions


def stored(lines: Sequence[LineRow]) -> str:
    """A page's content as stored."""
    return content_of(lines, WS, stored_form=True)


def filler(count: int, *, human: bool = False, prefix: str = "fact") -> list[LineRow]:
    """``count`` souvenirs (✍ when ``human``) with distinct texts and keys."""
    mark = "h" if human else "s"
    return [
        souvenir(f"{prefix} {mark}{n}", f"{prefix}-{mark}{n}", human=human) for n in range(count)
    ]
