"""How much a memory search reads (issue 17, item 4): the matches are ranked and ordered from
their lines alone, and each one's page and subject record are looked up in that order until
enough readable souvenirs are kept; a common word no longer costs a lookup per match. Counted
with the transaction's own table statistics (scans started), never with a clock."""

from __future__ import annotations

import asyncpg

from db import identity
from db import search as search_db
from resolvers.common.principals import Principal, token_hash
from tests.factories import Workspace, data, gql, load_records
from tests.search.test_search import WORD, company_page, record_page, souvenir

SCANS = (
    "SELECT COALESCE(sum(seq_scan + COALESCE(idx_scan, 0)), 0) FROM pg_stat_xact_user_tables"
    " WHERE relname = $1"
)


async def page_lookups(
    api_pool: asyncpg.Pool, ws: Workspace, who: str, limit: int
) -> tuple[int, list[search_db.SouvenirHit]]:
    """Recall's souvenirs for ``who`` and the scans of memory_pages they started."""
    async with api_pool.acquire() as conn, conn.transaction():
        row = await identity.begin_request(conn, token_hash(ws.tokens[who]))
        assert row is not None
        principal = Principal(row)
        before = await conn.fetchval(SCANS, "memory_pages")
        found = await search_db.recall_memory(
            conn, WORD, principal.readable_objects, principal.person_id, limit
        )
        return await conn.fetchval(SCANS, "memory_pages") - before, found


async def test_a_common_word_looks_up_the_pages_of_the_kept_souvenirs_only(api_pool, pool, ws):
    # 300 matches on 15 pages, the best (the word twice) last: all are ranked, 5 are kept.
    for page in range(15):
        lines = [souvenir(f"{WORD} fact {page}-{n}") for n in range(20)]
        if page == 14:
            lines[-1] = souvenir(f"{WORD} {WORD} best fact")
        await company_page(pool, ws, f"busy {page}", lines)
    lookups, found = await page_lookups(api_pool, ws, "member", 5)
    assert len(found) == 5 and found[0].text == f"{WORD} {WORD} best fact"
    assert all(h.text.startswith(f"{WORD} fact ") for h in found[1:])
    # Before issue 17: one lookup per match (300).
    assert lookups <= 5, f"{lookups} page lookups for 5 souvenirs kept"


async def test_unreadable_best_matches_are_skipped_in_rank_order_before_the_cut(api_pool, pool, ws):
    # Member's private deal holds the best matches; Other may not read it and gets the
    # company's weaker ones, as many as asked, the deal's looked up and skipped on the way.
    [deal] = await load_records(
        pool, ws.tokens["member"], [{"object": "deals", "label": "Quiet", "visibility": "private"}]
    )
    await record_page(
        pool, ws, deal, [souvenir(f"{WORD} {WORD} secret {n}") for n in range(3)], "deal"
    )
    await company_page(pool, ws, "open", [souvenir(f"{WORD} open {n}") for n in range(20)])
    lookups, found = await page_lookups(api_pool, ws, "other", 4)
    assert [h.text for h in found] == [f"{WORD} open {n}" for n in range(4)]
    assert lookups <= 3 + 4
    _, mine = await page_lookups(api_pool, ws, "member", 4)
    assert [h.text for h in mine] == [f"{WORD} {WORD} secret {n}" for n in range(3)] + [
        f"{WORD} open 0"
    ]


async def test_past_2500_matches_unreadable_ones_still_never_crowd_out_readable_ones(
    api_pool, pool, client, ws
):
    """More than 2,500 matches: candidates come in the index's order, unranked, and the rules
    are checked on them in that order; a reader of the company page alone still finds it
    (written last, after 5,100 matches on Member's private deal), and Member's search says
    it is capped."""
    [deal] = await load_records(
        pool, ws.tokens["member"], [{"object": "deals", "label": "Loud", "visibility": "private"}]
    )
    await record_page(pool, ws, deal, [souvenir(f"{WORD} {WORD} seed")], "deal")
    # 5,100 more souvenirs on the deal's page, written straight (past the API's 20 a page).
    await pool.execute(
        "INSERT INTO memory_lines (workspace_id, page_id, position, kind, key, text, type,"
        " author, day)"
        " SELECT l.workspace_id, l.page_id, 100 + n, 'souvenir', 'k' || n,"
        " $2 || ' ' || $2 || ' loud ' || n, 'relation', 'Claire', l.day"
        " FROM memory_lines l, generate_series(1, 5100) n"
        " WHERE l.workspace_id = $1 AND l.text = $2 || ' ' || $2 || ' seed'",
        ws.id,
        WORD,
    )
    await company_page(pool, ws, "open", [souvenir(f"{WORD} open")])
    query = (
        "query($q: String!) { search(q: $q, objects: [MEMORY]) { total capped hits { title } } }"
    )
    theirs = data(await gql(client, ws.tokens["other"], query, {"q": WORD}))["search"]
    assert theirs == {"total": 1, "capped": False, "hits": [{"title": "open"}]}
    mine = data(await gql(client, ws.tokens["member"], query, {"q": WORD}))["search"]
    assert mine["capped"] is True and mine["hits"][0] == {"title": "deal"}
    lookups, found = await page_lookups(api_pool, ws, "member", 5)
    assert len(found) == 5 and lookups <= 5
