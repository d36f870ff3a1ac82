"""A consolidation run on the real database (issue 11, item 4): the 200 pages it rereads and
their order, no page created, satellites, trashed pages and pages of trashed records left
alone, ✍ lines and the mission kept, the caps and 4,000 characters held, one version per page
changed by consolidation, every change recorded, a page changed meanwhile left for later, one
run per audience at a time, and the statements it sends."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

import asyncpg

from db.pool import begin_workspace, init_connection
from db.records import insert_attribute
from resolvers.common import ids
from resolvers.memory.cleanup import CONSOLIDATION_ACTOR, consolidation
from resolvers.memory.cleanup.removal import remove_in_workspace
from resolvers.memory.dreamer import guard
from resolvers.memory.dreamer.consolidating import (
    ConsolidationBatch,
    GroupProposal,
    LineProposal,
    PageProposals,
)
from resolvers.memory.dreamer.reader import Usage
from resolvers.records.workspaces import create_object, grant_standard_roles
from tests.factories import data, gql, load_records, split, write_page
from tests.memory.cleanup.consolidating import (
    DAY,
    HOUR,
    MINUTE,
    T0,
    Proposing,
    changes,
    consolidate_at,
    fetch,
    page_at,
    rewrite_at,
    runs,
    settings_of,
    souvenir,
    texts,
    versions,
)
from tests.memory.cleanup.removal_world import kept, line, page_with
from tests.memory.pages_api import edit

T1 = T0 + MINUTE
# The Monday after T0, when the removal runs.
NEXT_MONDAY = datetime(2026, 11, 16, 0, 5, tzinfo=UTC)


def keys_of(batch: ConsolidationBatch, page: str) -> dict[str, str]:
    """A page's keys by text, in the batch."""
    [found] = [p for p in batch.pages if p.id == page]
    return {line.text: line.key for line in found.lines}


def proposing(**by_page) -> Proposing:
    """A reader proposing, for each page named (by its global id), what ``by_page`` gives
    from its keys by text: (lines, groups)."""

    def make(batch: ConsolidationBatch) -> tuple[PageProposals, ...]:
        found = []
        for page in batch.pages:
            if page.id in by_page:
                lines, groups = by_page[page.id](keys_of(batch, page.id))
                found.append(PageProposals(page_id=page.id, lines=lines, groups=groups))
        return tuple(found)

    return Proposing(make)


async def page_count(pool, ws) -> int:
    [row] = await fetch(pool, ws, "SELECT count(*) AS n FROM memory_pages")
    return int(row["n"])


