"""Search over memory pages and skills, and recall for harness agents (DESIGN §7; issue 5,
items 5 and 6), through GraphQL ``search(q, objects, first)`` and ``recall(input)`` and the
plain route ``GET /v1/search``, against a real PostgreSQL.

Covered: accent folding both ways (French text, upper case, a decomposed query), the prefix of
the last word, every word required; permission filtering in SQL (a hit the caller may not read
is neither counted nor shown: private records, another member's profile, a role without memory
or without the subject's object, private skills, disable-model-invocation skills, the trash,
another workspace); ranking, ``first`` and ``objects``; the snippet never carrying a source;
input checks and tsquery syntax in ``q``; recall's order, its two limits (defaults and set
lower), its catalog entries (name, trigger, path) and its no-query catalog by use count.

Memory pages are written by the workspace (as the Dreamer will) through ``make_page``; skills,
uses, trash and reads go through GraphQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import asyncpg
import httpx
import pytest

from db import identity
from db.pool import begin_workspace
from resolvers.common import clock, ids
from resolvers.common.principals import issue_token
from resolvers.skills.dormancy import DORMANT_AFTER_DAYS
from tests.factories import (
    Workspace,
    bearer,
    data,
    gql,
    load_records,
    local,
    make_page,
    private_deal,
    problems,
)

SEARCH = """query($q: String!, $objects: [SearchObject!], $first: Int! = 20) {
  search(q: $q, objects: $objects, first: $first) {
    total hits { object id title snippet rank }
  }
}"""
RECALL = """query($input: RecallInput!) {
  recall(input: $input) {
    memories { page type text day }
    skills { name trigger path }
    text
  }
}"""
CREATE_SKILL = """mutation($input: CreateSkillInput!) { createSkill(input: $input) { name } }"""
USE_SKILL = "mutation($name: String!) { recordSkillUse(name: $name) { useCount } }"
READ_SKILL = "query($name: String!) { skill(name: $name) { name } }"
PAGE_KEYS = "query($id: ID!) { memoryPage(id: $id) { souvenirs { key } } }"
DELETE_SOUVENIR = (
    "mutation($id: ID!, $key: String!) { deleteSouvenir(pageId: $id, key: $key) { trashed } }"
)
TRASH_RECORD = "mutation($id: ID!) { trashRecord(id: $id) }"
RESTORE_RECORD = "mutation($id: ID!) { restoreRecord(id: $id) { id } }"

WORD = "zanzibar"
HARNESS_PATH = "$HOME/.standards/skills/{name}/SKILL.md"
MEMORY_HEADING = "# Relevant memory"
SKILLS_HEADING = "# Available skills (Read SKILL.md on use)"


# Helpers -------------------------------------------------------------------------------------


def souvenir(text: str, type_: str = "relation") -> str:
    """A souvenir's line in the stored grammar (no contexte: it would need a review date)."""
    return f"- {text} — Claire, 2026-10-02 [{type_}]"


async def search(
    client: httpx.AsyncClient,
    token: str,
    q: str,
    objects: list[str] | None = None,
    first: int | None = None,
) -> dict[str, Any]:
    variables: dict[str, Any] = {"q": q}
    if objects is not None:
        variables["objects"] = objects
    if first is not None:
        variables["first"] = first
    found: dict[str, Any] = data(await gql(client, token, SEARCH, variables))["search"]
    return found


async def recall(client: httpx.AsyncClient, token: str, **given: Any) -> dict[str, Any]:
    found: dict[str, Any] = data(await gql(client, token, RECALL, {"input": given}))["recall"]
    return found


def titles(found: dict[str, Any]) -> list[str]:
    return [h["title"] for h in found["hits"]]


async def records(
    pool: asyncpg.Pool, ws: Workspace, object_: str, labels: list[str], owner: str = "admin"
) -> list[str]:
    """Workspace records made by ``owner``; their global ids."""
    lines = [{"object": object_, "label": label} for label in labels]
    return await load_records(pool, ws.tokens[owner], lines)


async def record_page(
    pool: asyncpg.Pool, ws: Workspace, record_gid: str, lines: list[str], name: str
) -> str:
    """The page of a record, written by the workspace; its global id."""
    return await make_page(pool, ws, "record", local(ws, record_gid), "\n".join(lines), name=name)


async def company_page(pool: asyncpg.Pool, ws: Workspace, name: str, lines: list[str]) -> str:
    [company] = await records(pool, ws, "companies", [name])
    return await record_page(pool, ws, company, lines, name)


async def create_skill(
    client: httpx.AsyncClient,
    token: str,
    name: str,
    description: str,
    content: str | None = None,
    **extra: Any,
) -> None:
    given: dict[str, Any] = {"name": name, "description": description, **extra}
    if content is not None:
        given["content"] = content
    data(await gql(client, token, CREATE_SKILL, {"input": given}))


def skill_body(trigger: str, overview: str = "") -> str:
    return (
        f"## Overview\n{overview}\n\n## When to use\n\n- {trigger}\n- Don't use when: never\n\n"
        "## Instructions\n\n1. Look\n2. Act\n"
    )


# Accent folding, prefixes, every word required -----------------------------------------------

FRENCH = [
    "Préférence pour le vouvoiement",
    "Désormais, envoyer les factures le lundi",
    "A reçu le devis signé",
    "L'élève suit la formation",
    "preference for email over phone",
]


async def french_pages(pool: asyncpg.Pool, ws: Workspace) -> None:
    """One company page per French souvenir (a page is one hit: hits tell souvenirs apart)."""
    companies = await records(pool, ws, "companies", [f"Company {i}" for i in range(len(FRENCH))])
    for index, (company, text) in enumerate(zip(companies, FRENCH, strict=True)):
        await record_page(pool, ws, company, [souvenir(text)], name=f"page {index}")