async def test_the_changes_are_applied_as_one_version_each_and_recorded(pool, ws):
    me = ws.members["member"]
    lines = [
        souvenir("Decided to renew with Acme", "contexte"),
        souvenir("Called Bob on Monday"),
        souvenir("The weather was nice", "contexte"),
        souvenir("Calls Acme before 10"),
        souvenir("Calls Bolt before 10", day="2026-10-05"),
        souvenir("Likes tea", "préférence"),
        souvenir("likes tea.", "préférence", day="2026-10-04"),
    ]
    page = await page_at(pool, ws, T0, "member", me, lines)
    reader = proposing(
        **{
            page: lambda k: (
                (
                    LineProposal(
                        key=k["Decided to renew with Acme"], action="retype", type="décision"
                    ),
                    LineProposal(
                        key=k["Called Bob on Monday"], action="delete", reason="not_durable"
                    ),
                    LineProposal(key=k["The weather was nice"], action="delete", reason="no_type"),
                    LineProposal(key="not-on-the-page", action="delete", reason="no_type"),
                ),
                (
                    GroupProposal(
                        keys=(k["Calls Acme before 10"], k["Calls Bolt before 10"]),
                        reason="principle",
                        text="Calls clients before 10",
                        type="consigne",
                    ),
                    GroupProposal(
                        keys=(k["Likes tea"], k["likes tea."]),
                        reason="duplicate",
                        text="Likes tea",
                        type="préférence",
                    ),
                ),
            )
        }
    )
    [report] = await consolidate_at(pool, ws, T1, reader)
    assert (report.ran, report.pages_read, report.lines_changed) == (True, 1, 6)
    assert await texts(pool, ws, page) == [
        ("Decided to renew with Acme", "décision", False),
        ("Calls clients before 10", "consigne", False),
        ("likes tea.", "préférence", False),
    ]
    # The new line rests on the newest line it replaces: its author and day.
    row = await fetch(
        pool, ws, "SELECT author, day FROM memory_lines WHERE text = 'Calls clients before 10'"
    )
    assert [(r["author"], r["day"].isoformat()) for r in row] == [("Claire", "2026-10-05")]
    assert await versions(pool, ws, page) == [
        (1, "created", "system", "memory"),
        (2, "modified", "system", CONSOLIDATION_ACTOR.name),
    ]
    found = [(c, r, t, nt, ty) for c, r, _key, t, nt, ty in await changes(pool, ws)]
    assert found == [
        ("rewritten", "principle", "Calls Acme before 10", "Calls clients before 10", "consigne"),
        ("rewritten", "principle", "Calls Bolt before 10", "Calls clients before 10", "consigne"),
        ("merged", "duplicate", "Likes tea", "likes tea.", "préférence"),
        ("retyped", "retyped", "Decided to renew with Acme", None, "décision"),
        ("removed", "not_durable", "Called Bob on Monday", None, None),
        ("removed", "no_type", "The weather was nice", None, None),
    ]
    [run] = await runs(pool, ws)
    assert (run["lines_changed"], run["pages_read"], run["reader"]) == (6, 1, "test")


async def test_a_page_emptied_is_deleted_and_said(pool, ws):
    me = ws.members["member"]
    page = await page_at(pool, ws, T0, "member", me, [souvenir("Called Bob today")])
    reader = proposing(
        **{
            page: lambda k: (
                (LineProposal(key=k["Called Bob today"], action="delete", reason="not_durable"),),
                (),
            )
        }
    )
    [report] = await consolidate_at(pool, ws, T1, reader)
    assert (report.lines_changed, report.pages_deleted) == (1, 1)
    assert [c[:2] for c in await changes(pool, ws)] == [
        ("removed", "not_durable"),
        ("page_deleted", "page_empty"),
    ]
    assert (await versions(pool, ws, page))[-1][1:] == ("deleted", "system", "consolidation")


async def test_human_lines_and_the_mission_are_kept_whatever_the_reader_says(pool, ws, client):
    mission = ["## Mission mémoire", "Retenir ce que les clients décident.", ""]
    page = await page_at(
        pool,
        ws,
        T0,
        "workspace",
        None,
        [*mission, souvenir("We sell boats"), souvenir("We sell yachts")],
    )
    # The admin writes a line by hand (✍).
    content = "\n".join([*mission, souvenir("We sell boats"), souvenir("We sell yachts")])
    data(await edit(client, ws, page, content + "\n- We never sell on Sundays [consigne]", "admin"))
    before = await texts(pool, ws, page)
    human = [t for t, _, h in before if h]
    assert human == ["We never sell on Sundays"]
    reader = proposing(
        **{
            page: lambda k: (
                (
                    LineProposal(
                        key=k["We never sell on Sundays"], action="delete", reason="no_type"
                    ),
                    LineProposal(
                        key=k["We never sell on Sundays"], action="retype", type="relation"
                    ),
                ),
                (
                    GroupProposal(
                        keys=tuple(k.values()),
                        reason="principle",
                        text="We sell boats of every size",
                        type="contexte",
                    ),
                ),
            )
        }
    )
    await consolidate_at(pool, ws, T1, reader)
    assert reader.batches[0].mission == "Retenir ce que les clients décident."
    after = await texts(pool, ws, page)
    assert after == [
        ("We sell boats of every size", "contexte", False),
        ("We never sell on Sundays", "consigne", True),
    ]
    row = await fetch(
        pool,
        ws,
        "SELECT kind, text FROM memory_lines WHERE page_id = $1 AND kind <> 'souvenir'"
        " ORDER BY position",
        ids.decode(page, "MemoryPage", ws.id),
    )
    assert [(r["kind"], r["text"]) for r in row] == [
        ("heading", "## Mission mémoire"),
        ("mission", "Retenir ce que les clients décident."),
        ("blank", ""),
    ]
    [run] = await runs(pool, ws)
    assert "2 proposal(s) not applied" in run["note"]