@pytest.mark.parametrize(
    "q, expected",
    [
        # Unaccented finds accented, and the other way round, in any case.
        ("preference vouvoiement", [FRENCH[0]]),
        ("PRÉFÉRENCE", [FRENCH[0], FRENCH[4]]),
        ("préférence email", [FRENCH[4]]),
        ("Preference", [FRENCH[0], FRENCH[4]]),
        ("desormais", [FRENCH[1]]),
        ("désormais factures", [FRENCH[1]]),
        ("DÉSORMAIS", [FRENCH[1]]),
        ("recu devis", [FRENCH[2]]),
        ("reçu", [FRENCH[2]]),
        ("RECU", [FRENCH[2]]),
        ("eleve", [FRENCH[3]]),
        ("élève formation", [FRENCH[3]]),
        ("l'élève", [FRENCH[3]]),
        ("signe", [FRENCH[2]]),
        # The last word is a prefix (search as you type).
        ("préf", [FRENCH[0], FRENCH[4]]),
        ("pref", [FRENCH[0], FRENCH[4]]),
        ("PRÉF", [FRENCH[0], FRENCH[4]]),
        ("préférence vouv", [FRENCH[0]]),
        ("envoyer fact", [FRENCH[1]]),
        # Under 3 letters the last word is a whole word, not a prefix (a first keystroke
        # would rank every souvenir).
        ("é", []),
        ("pr", []),
        # Every word is required.
        ("préférence tutoiement", []),
        ("reçu facture lundi", []),
        ("élève devis", []),
    ],
)
async def test_accents_fold_both_ways_and_every_word_is_required(client, pool, ws, q, expected):
    await french_pages(pool, ws)
    found = await search(client, ws.tokens["member"], q, ["MEMORY"])
    assert sorted(h["snippet"] for h in found["hits"]) == sorted(expected)
    assert found["total"] == len(expected)
    assert all(h["object"] == "MEMORY" for h in found["hits"])


async def test_accented_souvenir_text_found_by_accented_query_in_recall(client, pool, ws):
    await french_pages(pool, ws)
    found = await recall(client, ws.tokens["agent"], query="désormais")
    assert [m["text"] for m in found["memories"]] == [FRENCH[1]]
    assert FRENCH[1] in found["text"]


async def test_a_decomposed_query_folds_like_a_composed_one(client, pool, ws):
    """A query typed or pasted in decomposed form (NFD: "e" + U+0301, as macOS file names and
    some PDFs give it) is the same text as "préférence": it must find the same souvenirs. The
    stored side folds it (unaccent drops combining marks); the query's words are split before
    folding, on the combining marks (not word characters), so it asks for
    "pre & fe & rence:*"."""
    await french_pages(pool, ws)
    decomposed = "pre\u0301fe\u0301rence"
    found = await search(client, ws.tokens["member"], decomposed, ["MEMORY"])
    assert sorted(h["snippet"] for h in found["hits"]) == sorted([FRENCH[0], FRENCH[4]]), (
        "a decomposed (NFD) query must find what its composed form finds"
    )


async def test_words_of_a_skill_are_required_across_name_description_and_body(client, ws):
    """Skills are searched by name, description and body: a query whose words are spread over
    the name and the description still names the skill."""
    await create_skill(client, ws.tokens["member"], "invoice-followup", "Chase late payers.")
    found = await search(client, ws.tokens["member"], "invoice chase", ["SKILL"])
    assert titles(found) == ["invoice-followup"], (
        "every word is in the skill (invoice in its name, chase in its description)"
    )


async def test_skills_fold_accents_in_name_description_and_body(client, ws):
    token = ws.tokens["member"]
    await create_skill(client, token, "relance-eleve", "Relancer un élève absent.")
    await create_skill(
        client, token, "devis-recu", "Classer un devis.", skill_body("Quand un devis est reçu")
    )
    assert titles(await search(client, token, "ÉLÈVE", ["SKILL"])) == ["relance-eleve"]
    assert titles(await search(client, token, "recu", ["SKILL"])) == ["devis-recu"]
    assert titles(await search(client, token, "reçu devis", ["SKILL"])) == ["devis-recu"]
    assert titles(await search(client, token, "rel", ["SKILL"])) == ["relance-eleve"]


# Permission filtering ----------------------------------------------------------------------


async def memory_matrix(pool: asyncpg.Pool, ws: Workspace) -> None:
    """Pages holding the same word: a workspace company's, Member's private deal's, Member's and
    Other's profiles, an agent's profile and the workspace profile."""
    await company_page(pool, ws, "company page", [souvenir(f"{WORD} company")])
    deal = await private_deal(pool, ws, "member", "Quiet deal")
    await record_page(pool, ws, deal, [souvenir(f"{WORD} private deal")], "private deal page")
    for who in ("member", "other"):
        await make_page(
            pool,
            ws,
            "member",
            ws.members[who],
            souvenir(f"{WORD} {who} profile", "préférence"),
            name=f"{who} profile",
        )
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        agent = await conn.fetchval("SELECT id FROM agents WHERE name = 'Scout'")
    await make_page(pool, ws, "agent", agent, souvenir(f"{WORD} agent profile"), name="agent")
    await make_page(
        pool, ws, "workspace", None, souvenir(f"{WORD} team rule", "consigne"), name="workspace"
    )


SHARED = {"company page", "agent", "workspace"}
MEMORY_SEEN = {
    "admin": SHARED,
    "viewer": SHARED,
    "member": SHARED | {"private deal page", "member profile"},
    "agent": SHARED | {"private deal page", "member profile"},
    "mcp_client": SHARED | {"private deal page", "member profile"},
    "other": SHARED | {"other profile"},
    "api_key": set(),
}


@pytest.mark.parametrize("who", sorted(MEMORY_SEEN))
async def test_a_page_the_caller_may_not_read_is_never_counted_or_shown(client, pool, ws, who):
    await memory_matrix(pool, ws)
    found = await search(client, ws.tokens[who], WORD)
    assert set(titles(found)) == MEMORY_SEEN[who]
    assert len(found["hits"]) == len(MEMORY_SEEN[who])
    assert found["total"] == len(MEMORY_SEEN[who])
    # A small `first` cuts the hits, never the count, and never lets a hidden page in.
    first = await search(client, ws.tokens[who], WORD, first=1)
    assert first["total"] == len(MEMORY_SEEN[who])
    assert set(titles(first)) <= MEMORY_SEEN[who]
    assert len(first["hits"]) == min(1, len(MEMORY_SEEN[who]))
    recalled = await recall(client, ws.tokens[who], query=WORD)
    assert {m["page"] for m in recalled["memories"]} == MEMORY_SEEN[who]
    assert len(recalled["memories"]) == len(MEMORY_SEEN[who])


async def test_a_shared_private_record_opens_its_page_to_search(client, pool, ws):
    deal = await private_deal(pool, ws, "member", "Quiet deal")
    await record_page(pool, ws, deal, [souvenir(f"{WORD} quiet")], "quiet page")
    assert (await search(client, ws.tokens["other"], WORD))["total"] == 0
    await load_records(
        pool,
        ws.tokens["member"],
        [{"object": "deals", "id": deal, "shared_with": ["other@acmecorp.example"]}],
    )
    assert titles(await search(client, ws.tokens["other"], WORD)) == ["quiet page"]
    assert (await search(client, ws.tokens["admin"], WORD))["total"] == 0


async def test_a_role_reading_memory_but_not_the_subjects_object_finds_no_page_of_it(
    client, pool, ws
):
    """A record page is read by whoever reads its record: memory read alone is not enough."""
    await company_page(pool, ws, "company page", [souvenir(f"{WORD} company")])
    [deal] = await records(pool, ws, "deals", ["Open deal"])
    await record_page(pool, ws, deal, [souvenir(f"{WORD} deal")], "deal page")
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        role = await identity.insert_role(conn, uuid4(), "memory-and-companies")
        for slug in ("memory", "companies"):
            await identity.upsert_role_permission(
                conn, role, ws.objects[slug], read=True, create=False, update=False, delete=False
            )
        reader = await identity.insert_member(
            conn, uuid4(), "Reader", "reader@acmecorp.example", role
        )
        token = await issue_token(conn, "member", member_id=reader.id, purpose="test")
    found = await search(client, token, WORD)
    assert titles(found) == ["company page"] and found["total"] == 1
    assert [m["page"] for m in (await recall(client, token, query=WORD))["memories"]] == [
        "company page"
    ]
    assert (await search(client, ws.tokens["member"], WORD))["total"] == 2


async def test_a_role_without_memory_read_finds_no_memory_and_no_skill(client, pool, ws):
    """The integration API key reads companies only: not memory, not skills, even of a company
    it reads."""
    await company_page(pool, ws, "company page", [souvenir(f"{WORD} company")])
    await create_skill(client, ws.tokens["member"], f"{WORD}-route", "Plan a route.")
    key = ws.tokens["api_key"]
    assert await search(client, key, WORD) == {"total": 0, "hits": []}
    assert await search(client, key, WORD, ["MEMORY"]) == {"total": 0, "hits": []}
    assert await search(client, key, WORD, ["SKILL"]) == {"total": 0, "hits": []}
    assert await recall(client, key, query=WORD) == {"memories": [], "skills": [], "text": ""}
    assert await recall(client, key) == {"memories": [], "skills": [], "text": ""}
    assert (await search(client, ws.tokens["viewer"], WORD))["total"] == 2


@pytest.mark.parametrize(
    "who, seen",
    [
        ("member", {"zanzibar-mine", "zanzibar-shared"}),
        ("agent", {"zanzibar-mine", "zanzibar-shared"}),
        ("mcp_client", {"zanzibar-mine", "zanzibar-shared"}),
        ("other", {"zanzibar-shared"}),
        ("admin", {"zanzibar-shared"}),
        ("viewer", {"zanzibar-shared"}),
        ("api_key", set()),
    ],
)
async def test_a_private_skill_is_found_by_its_owner_only(client, ws, who, seen):
    token = ws.tokens["member"]
    await create_skill(client, token, "zanzibar-mine", "Mine alone.", visibility="PRIVATE")
    await create_skill(client, token, "zanzibar-shared", "For the team.")
    found = await search(client, ws.tokens[who], WORD)
    assert set(titles(found)) == seen and found["total"] == len(seen)
    assert {h["id"] for h in found["hits"]} == seen
    with_query = await recall(client, ws.tokens[who], query=WORD)
    assert {s["name"] for s in with_query["skills"]} == seen
    catalog = await recall(client, ws.tokens[who])
    assert {s["name"] for s in catalog["skills"]} == seen
    if "zanzibar-mine" not in seen:
        assert "zanzibar-mine" not in json.dumps([found, with_query, catalog])


async def test_a_skill_a_model_may_not_invoke_is_never_searched_nor_recalled(client, ws):
    token = ws.tokens["member"]
    await create_skill(
        client,
        token,
        "zanzibar-manual",
        "Only by hand: zanzibar.",
        skill_body("When zanzibar is asked"),
        extraFrontmatter={"disable-model-invocation": True},
    )
    await create_skill(client, token, "zanzibar-auto", "Offered: zanzibar.")
    for who in ("member", "agent", "admin"):
        found = await search(client, ws.tokens[who], WORD)
        assert titles(found) == ["zanzibar-auto"] and found["total"] == 1
        assert titles(await search(client, ws.tokens[who], "manual", ["SKILL"])) == []
        for given in ({"query": WORD}, {"query": "manual"}, {}):
            recalled = await recall(client, ws.tokens[who], **given)
            assert "zanzibar-manual" not in json.dumps(recalled)
    # Still readable by name.
    read = await gql(client, token, READ_SKILL, {"name": "zanzibar-manual"})
    assert data(read) == {"skill": {"name": "zanzibar-manual"}}


async def test_a_trashed_page_never_appears(client, pool, ws):
    page = await company_page(pool, ws, "emptied page", [souvenir(f"{WORD} emptied")])
    [acme] = await records(pool, ws, "companies", ["Acme"])
    await record_page(pool, ws, acme, [souvenir(f"{WORD} acme")], "acme page")
    token = ws.tokens["member"]
    assert set(titles(await search(client, token, WORD))) == {"emptied page", "acme page"}
    # Deleting its last souvenir sends the page to the trash.
    [key] = data(await gql(client, token, PAGE_KEYS, {"id": page}))["memoryPage"]["souvenirs"]
    deleted = data(await gql(client, token, DELETE_SOUVENIR, {"id": page, "key": key["key"]}))
    assert deleted == {"deleteSouvenir": {"trashed": True}}
    # A trashed record keeps its page, which nobody reads until the record is restored.
    assert data(await gql(client, ws.tokens["admin"], TRASH_RECORD, {"id": acme})) == {
        "trashRecord": True
    }
    for who in ("admin", "member", "agent", "viewer"):
        assert await search(client, ws.tokens[who], WORD) == {"total": 0, "hits": []}
        assert (await recall(client, ws.tokens[who], query=WORD))["memories"] == []
    data(await gql(client, ws.tokens["admin"], RESTORE_RECORD, {"id": acme}))
    assert titles(await search(client, token, WORD)) == ["acme page"]