async def test_the_4000_characters_hold_after_a_change(pool, ws):
    me = ws.members["member"]
    near = [souvenir("a" * 1800), souvenir("b" * 1800), souvenir("Likes tea", "préférence")]
    page = await page_at(pool, ws, T0, "member", me, near)
    reader = proposing(
        **{
            page: lambda k: (
                (),
                (
                    # One line for "Likes tea": 3,700 characters of text would pass 4,000.
                    GroupProposal(
                        keys=(k["Likes tea"],),
                        reason="principle",
                        text="t" * 3700,
                        type="préférence",
                    ),
                    GroupProposal(
                        keys=(k["a" * 1800], k["b" * 1800]),
                        reason="log",
                        text="Worked on the A and B files",
                        type="contexte",
                    ),
                ),
            )
        }
    )
    await consolidate_at(pool, ws, T1, reader)
    assert await texts(pool, ws, page) == [
        ("Worked on the A and B files", "contexte", False),
        ("Likes tea", "préférence", False),
    ]
    [run] = await runs(pool, ws)
    assert run["lines_changed"] == 2 and "1 proposal(s) not applied" in run["note"]


async def test_no_page_is_created_and_pages_outside_the_batch_are_left_alone(pool, ws):
    me = ws.members["member"]
    mine = await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    theirs = await page_at(pool, ws, T0, "member", ws.members["admin"], [souvenir("Likes mail")])
    count = await page_count(pool, ws)

    def make(batch):
        # Proposals for a page of another audience and for a page that does not exist.
        made = ids.encode("MemoryPage", ws.id, uuid.uuid4())
        return tuple(
            PageProposals(
                page_id=page,
                lines=(LineProposal(key="k", action="delete", reason="no_type"),),
                groups=(GroupProposal(keys=("a", "b"), reason="log", text="New", type="contexte"),),
            )
            for page in (theirs, made)
        )

    reports = await consolidate_at(pool, ws, T1, Proposing(make))
    assert len(reports) == 2
    assert await page_count(pool, ws) == count
    assert await texts(pool, ws, theirs) == [("Likes mail", "relation", False)]
    assert await texts(pool, ws, mine) == [("Likes tea", "relation", False)]
    assert await changes(pool, ws) == []