async def test_a_page_marked_trashed_is_left_out_even_with_its_lines(client, pool, ws):
    """White-box guard of the SQL filter: a page in the trash that still holds matching lines
    (the product empties a page it trashes, so only the filter stands between such lines and
    a search) is never found."""
    page = await company_page(pool, ws, "binned page", [souvenir(f"{WORD} binned")])
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await conn.execute(
            "UPDATE memory_pages SET trashed_at = now() WHERE id = $1",
            local(ws, page, "MemoryPage"),
        )
    assert await search(client, ws.tokens["member"], WORD) == {"total": 0, "hits": []}
    assert (await recall(client, ws.tokens["agent"], query=WORD))["memories"] == []


async def test_unreadable_matches_never_crowd_out_readable_ones(client, pool, ws):
    """2,020 matching souvenirs on Member's private deals (101 pages of 20), then one, weaker
    (the word once, not twice), on a workspace company's page: Other reads only the company's
    page and must find it, counted once; Member reads all 102 pages: its total counts the pages
    of the best 2,000 matches and says it is capped.
    Whatever bounds the work of a search must not be applied before the permission filter
    (whatever order the candidates come in)."""
    deals = await load_records(
        pool,
        ws.tokens["member"],
        [
            {"object": "deals", "label": f"Quiet deal {i}", "visibility": "private"}
            for i in range(101)
        ],
    )
    for index, deal in enumerate(deals):
        lines = [souvenir(f"{WORD} {WORD} private fact {index}-{n}") for n in range(20)]
        await record_page(pool, ws, deal, lines, f"deal {index}")
    await company_page(pool, ws, "company page", [souvenir(f"{WORD} open fact")])
    other = await search(client, ws.tokens["other"], WORD)
    assert (other["total"], titles(other)) == (1, ["company page"]), (
        "a readable page was crowded out by matches the caller may not read"
    )
    # Member's 2,021 readable matches pass the 2,000 souvenirs a search ranks: the total
    # counts the pages of the best 2,000 and says it is a lower bound.
    query = "query($q: String!) { search(q: $q, objects: [MEMORY]) { total capped } }"
    mine = data(await gql(client, ws.tokens["member"], query, {"q": WORD}))["search"]
    assert mine == {"total": 100, "capped": True}
    theirs = data(await gql(client, ws.tokens["other"], query, {"q": WORD}))["search"]
    assert theirs == {"total": 1, "capped": False}


async def test_another_workspace_never_appears(client, pool, ws, ws2):
    for space, name in ((ws, "ours"), (ws2, "theirs")):
        await company_page(pool, space, f"{name} page", [souvenir(f"{WORD} {name}")])
        await create_skill(client, space.tokens["member"], f"{WORD}-{name}", f"{WORD} {name}.")
        await make_page(
            pool,
            space,
            "workspace",
            None,
            souvenir(f"{WORD} {name} rule", "consigne"),
            name=f"{name} rules",
        )
    for space, mine, theirs in ((ws, "ours", "theirs"), (ws2, "theirs", "ours")):
        for who in ("admin", "member", "agent", "viewer"):
            found = await search(client, space.tokens[who], WORD)
            assert set(titles(found)) == {f"{mine} page", f"{WORD}-{mine}", f"{mine} rules"}
            assert found["total"] == 3
            recalled = await recall(client, space.tokens[who], query=WORD)
            catalog = await recall(client, space.tokens[who])
            assert theirs not in json.dumps([found, recalled, catalog])


# Ranking, first, objects -------------------------------------------------------------------


async def test_a_skill_named_by_the_word_ranks_before_one_mentioning_it_in_its_body(client, ws):
    token = ws.tokens["member"]
    # Made first, and first by name: only the rank can put it second.
    await create_skill(
        client, token, "travel-notes", "Notes for trips.", skill_body("Before a trip", WORD)
    )
    await create_skill(client, token, f"{WORD}-route", "Plan a route.")
    found = await search(client, token, WORD, ["SKILL"])
    assert titles(found) == [f"{WORD}-route", "travel-notes"]
    assert found["hits"][0]["rank"] > found["hits"][1]["rank"]
    assert [h["snippet"] for h in found["hits"]] == ["Plan a route.", "Notes for trips."]


async def test_memory_pages_are_ranked_by_match(client, pool, ws):
    for index in range(5):
        await company_page(
            pool, ws, f"weak {index}", [souvenir(f"Ships to {WORD} sometimes, by sea {index}")]
        )
    await company_page(pool, ws, "strong", [souvenir(f"{WORD} {WORD} {WORD}, ships to {WORD}")])
    await company_page(pool, ws, "other", [souvenir("Ships to Lisbon")])
    found = await search(client, ws.tokens["member"], WORD)
    assert titles(found)[0] == "strong" and len(found["hits"]) == 6
    assert found["hits"][0]["rank"] > found["hits"][1]["rank"]
    # The best page is chosen before `first` cuts, not after.
    for first in (1, 2):
        cut = await search(client, ws.tokens["member"], WORD, ["MEMORY"], first)
        assert titles(cut)[0] == "strong" and cut["total"] == 6
    best = await recall(client, ws.tokens["agent"], query=WORD, limit=1)
    assert [m["page"] for m in best["memories"]] == ["strong"]


async def test_hits_come_best_first_across_memory_and_skills(client, pool, ws):
    await company_page(pool, ws, "page", [souvenir(f"{WORD} by sea")])
    await create_skill(client, ws.tokens["member"], f"{WORD}-route", "Plan a route.")
    await create_skill(
        client, ws.tokens["member"], "travel-notes", "Notes.", skill_body("Before", WORD)
    )
    found = await search(client, ws.tokens["member"], WORD)
    ranks = [h["rank"] for h in found["hits"]]
    assert ranks == sorted(ranks, reverse=True)
    assert titles(found)[0] == f"{WORD}-route"
    assert found["total"] == 3


async def test_first_limits_the_hits_and_objects_chooses_the_kinds(client, pool, ws):
    for index in range(5):
        await company_page(pool, ws, f"page {index}", [souvenir(f"{WORD} number {index}")])
    for index in range(3):
        await create_skill(client, ws.tokens["member"], f"{WORD}-{index}", f"Step {index}.")
    token = ws.tokens["member"]
    both = await search(client, token, WORD)
    assert len(both["hits"]) == 8 and both["total"] == 8
    assert {h["object"] for h in both["hits"]} == {"MEMORY", "SKILL"}
    explicit = await search(client, token, WORD, ["MEMORY", "SKILL"])
    assert explicit == both
    for first in (1, 2, 4, 7):
        cut = await search(client, token, WORD, first=first)
        assert len(cut["hits"]) == first and cut["total"] == 8
        assert cut["hits"] == both["hits"][:first]
    memory = await search(client, token, WORD, ["MEMORY"])
    assert {h["object"] for h in memory["hits"]} == {"MEMORY"}
    assert memory["total"] == 5 and len(memory["hits"]) == 5
    for hit in memory["hits"]:
        assert ids.decode(hit["id"], "MemoryPage", ws.id)
    skills = await search(client, token, WORD, ["SKILL"], first=2)
    assert {h["object"] for h in skills["hits"]} == {"SKILL"}
    assert skills["total"] == 3 and len(skills["hits"]) == 2
    assert len((await search(client, token, WORD, first=50))["hits"]) == 8


# The snippet -------------------------------------------------------------------------------


async def test_the_snippet_holds_the_souvenirs_words_never_its_source(client, pool, ws):
    """A souvenir on a workspace company's page, sourced from Member's private deal: whoever
    searches or recalls sees its words, never the deal's id (nor its label)."""
    deal = await private_deal(pool, ws, "member", "Secret deal")
    stored = f"- Wants a {WORD} discount → record:{deal} — Member, 2026-10-23 [relation]"
    await company_page(pool, ws, "Acme", [stored])
    deal_uuid = local(ws, deal)
    for who in ("admin", "member", "other", "agent", "viewer"):
        found = await search(client, ws.tokens[who], WORD)
        assert [(h["title"], h["snippet"]) for h in found["hits"]] == [
            ("Acme", f"Wants a {WORD} discount")
        ]
        recalled = await recall(client, ws.tokens[who], query=WORD)
        assert [m["text"] for m in recalled["memories"]] == [f"Wants a {WORD} discount"]
        for response in (found, recalled):
            dumped = json.dumps(response)
            assert deal not in dumped
            assert str(deal_uuid) not in dumped and deal_uuid.hex not in dumped
            assert "record:" not in dumped and "Secret deal" not in dumped


async def test_a_page_is_one_hit_shown_by_its_best_souvenir(client, pool, ws):
    lines = [
        souvenir(f"Once {WORD}, by sea"),
        souvenir(f"{WORD} {WORD} {WORD} every week"),
        souvenir("Nothing about it"),
        souvenir(f"Twice {WORD}, {WORD}"),
    ]
    await company_page(pool, ws, "Acme", lines)
    found = await search(client, ws.tokens["member"], WORD)
    assert found["total"] == 1
    assert [(h["title"], h["snippet"]) for h in found["hits"]] == [
        ("Acme", f"{WORD} {WORD} {WORD} every week")
    ]


async def test_a_long_souvenir_snippet_is_cut_on_one_line(client, pool, ws):
    text = f"{WORD} " + "word " * 80
    await company_page(pool, ws, "long", [souvenir(text.strip())])
    [hit] = (await search(client, ws.tokens["member"], WORD))["hits"]
    assert len(hit["snippet"]) <= 200 and "\n" not in hit["snippet"]
    assert hit["snippet"].startswith(f"{WORD} word word")


# Input checks ------------------------------------------------------------------------------


@pytest.mark.parametrize("q", ["", " ", "   \t ", "!!!", "&|!():*", "— … «»", "'\"", "__"])
async def test_a_query_without_words_finds_nothing_and_is_no_error(client, pool, ws, q):
    await company_page(pool, ws, "page", [souvenir(f"{WORD} anything")])
    await create_skill(client, ws.tokens["member"], f"{WORD}-route", "Plan a route.")
    assert await search(client, ws.tokens["member"], q) == {"total": 0, "hits": []}
    recalled = await recall(client, ws.tokens["member"], query=q)
    assert recalled["memories"] == []


async def test_every_bad_search_argument_is_listed(client, ws):
    token = ws.tokens["member"]
    response = await gql(client, token, SEARCH, {"q": "x" * 201, "objects": [], "first": 0})
    assert {p.get("field") for p in problems(response)} == {"q", "objects", "first"}
    assert response.json()["data"] is None


@pytest.mark.parametrize(
    "variables, field",
    [
        ({"q": "x" * 201}, "q"),
        ({"q": "é" * 201}, "q"),
        ({"q": WORD, "first": 0}, "first"),
        ({"q": WORD, "first": 51}, "first"),
        ({"q": WORD, "first": -1}, "first"),
        ({"q": WORD, "objects": []}, "objects"),
    ],
)
async def test_a_bad_search_argument_is_refused(client, ws, variables, field):
    response = await gql(client, ws.tokens["member"], SEARCH, variables)
    assert [p.get("field") for p in problems(response)] == [field]


@pytest.mark.parametrize(
    "variables", [{"q": "x" * 200}, {"q": WORD, "first": 1}, {"q": WORD, "first": 50}]
)
async def test_the_bounds_themselves_are_accepted(client, ws, variables):
    assert "search" in data(await gql(client, ws.tokens["member"], SEARCH, variables))