async def satellite_page(pool, ws) -> tuple[str, str]:
    """A page on a project written before projects became satellites, and the project."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        projects = await create_object(conn, "projects", "Project", "Projects", [])
        await grant_standard_roles(conn, ws.roles, projects)
    [apollo] = await load_records(
        pool, ws.tokens["admin"], [{"object": "projects", "label": "Apollo"}]
    )
    twice = [souvenir("Apollo ships in March"), souvenir("Apollo ships in March.")]
    page = await page_at(pool, ws, T0, "record", ids.decode(apollo, "Record", ws.id), twice)
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await insert_attribute(
            conn, projects, "company", "Company", "relation", target="companies", position=1
        )
    return page, apollo


async def test_satellites_trashed_pages_and_trashed_records_are_not_consolidated(pool, ws, client):
    satellite, _ = await satellite_page(pool, ws)
    [acme, bolt] = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "label": "Acme"}, {"object": "companies", "label": "Bolt"}],
    )
    twice = [souvenir("Pays late"), souvenir("pays late")]
    on_acme = await page_at(pool, ws, T0, "record", ids.decode(acme, "Record", ws.id), twice)
    on_bolt = await page_at(pool, ws, T0, "record", ids.decode(bolt, "Record", ws.id), twice)
    trash = "mutation($id: ID!) { trashRecord(id: $id) }"
    data(await gql(client, ws.tokens["admin"], trash, {"id": bolt}))
    profile = await page_at(pool, ws, T0, "workspace", None, twice)
    await rewrite_at(pool, ws, T0 + MINUTE, profile, [])  # to the trash
    reader = Proposing()
    [report] = await consolidate_at(pool, ws, T1 + MINUTE, reader)
    [batch] = reader.batches
    assert [page.id for page in batch.pages] == [on_acme]
    assert report.lines_changed == 1
    assert await texts(pool, ws, on_acme) == [("Pays late", "relation", False)]
    for left in (satellite, on_bolt):
        assert len(await texts(pool, ws, left)) == 2


async def test_200_pages_at_most_those_written_since_or_due_for_review_first(pool, ws):
    companies = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "label": f"Company {n:03d}"} for n in range(203)],
    )
    pages = []
    for n, gid in enumerate(companies):
        # The first page holds a contexte of six months ago: due for review.
        lines = [souvenir(f"Fact {n}")]
        if n == 0:
            lines.append(souvenir("Old news", "contexte", day="2026-04-01"))
        about = ids.decode(gid, "Record", ws.id)
        pages.append(await page_at(pool, ws, T0 + n * MINUTE, "record", about, lines))
    first = T0 + 300 * MINUTE
    reader = Proposing()
    await consolidate_at(pool, ws, first, reader)
    # Never consolidated: every page was written since; the most recently updated first.
    assert [p.id for p in reader.batches[0].pages] == pages[::-1][:200]
    # A week later: two pages written since and the one due for review first (the latest
    # update first), then the rest by their last update, 200 in all.
    await rewrite_at(pool, ws, first + DAY, pages[5], [souvenir("Fact 5"), souvenir("New 5")])
    await rewrite_at(pool, ws, first + 2 * DAY, pages[9], [souvenir("Fact 9"), souvenir("N 9")])
    [report] = await consolidate_at(pool, ws, first + 7 * DAY, reader)
    assert report.audience.trigger == "week"
    read = [p.id for p in reader.batches[1].pages]
    assert len(read) == 200
    assert read[:4] == [pages[9], pages[5], pages[0], pages[202]]
    assert pages[4] in read and not {pages[1], pages[2], pages[3]} & set(read)


async def test_a_page_changed_while_the_reader_reads_is_left_for_later(pool, ws):
    me = ws.members["member"]
    twice = [souvenir("Likes tea"), souvenir("likes tea")]
    page = await page_at(pool, ws, T0, "member", me, twice)
    reader = Proposing()
    original = reader.consolidate

    async def meanwhile(batch):
        await write_page(pool, ws, page, "\n".join([*twice, souvenir("Likes coffee")]))
        return await original(batch)

    reader.consolidate = meanwhile  # type: ignore[method-assign]
    [report] = await consolidate_at(pool, ws, T1, reader)
    assert report.ran and report.lines_changed == 0
    assert "1 page(s) changed meanwhile" in report.note
    assert len(await texts(pool, ws, page)) == 3


async def test_one_run_per_audience_at_a_time(pool, ws):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    [audience] = [a for a in await consolidation.due(pool, T1) if a.workspace_id == ws.id]
    async with guard.named_lock(pool, consolidation.audience_key(audience)) as taken:
        assert taken
        report = await consolidation.consolidate(pool, audience, settings_of(), Proposing())
    assert report.note == "running elsewhere" and not report.ran
    assert await runs(pool, ws) == []
    # Run once; a second run found due before it finished does nothing.
    first = await consolidation.consolidate(pool, audience, settings_of(), Proposing())
    again = await consolidation.consolidate(pool, audience, settings_of(), Proposing())
    assert (first.ran, again.ran, again.note) == (True, False, "consolidated meanwhile")
    assert len(await runs(pool, ws)) == 1


async def test_statements_do_not_grow_with_the_pages_read(pool, ws, dsn):
    companies = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "label": f"Company {n:02d}"} for n in range(30)],
    )
    for n, gid in enumerate(companies):
        lines = [souvenir(f"Fact {n}")] + ([souvenir(f"fact {n}.")] if n < 2 else [])
        await page_at(pool, ws, T0, "record", ids.decode(gid, "Record", ws.id), lines)
    statements: list[str] = []

    async def init(conn: asyncpg.Connection) -> None:
        await init_connection(conn)
        conn.add_query_logger(lambda record: statements.append(record.query))

    counting = await asyncpg.create_pool(dsn, min_size=1, max_size=2, init=init)
    try:
        [audience] = [a for a in await consolidation.due(counting, T1) if a.workspace_id == ws.id]
        statements.clear()
        report = await consolidation.consolidate(counting, audience, settings_of(), Proposing())
    finally:
        await counting.close()
    assert (report.pages_read, report.lines_changed) == (30, 2)
    # Ours: the named queries (asyncpg's type introspection and the pool's reset aside).
    sent = [q for q in split(statements)[1] if q.startswith(("-- ", "SELECT app_begin"))]
    # The lock and its release, then 5 to reread (the workspace, the audience, the workspace's
    # facts, the spend, the pages), then 4 to write (the workspace, the lock, the run, its
    # changes, the charge) and 4 per page changed (read, its lines twice, its version).
    assert len(sent) == 2 + 5 + 5 + 4 * 2, sent


async def test_a_burst_of_runs_of_one_audience_runs_it_once(pool, ws):
    me = ws.members["member"]
    await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea")])
    reports = await asyncio.gather(*(consolidate_at(pool, ws, T1) for _ in range(3)))
    assert sum(r.ran for found in reports for r in found) == 1
    assert len(await runs(pool, ws)) == 1


async def test_an_audience_that_fails_keeps_no_other_waiting(pool, ws, monkeypatch):
    me, admin = ws.members["member"], ws.members["admin"]
    mine = await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea"), souvenir("likes tea")])
    theirs = await page_at(pool, ws, T0, "member", admin, [souvenir("Pays"), souvenir("pays")])
    real = consolidation.read

    async def broken(conn, audience, *args):  # type: ignore[no-untyped-def]
        if audience.audience_id == me:
            raise asyncpg.PostgresError("the disk is full")
        return await real(conn, audience, *args)

    monkeypatch.setattr(consolidation, "read", broken)
    reader = Proposing()
    reports = {r.audience.audience_id: r for r in await consolidate_at(pool, ws, T1, reader)}
    assert (reports[me].ran, reports[me].note) == (False, "failed (PostgresError)")
    assert reports[admin].ran and len(reader.batches) == 1
    assert len(await texts(pool, ws, mine)) == 2 and len(await texts(pool, ws, theirs)) == 1
    # It failed before its reader was asked, and nothing of it was written: it is due again.
    assert [r["audience_id"] for r in await runs(pool, ws)] == [admin]


async def test_writing_that_fails_after_the_reader_answered_is_recorded_and_charged(
    pool, ws, monkeypatch
):
    me = ws.members["member"]
    page = await page_at(pool, ws, T0, "member", me, [souvenir("Likes tea"), souvenir("likes tea")])

    async def broken(*args):  # type: ignore[no-untyped-def]
        raise asyncpg.PostgresError("the disk is full")

    monkeypatch.setattr(consolidation, "write", broken)
    reader = Proposing(usage=Usage(input_tokens=100_000))  # $0.10 at $1 a million
    [report] = await consolidate_at(pool, ws, T1, reader, per_mtok="1")
    assert report.ran and report.lines_changed == 0 and report.cost_usd == Decimal("0.1")
    assert report.note == "writing failed (PostgresError), nothing applied"
    [run] = await runs(pool, ws)
    assert (run["rules_version"], run["input_tokens"], run["cost_usd"], run["note"]) == (
        0,
        100_000,
        Decimal("0.1"),
        report.note,
    )
    spent = await fetch(pool, ws, "SELECT payer_id, cost_usd, passes FROM memory_spend")
    assert [tuple(row) for row in spent] == [(me, Decimal("0.1"), 1)]
    assert len(await texts(pool, ws, page)) == 2 and await changes(pool, ws) == []
    # The next checks within six hours do not ask the model again; six hours later they do.
    for later in (15 * MINUTE, 6 * HOUR - MINUTE):
        assert await consolidate_at(pool, ws, T1 + later, reader, per_mtok="1") == []
    assert len(reader.batches) == 1
    monkeypatch.undo()
    [report] = await consolidate_at(pool, ws, T1 + 6 * HOUR, reader, per_mtok="1")
    assert (report.audience.trigger, report.lines_changed) == ("rules", 1)
    assert len(reader.batches) == 2


async def test_lines_of_different_sources_keep_their_own_and_the_monday_removal_sees_it(
    pool, ws, stand
):
    [deal_gid] = await load_records(
        pool, ws.tokens["admin"], [{"object": "companies", "label": "Acme"}]
    )
    deal = ids.decode(deal_gid, "Record", ws.id)
    gone = uuid.uuid4()  # a meeting since deleted
    stand(T0)
    page_id = await page_with(
        pool,
        ws,
        "workspace",
        None,
        [
            line("Calls Acme at 9", day=date(2026, 10, 1), source=("record", gone)),
            line("Calls Bolt at 9", day=date(2026, 10, 5)),
            line("Pays in EUR", source=("record", deal)),
            line("Pays in euros", day=date(2026, 10, 5), source=("record", deal)),
        ],
    )
    page = ids.encode("MemoryPage", ws.id, page_id)
    reader = proposing(
        **{
            page: lambda k: (
                (),
                (
                    GroupProposal(
                        keys=(k["Calls Acme at 9"], k["Calls Bolt at 9"]),
                        reason="principle",
                        text="Calls clients at 9",
                        type="consigne",
                    ),
                    GroupProposal(
                        keys=(k["Pays in EUR"], k["Pays in euros"]),
                        reason="log",
                        text="Pays in euros",
                        type="relation",
                    ),
                ),
            )
        }
    )
    [report] = await consolidate_at(pool, ws, T1, reader)
    # The reader is told which lines share a source, by tags of the page's own.
    [batch] = reader.batches
    [read] = batch.pages
    assert [(x.text, x.source) for x in read.lines] == [
        ("Calls Acme at 9", "s1"),
        ("Calls Bolt at 9", ""),
        ("Pays in EUR", "s2"),
        ("Pays in euros", "s2"),
    ]
    assert report.lines_changed == 2
    assert report.note == "1 proposal(s) not applied (1 grouping lines of different sources)"
    rows = await fetch(
        pool,
        ws,
        "SELECT text, source_kind, source_id FROM memory_lines WHERE page_id = $1"
        " AND kind = 'souvenir' ORDER BY position",
        page_id,
    )
    assert [tuple(row) for row in rows] == [
        ("Calls Acme at 9", "record", gone),
        ("Calls Bolt at 9", None, None),
        ("Pays in euros", "record", deal),
    ]
    # The next Monday takes the line whose meeting is gone, and it alone.
    stand(NEXT_MONDAY)
    removal = await remove_in_workspace(pool, ws.id, NEXT_MONDAY)
    assert removal.lines_removed == 1
    assert await kept(pool, ws, page_id) == ["Calls Bolt at 9", "Pays in euros"]