async def test_an_unknown_object_is_refused_by_the_schema(client, ws):
    response = await gql(client, ws.tokens["member"], SEARCH, {"q": WORD, "objects": ["DEAL"]})
    assert response.json().get("errors"), response.json()
    assert "data" not in response.json() or response.json()["data"] is None


# Each query, and whether its words (taken as words, never as operators; a one-letter word
# beside longer ones says nothing and is left out) find the page.
TSQUERY_SYNTAX = {
    "a & b | !c:*": False,
    f"{WORD} & b | !c:*": True,
    f"{WORD}:*": True,
    f"{WORD}:*A": True,
    f"'{WORD}'": True,
    f'"{WORD}"': True,
    f"''{WORD}''": True,
    f"({WORD})": True,
    f"(({WORD}": True,
    f"{WORD})": True,
    f"{WORD}\\": True,
    f"\\{WORD}": True,
    f"{WORD} \\' \\\\": True,
    f"!{WORD}": True,
    f"{WORD} <-> ships": True,
    f"{WORD} <2> ships": True,
    f"{WORD} & !!": True,
    f"{WORD} |": True,
    f"{WORD}'s": True,
    f"{WORD} ' ( ) & | ! : * < > \\ \"": True,
    "'": False,
    "\\": False,
    "(": False,
    ":*": False,
    "&": False,
}


@pytest.mark.parametrize("q, finds", sorted(TSQUERY_SYNTAX.items()))
async def test_tsquery_syntax_in_the_query_is_never_an_error(client, pool, ws, q, finds):
    await company_page(pool, ws, "page", [souvenir(f"{WORD} ships by sea")])
    found = await search(client, ws.tokens["member"], q)
    assert titles(found) == (["page"] if finds else [])
    recalled = await recall(client, ws.tokens["agent"], query=q)
    assert len(recalled["memories"]) == (1 if finds else 0)


# Characters that are letters or numbers to Python's \w but that unaccent folds into tsquery
# syntax: "⑴" -> "(1)", "ʼ" (modifier letter apostrophe) -> "'", "ː" (length mark) -> ":",
# "ŉ" -> "'n". Typed by keyboards that produce "lʼélève", or pasted from documents.
FOLDED_INTO_SYNTAX = ["lʼélève", "aujourdʼhui", f"{WORD} ⑴", "⑴", "aː", "ŉ", f"{WORD} ⒇"]


@pytest.mark.parametrize("q", FOLDED_INTO_SYNTAX)
async def test_letters_that_fold_into_tsquery_syntax_are_never_an_error(client, pool, ws, q):
    await company_page(pool, ws, "page", [souvenir(f"{WORD} : L'élève ships (1) aujourd'hui")])
    response = await gql(client, ws.tokens["member"], SEARCH, {"q": q})
    assert "errors" not in response.json(), (
        f"search({q!r}) answered an error: {response.json().get('errors')}"
    )
    if "ʼ" in q:
        # U+02BC folds to an apostrophe: "lʼélève" asks for "l'élève".
        assert titles(response.json()["data"]["search"]) == ["page"]
    response = await gql(client, ws.tokens["agent"], RECALL, {"input": {"query": q}})
    assert "errors" not in response.json(), (
        f"recall({q!r}) answered an error: {response.json().get('errors')}"
    )
    plain = await client.get("/v1/search", params={"q": q}, headers=bearer(ws.tokens["member"]))
    assert plain.status_code == 200, f"GET /v1/search?q={q!r}: {plain.status_code} {plain.text}"


async def test_more_than_eight_words_is_no_error(client, pool, ws):
    await company_page(pool, ws, "page", [souvenir(f"{WORD} ships by sea")])
    q = " ".join([WORD, "ships", "by", "sea"] * 3)
    assert titles(await search(client, ws.tokens["member"], q)) == ["page"]


# Recall ------------------------------------------------------------------------------------


async def test_recall_gives_memories_first_then_skills(client, pool, ws):
    await company_page(pool, ws, "Acme", [souvenir(f"Ships to {WORD}", "préférence")])
    await create_skill(
        client,
        ws.tokens["member"],
        f"{WORD}-route",
        "Plan a route.",
        skill_body("When a shipment leaves"),
    )
    found = await recall(client, ws.tokens["agent"], query=WORD)
    assert found["memories"] == [
        {"page": "Acme", "type": "préférence", "text": f"Ships to {WORD}", "day": "2026-10-02"}
    ]
    assert found["skills"] == [
        {
            "name": f"{WORD}-route",
            "trigger": "When a shipment leaves",
            "path": HARNESS_PATH.format(name=f"{WORD}-route"),
        }
    ]
    text = found["text"]
    assert text.startswith(MEMORY_HEADING)
    assert text.index(f"Ships to {WORD}") < text.index(SKILLS_HEADING)
    assert text.index(SKILLS_HEADING) < text.index(f"{WORD}-route")
    assert HARNESS_PATH.format(name=f"{WORD}-route") in text


async def test_a_skill_entry_has_name_trigger_and_harness_path(client, ws):
    token = ws.tokens["member"]
    await create_skill(
        client, token, "invoice-followup", "Chase an unpaid invoice.", skill_body("When late")
    )
    # The template's "When to use" is empty: the description stands in for it.
    await create_skill(client, token, "invoice-template", "Write an invoice from scratch.")
    await create_skill(
        client,
        token,
        "invoice-plain",
        "Send invoices by post.",
        "## Overview\nNo trigger section here.\n",
    )
    await create_skill(
        client,
        token,
        "invoice-spaced",
        "Spaced.",
        "## Overview\n\n## When to use\n\n\n*   When it is Friday  \n\n## Steps\n1. Go\n",
    )
    found = await recall(client, ws.tokens["agent"], query="invoice")
    entries = {s["name"]: s for s in found["skills"]}
    assert entries == {
        "invoice-followup": {
            "name": "invoice-followup",
            "trigger": "When late",
            "path": "$HOME/.standards/skills/invoice-followup/SKILL.md",
        },
        "invoice-template": {
            "name": "invoice-template",
            "trigger": "Write an invoice from scratch.",
            "path": "$HOME/.standards/skills/invoice-template/SKILL.md",
        },
        "invoice-plain": {
            "name": "invoice-plain",
            "trigger": "Send invoices by post.",
            "path": "$HOME/.standards/skills/invoice-plain/SKILL.md",
        },
        "invoice-spaced": {
            "name": "invoice-spaced",
            "trigger": "When it is Friday",
            "path": "$HOME/.standards/skills/invoice-spaced/SKILL.md",
        },
    }
    assert found["memories"] == []
    assert found["text"].startswith(SKILLS_HEADING)
    for entry in entries.values():
        assert f"- **{entry['name']}**: {entry['trigger']}" in found["text"]


async def test_without_a_query_recall_lists_skills_by_use_count(client, pool, ws):
    token = ws.tokens["member"]
    await company_page(pool, ws, "Acme", [souvenir(f"{WORD} ships")])
    for name in ("alpha-skill", "beta-skill", "gamma-skill"):
        await create_skill(client, token, name, f"The {name}.")
    for name in ("beta-skill", "beta-skill", "gamma-skill"):
        data(await gql(client, token, USE_SKILL, {"name": name}))
    found = await recall(client, ws.tokens["agent"])
    assert [s["name"] for s in found["skills"]] == ["beta-skill", "gamma-skill", "alpha-skill"]
    assert found["memories"] == [] and MEMORY_HEADING not in found["text"]
    for _ in range(3):
        data(await gql(client, token, USE_SKILL, {"name": "alpha-skill"}))
    found = await recall(client, ws.tokens["agent"], limit=2)
    assert [s["name"] for s in found["skills"]] == ["alpha-skill", "beta-skill"]


async def many_memories(
    pool: asyncpg.Pool, ws: Workspace, pages: int, per_page: int, text: str
) -> None:
    """``pages`` company pages of ``per_page`` matching souvenirs each."""
    companies = await records(pool, ws, "companies", [f"Company {i}" for i in range(pages)])
    for page, company in enumerate(companies):
        lines = [souvenir(text.format(n=page * per_page + i)) for i in range(per_page)]
        await record_page(pool, ws, company, lines, f"page {page}")


async def many_skills(client: httpx.AsyncClient, ws: Workspace, count: int) -> None:
    for index in range(count):
        await create_skill(
            client,
            ws.tokens["member"],
            f"{WORD}-step-{index}",
            f"Step {index} of the {WORD} run.",
            skill_body(f"When {WORD} step {index} is due"),
        )


def item_count(found: dict[str, Any]) -> int:
    return len(found["memories"]) + len(found["skills"])


async def test_recall_lists_a_dormant_skill_without_its_trigger_as_the_catalog_does(client, ws):
    """A skill unused and unchanged for 21 days is dormant: recall names it and its path only,
    like skillCatalog, never its trigger or description."""
    token = ws.tokens["admin"]
    await create_skill(client, token, "old-habit", "Quiet description", skill_body("Old trigger"))
    await create_skill(client, token, "fresh-habit", "Fresh description", skill_body("New one"))
    data(await gql(client, token, USE_SKILL, {"name": "fresh-habit"}))
    later = datetime.now(UTC) + timedelta(days=DORMANT_AFTER_DAYS)
    clock.set_clock(lambda: later)
    try:
        catalog = await recall(client, ws.tokens["agent"])
        found = await recall(client, ws.tokens["agent"], query="habit")
    finally:
        clock.set_clock(None)
    for recalled in (catalog, found):
        skills = {s["name"]: s["trigger"] for s in recalled["skills"]}
        assert skills == {"fresh-habit": "New one", "old-habit": ""}
        assert "Old trigger" not in recalled["text"]
        assert "Quiet description" not in recalled["text"]
        assert f"- **old-habit** → `{HARNESS_PATH.format(name='old-habit')}`" in recalled["text"]


async def test_recall_keeps_to_a_limit_and_max_chars_set_lower(client, pool, ws):
    """60 matching souvenirs (6 pages of 10) and 10 matching skills."""
    await many_memories(pool, ws, 6, 10, WORD + " fact {n}")
    await many_skills(client, ws, 10)
    token = ws.tokens["agent"]
    three = await recall(client, token, query=WORD, limit=3)
    assert item_count(three) == 3
    assert len(three["memories"]) == 3 and three["skills"] == []
    tight = await recall(client, token, query=WORD, maxChars=300)
    assert len(tight["text"]) <= 300 and item_count(tight) >= 1
    assert tight["text"].startswith(MEMORY_HEADING)
    both = await recall(client, token, query=WORD, limit=3, maxChars=300)
    assert item_count(both) <= 3 and len(both["text"]) <= 300
    for limit, max_chars in ((1, 6000), (40, 1), (2, 120), (40, 6000)):
        found = await recall(client, token, query=WORD, limit=limit, maxChars=max_chars)
        assert item_count(found) <= limit and len(found["text"]) <= max_chars
    nothing = await recall(client, token, query=WORD, maxChars=1)
    assert nothing == {"memories": [], "skills": [], "text": ""}
    catalog = await recall(client, token, limit=3)
    assert len(catalog["skills"]) == 3 and catalog["memories"] == []


async def test_recall_default_takes_40_items_memories_first(client, pool, ws):
    """60 short matching souvenirs (6 pages of 10) and 10 matching skills: the 40 items of the
    default are memories (they come first), well within 6,000 characters. Each souvenir is a
    memory: a page with 10 matching souvenirs is 10 memories, not one."""
    await many_memories(pool, ws, 6, 10, WORD + " fact {n}")
    await many_skills(client, ws, 10)
    found = await recall(client, ws.tokens["agent"], query=WORD)
    assert len(found["text"]) <= 6000
    assert item_count(found) == 40, (
        f"expected 40 items (40 of the 60 matching souvenirs), got {len(found['memories'])}"
        f" memories and {len(found['skills'])} skills"
    )
    assert len(found["memories"]) == 40 and found["skills"] == []


async def test_recall_fills_the_rest_of_its_items_with_skills(client, pool, ws):
    await many_memories(pool, ws, 2, 1, WORD + " fact {n}")
    await many_skills(client, ws, 10)
    found = await recall(client, ws.tokens["agent"], query=WORD, limit=5)
    assert len(found["memories"]) == 2 and len(found["skills"]) == 3
    default = await recall(client, ws.tokens["agent"], query=WORD)
    assert len(default["memories"]) == 2 and len(default["skills"]) == 10
    text = default["text"]
    assert text.index(MEMORY_HEADING) < text.index(SKILLS_HEADING)


async def test_recall_default_keeps_to_6000_characters(client, pool, ws):
    """60 long matching souvenirs, one per page: 6,000 characters hold fewer than 40 of them."""
    long_text = WORD + " fact {n} " + "about the shipping schedule " * 6
    await many_memories(pool, ws, 60, 1, long_text.strip())
    await many_skills(client, ws, 10)
    found = await recall(client, ws.tokens["agent"], query=WORD)
    assert len(found["text"]) <= 6000
    assert 6000 - len(found["text"]) < 250, "the budget is filled up to the last whole item"
    assert item_count(found) < 40 and len(found["memories"]) >= 20
    lines = found["text"].split("\n")
    assert lines[0] == MEMORY_HEADING
    skill_lines = 1 + len(found["skills"]) if found["skills"] else 0
    assert len(lines) == 1 + len(found["memories"]) + skill_lines
    cut = await recall(client, ws.tokens["agent"], query=WORD, maxChars=1000)
    assert len(cut["text"]) <= 1000 and 1 <= len(cut["memories"]) < len(found["memories"])


@pytest.mark.parametrize(
    "given, fields",
    [
        ({"limit": 41}, {"limit"}),
        ({"limit": 0}, {"limit"}),
        ({"limit": -5}, {"limit"}),
        ({"maxChars": 6001}, {"maxChars"}),
        ({"maxChars": 0}, {"maxChars"}),
        ({"maxChars": -1}, {"maxChars"}),
        ({"limit": 100, "maxChars": 100_000}, {"limit", "maxChars"}),
        ({"limit": 0, "maxChars": 0, "query": WORD}, {"limit", "maxChars"}),
    ],
)
async def test_recall_bounds_are_checked(client, ws, given, fields):
    response = await gql(client, ws.tokens["agent"], RECALL, {"input": given})
    assert {p.get("field") for p in problems(response)} == fields


async def test_recall_query_too_long_names_the_query_field(client, ws):
    response = await gql(client, ws.tokens["agent"], RECALL, {"input": {"query": "x" * 201}})
    assert [p.get("field") for p in problems(response)] == ["query"], (
        "recall's input field is `query`: the problem should name it, not search's `q`"
    )


@pytest.mark.parametrize("given", [{"limit": 40, "maxChars": 6000}, {"limit": 1, "maxChars": 1}])
async def test_recall_bounds_themselves_are_accepted(client, ws, given):
    assert "recall" in data(await gql(client, ws.tokens["agent"], RECALL, {"input": given}))


# The HTTP route ----------------------------------------------------------------------------

ROUTE_MISSING = "GET /v1/search answered 404: the HTTP route of issue 5 item 6 is not routed"


async def http_search(
    client: httpx.AsyncClient, token: str | None, **params: str
) -> httpx.Response:
    headers = bearer(token) if token is not None else {}
    response = await client.get("/v1/search", params=params, headers=headers)
    if response.status_code == 404:
        try:
            body = response.json()
        except ValueError:
            body = None
        assert isinstance(body, dict) and "error" in body, ROUTE_MISSING
    return response


async def test_the_http_route_answers_the_same_hits_as_graphql(client, pool, ws):
    await memory_matrix(pool, ws)
    await create_skill(client, ws.tokens["member"], f"{WORD}-route", "Plan a route.")
    await create_skill(client, ws.tokens["member"], "mine", f"{WORD}.", visibility="PRIVATE")
    for who in ("member", "other", "agent", "api_key"):
        response = await http_search(client, ws.tokens[who], q=WORD, objects="memory,skill")
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/json")
        body = response.json()
        assert set(body) == {"hits", "total", "capped"}
        graphql = await search(client, ws.tokens[who], WORD, ["MEMORY", "SKILL"])
        assert body["total"] == graphql["total"]
        assert [{**h, "object": h["object"].upper()} for h in body["hits"]] == graphql["hits"]
    only_skills = (await http_search(client, ws.tokens["member"], q=WORD, objects="skill")).json()
    assert {h["object"] for h in only_skills["hits"]} == {"skill"}
    assert only_skills["total"] == 2
    default = (await http_search(client, ws.tokens["member"], q=WORD)).json()
    assert default["total"] == 7
    cut = (await http_search(client, ws.tokens["member"], q=WORD, first="2")).json()
    assert len(cut["hits"]) == 2 and cut["total"] == 7
    folded = (await http_search(client, ws.tokens["member"], q="ZANZÍBAR")).json()
    assert folded["total"] == 7
    empty = await http_search(client, ws.tokens["member"], q="")
    assert empty.status_code == 200 and empty.json() == {"hits": [], "total": 0, "capped": False}
    syntax = await http_search(client, ws.tokens["member"], q="a & b | !c:* ' ( \\")
    assert syntax.status_code == 200, syntax.text


async def test_the_http_route_needs_a_token(client, ws):
    response = await http_search(client, None, q=WORD)
    assert response.status_code == 401, response.text
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    wrong = await http_search(client, "not-a-token", q=WORD)
    assert wrong.status_code == 401


@pytest.mark.parametrize(
    "params, field",
    [
        ({"q": WORD, "objects": "deals"}, "objects"),
        ({"q": WORD, "objects": "memory,deal"}, "objects"),
        ({"q": WORD, "objects": "MEMORY2"}, "objects"),
        ({"q": WORD, "objects": ","}, "objects"),
        ({"q": WORD, "first": "0"}, "first"),
        ({"q": WORD, "first": "51"}, "first"),
        ({"q": WORD, "first": "ten"}, "first"),
        ({"q": "x" * 201}, "q"),
    ],
)
async def test_the_http_route_refuses_bad_parameters(client, ws, params, field):
    response = await http_search(client, ws.tokens["member"], **params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "SCHEMA_VALIDATION_FAILED"
    assert [p.get("field") for p in error["problems"]] == [field]
